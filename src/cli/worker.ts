import { type Config, ConfigError } from '../config.js';
import { listen } from './listen.js';
import { stopOnSignal } from './stop-on-signal.js';
import { withRuntime } from './with-runtime.js';

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
  await withRuntime(config, { role: 'worker' }, async (runtime) => {
    stopOnSignal(runtime);
    const address = await listen(runtime.app, config.host, config.workerPort, 'WORKER_PORT');
    process.stdout.write(
      `webcap: worker running ${config.jobs.concurrency} job(s) at a time from queue ${config.jobs.queueName}; health and metrics on ${address}\n`,
    );
  });
}
