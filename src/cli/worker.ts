import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { createRuntime } from '../main.js';

/**
 * `webcap worker`: runs async jobs from the BullMQ queue (REDIS_URL), serving only /healthz,
 * /readyz and /metrics on WORKER_PORT, until SIGTERM or SIGINT; then it stops taking jobs and
 * waits JOB_SHUTDOWN_GRACE_MS for the ones it runs (docs/jobs.md).
 */
export async function worker(config: Config): Promise<void> {
  if (config.redisUrl === null) {
    throw new ConfigError(
      'REDIS_URL',
      'set for `webcap worker` (workers share the BullMQ queue on Redis)',
      '',
    );
  }
  if (config.jobs.concurrency === 0) {
    throw new ConfigError('JOB_CONCURRENCY', 'at least 1 for `webcap worker`', '0');
  }
  const runtime = await createRuntime(config, { role: 'worker' });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'worker shutting down');
    runtime.close().then(
      () => process.exit(0),
      (error: unknown) => {
        runtime.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  const address = await runtime.app.listen({ host: config.host, port: config.workerPort });
  process.stdout.write(
    `webcap: worker running ${config.jobs.concurrency} job(s) at a time from queue ${config.jobs.queueName}; health and metrics on ${address}\n`,
  );
}
