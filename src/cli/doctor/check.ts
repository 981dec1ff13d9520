import type { Closers } from '../../lifecycle.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One check's verdict; `fix` says what to run or set, and is null when the check passed. */
export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
  readonly fix: string | null;
}

/** What a check runs with: its time bound, and where it registers what it opens (closed when it ends or times out). */
export interface CheckContext {
  readonly timeoutMs: number;
  readonly closers: Closers;
}

/**
 * A check of the machine or of a configured service. `run` changes nothing it looks at (it never
 * migrates or creates); the one write is the S3 probe object, deleted at once.
 */
export interface Check {
  readonly name: string;
  run(context: CheckContext): Promise<CheckResult>;
}

export const ok = (name: string, detail: string): CheckResult => ({ name, status: 'ok', detail, fix: null });
export const warn = (name: string, detail: string, fix: string): CheckResult => ({
  name,
  status: 'warn',
  detail,
  fix,
});
export const fail = (name: string, detail: string, fix: string): CheckResult => ({
  name,
  status: 'fail',
  detail,
  fix,
});

/** The fix's second half for a system package that is missing. */
export const INSTALL_DEPS = 'or scripts/install-system-deps.sh for everything webcap needs';

/** The `code` of a Node or driver error (ENOENT, 28P01...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
