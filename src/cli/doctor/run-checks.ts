import { Closers } from '../../lifecycle.js';
import { type Check, type CheckResult, fail, messageOf } from './check.js';
import { NoAnswer, within } from './deadline.js';

/** Past a check's own bound, the time it has to report, and then to close what it opened. */
const GRACE_MS = 1000;

/**
 * Runs one check within its bound (plus a grace to report): a check that has not answered by then
 * fails. What it opened is closed either way (a close that hangs is let go after the grace), so
 * that nothing it left open keeps the process alive.
 */
async function runCheck(check: Check, timeoutMs: number): Promise<CheckResult> {
  const closers = new Closers();
  try {
    return await within(timeoutMs + GRACE_MS, check.run({ timeoutMs, closers })).catch(
      (error: unknown): CheckResult =>
        error instanceof NoAnswer
          ? fail(
              check.name,
              `no verdict within ${timeoutMs} ms`,
              'see why it stalls; --timeout-ms gives every check longer',
            )
          : fail(
              check.name,
              `the check itself failed: ${messageOf(error)}`,
              'report it as a bug of webcap doctor, with this line',
            ),
    );
  } finally {
    await within(GRACE_MS, closers.close()).catch(() => undefined);
  }
}

/** Runs the checks side by side, each within `timeoutMs`; their verdicts in the checks' order. */
export function runChecks(checks: readonly Check[], timeoutMs: number): Promise<CheckResult[]> {
  return Promise.all(checks.map((check) => runCheck(check, timeoutMs)));
}
