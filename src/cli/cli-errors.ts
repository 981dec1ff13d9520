import { EXIT, type ExitCode } from './exit-codes.js';

/** A mistake on the command line, found before anything was sent: exit code 2 with its message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A call that did not succeed (refused, failed, unreachable, timed out), with the exit code it means. */
export class CallFailure extends Error {
  override readonly name = 'CallFailure';
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failed,
  ) {
    super(message);
  }
}
