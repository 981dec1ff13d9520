import { Command, CommanderError } from 'commander';
import { type Config, ConfigError } from '../config.js';
import { errorResponse, WebcapError } from '../errors.js';
import { packageVersion } from '../package-version.js';
import { adminCommand, type Write } from './admin.js';
import { apiCommands } from './api-commands.js';
import { spellOptions } from './call-options.js';
import { CallFailure, UsageError } from './cli-errors.js';
import { crawlCommands } from './crawl-commands.js';
import { doctorCommand } from './doctor.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { mcpCommand } from './mcp.js';
import { signCommands } from './sign.js';

/** Where the program writes: process.stdout and process.stderr in the process, buffers in tests. */
export interface CliOutput {
  readonly stdout: Write;
  readonly stderr: Write;
  /** Bytes to stdout as they are (a capture without -o); without it, binary answers need -o. */
  readonly stdoutBytes?: (bytes: Uint8Array) => void;
  /** Whether stdout is a terminal: binary is not written to one unless asked (`-o -`). */
  readonly stdoutIsTTY?: boolean;
  /** Whether stderr is a terminal: progress is shown only on one. */
  readonly stderrIsTTY?: boolean;
  /** Where the API verbs read WEBCAP_URL and WEBCAP_API_KEY (process.env in the process). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The whole standard input, read when a command asks for it (`--password-stdin`). */
  readonly stdin?: () => Promise<string>;
  /**
   * Calls `handler` on the next Ctrl-C (SIGINT) instead of ending the process, until the returned
   * function is called; for a verb that must undo work it started (crawl-site cancels its crawl).
   */
  readonly onInterrupt?: (handler: () => void) => () => void;
}

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

/**
 * The `webcap` program. `config` is called only by the commands that need it, so that
 * `webcap --help` works even with a bad environment. Commander's exits are thrown as
 * CommanderError (runWebcap turns them into exit codes) instead of ending the process.
 */
export function webcapProgram(config: () => Config, output: CliOutput): Command {
  const program = new Command('webcap')
    .description('Self-hostable web capture, content and analysis API')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addHelpText('after', EXIT_CODES_HELP)
    .showHelpAfterError();
  program
    .command('serve')
    .description('run the HTTP API (HOST, PORT and the rest from the environment)')
    // Loaded only for `serve`: the browser, HTTP and storage stack costs seconds to import, which
    // every admin command would otherwise pay.
    .action(async () => {
      const { serve } = await import('./serve.js');
      await serve(config());
    });
  program
    .command('worker')
    .description('run async jobs from the BullMQ queue (REDIS_URL), without HTTP')
    .action(async () => {
      const { worker } = await import('./worker.js');
      await worker(config());
    });
  program.addCommand(adminCommand(config, output.stdout, output.stdin));
  program.addCommand(doctorCommand(config, output.stdout));
  for (const command of apiCommands(output)) program.addCommand(command);
  for (const command of crawlCommands(output)) program.addCommand(command);
  program.addCommand(signCommands(output));
  program.addCommand(mcpCommand(config, output.env ?? {}));
  // Set on each command: commander copies them only to commands made with .command() afterwards,
  // and the admin commands are made apart.
  for (const command of everyCommand(program)) {
    command.exitOverride().configureOutput({ writeOut: output.stdout, writeErr: output.stderr });
  }
  return program;
}

/**
 * Runs `webcap ARGS` (the arguments after the script) and resolves with its exit code
 * (exit-codes.ts): 0; 1 for a refused operation (WebcapError, reported as the API words it) or a
 * call the API refused; 2 for a usage mistake or a configuration error; 3 for a call that failed
 * (5xx, network, timeout). Anything else is a bug and is thrown.
 */
export async function runWebcap(
  args: readonly string[],
  config: () => Config,
  output: CliOutput,
): Promise<number> {
  try {
    const program = webcapProgram(config, output);
    await program.parseAsync(spellOptions(program, args), { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    // Commander has printed the mistake (or the help or version it was asked for).
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof UsageError) {
      output.stderr(`webcap: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      output.stderr(`webcap: configuration error: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof WebcapError) {
      output.stderr(`webcap: ${errorResponse(error).body.error}\n`);
      return EXIT.refused;
    }
    if (error instanceof CallFailure) {
      output.stderr(`webcap: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
