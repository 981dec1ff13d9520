import type { Logger } from 'pino';
import type { KeyCache } from '../billing/key-cache.js';
import type { PoolState } from '../browser/pool.js';
import type { CallDeps } from '../calls/deps.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Crawls } from '../crawls/crawls.js';
import type { Jobs } from '../jobs/jobs.js';
import type { Metrics } from '../stats/metrics.js';
import type { RequestLog } from '../stats/request-log.js';
import type { BlobStore } from '../store/blobs.js';
import type { Store } from '../store/db.js';

/** Everything the HTTP layer needs; runtime.ts builds it, tests build their own. */
export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Verifies presented keys; every authenticated route goes through it. */
  readonly keys: KeyCache;
  readonly requestLog: RequestLog;
  /** What billable calls run with (metering, guard, engines, blobs); the job worker shares it. */
  readonly calls: CallDeps;
  /** Cache entries and hosted files. */
  readonly blobs: BlobStore;
  /** HMAC secret of hosted file links. */
  readonly signingSecret: string;
  readonly metrics: Metrics;
  /** Async jobs: submission, polling, cancellation. */
  readonly jobs: Jobs;
  /** Whole-site crawls: submission, reading, cancellation. */
  readonly crawls: Crawls;
  /** The render pool's state, for /readyz. */
  readonly renderPool: () => PoolState;
  /** Where the console's built front end is (index.html, assets/); default: dist/console. */
  readonly consoleDir?: string;
}
