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
    if (created !== null) {
      // Printed on stdout, not logged: the key must never reach the logs.
      const shown = created.plaintext ?? '(the key set in WEBCAP_BOOTSTRAP_KEY)';
      process.stdout.write(
        `\nwebcap: created account "${created.accountSlug}" with a development API key (shown only once):\n\n  ${shown}\n\n`,
      );
    }
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
