import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { releaseExpired } from './billing/ledger.js';
import { RateCaps } from './billing/rate-caps.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { type App, buildApp } from './http/app.js';
import { createLogger } from './logging.js';
import { RequestLog } from './stats/request-log.js';
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
  const clock = options.clock ?? systemClock;
  const store = await openStore(config.database);
  const redis = config.redisUrl === null ? null : new Redis(config.redisUrl, { maxRetriesPerRequest: 2 });
  const caps = new RateCaps(redis);
  const requestLog = new RequestLog(store.db, logger);
  const app = await buildApp({ config, store, logger, clock, caps, requestLog });

  // Reservations of a process that died are released once their hold expires: now, then periodically.
  const sweep = () =>
    releaseExpired(store.db, clock()).then(
      (released) => released > 0 && logger.info({ released }, 'released expired reservations'),
      (error: unknown) => logger.error({ err: error }, 'releasing expired reservations failed'),
    );
  await sweep();
  const sweeper = setInterval(sweep, Math.min(30_000, config.reservationHoldMs));
  sweeper.unref();

  return {
    config,
    store,
    logger,
    app,
    async close() {
      clearInterval(sweeper);
      await app.close();
      await requestLog.close();
      await store.close();
      redis?.disconnect();
    },
  };
}
