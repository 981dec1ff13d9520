import { bootstrapDefaultAccount } from '../billing/bootstrap.js';
import type { Config } from '../config.js';
import { listen } from './listen.js';
import { stopOnSignal } from './stop-on-signal.js';
import { withRuntime } from './with-runtime.js';

/** `webcap serve`: opens the stores, bootstraps an empty database, listens until SIGTERM or SIGINT. */
export function serve(config: Config): Promise<void> {
  return withRuntime(config, {}, async (runtime) => {
    const created = await bootstrapDefaultAccount(
      runtime.store.db,
      { monthlyQuota: config.bootstrapQuota, key: config.bootstrapKey },
      new Date(),
    );
    if (created !== null) process.stderr.write(keyNotice(created.accountSlug, created.plaintext));
    stopOnSignal(runtime);
    const address = await listen(runtime.app, config.host, config.port, 'PORT');
    // Fastify names one address of a wildcard listener (127.0.0.1), which in a container is not
    // where clients reach it: say that every interface listens.
    const where = ['0.0.0.0', '::'].includes(config.host) ? `every interface, port ${config.port}` : address;
    process.stdout.write(`webcap: listening on ${where} (docs at ${address}/docs)\n`);
    if (config.browser.prewarm) {
      // Off the start path: the service answers at once, and the first capture finds a warm browser.
      runtime
        .warmUp()
        .catch((error: unknown) => runtime.logger.error({ err: error }, 'browser warm-up failed'));
    }
  });
}

const FRAME = '='.repeat(72);

/**
 * The first start's key, for the person at the terminal (`make start`, `docker logs`): on stderr,
 * framed, never on stdout, which carries the JSON log lines a shipper collects, and never logged.
 */
function keyNotice(accountSlug: string, plaintext: string | null): string {
  const shown = plaintext ?? '(the key set in WEBCAP_BOOTSTRAP_KEY)';
  return [
    '',
    FRAME,
    `webcap: created account "${accountSlug}" with a development API key (shown only once):`,
    '',
    `  ${shown}`,
    '',
    'Keep it now: it is not in the logs and is never shown again.',
    FRAME,
    '',
    '',
  ].join('\n');
}
