import type { Logger } from 'pino';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { type App, buildApp } from './http/app.js';
import { createLogger } from './logging.js';
import { openStore, type Store } from './store/db.js';

/** A running composition of the service: its store, logger and HTTP app. */
export interface Runtime {
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  readonly app: App;
  /** Stops taking requests, finishes those in flight, then closes the stores. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  readonly logger?: Logger;
  readonly clock?: Clock;
}

/** The composition root: config → adapters → HTTP app. Chooses every adapter; nothing else does. */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const store = await openStore(config.database);
  const app = await buildApp({ config, store, logger, clock: options.clock ?? systemClock });
  return {
    config,
    store,
    logger,
    app,
    async close() {
      await app.close();
      await store.close();
    },
  };
}
