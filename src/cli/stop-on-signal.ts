import type { Runtime } from '../runtime.js';

/**
 * On SIGTERM or SIGINT, stops the runtime gracefully once (Runtime.shutdown: readiness fails,
 * the drain delay, then calls and jobs get their grace) and exits, 0 when everything closed. A
 * second signal of the same kind ends the process at once (its default action).
 */
export function stopOnSignal(runtime: Runtime): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'shutting down');
    runtime.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        runtime.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
