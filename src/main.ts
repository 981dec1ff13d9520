import path from 'node:path';
import type { Logger } from 'pino';
import { KeyCache } from './billing/key-cache.js';
import { capsRedisClient, RateCaps } from './billing/rate-caps.js';
import { Reservations } from './billing/reservations.js';
import { type AdBlocker, loadAdBlocker } from './browser/ad-blocker.js';
import { chromiumArgs } from './browser/chromium-args.js';
import { BrowserPool } from './browser/pool.js';
import type { CallDeps } from './calls/deps.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import type { AnalyzeDeps } from './engines/analyze/analyze.js';
import type { Analyzer } from './engines/analyze/analyzers/analyzer.js';
import { extractiveAnalyzer } from './engines/analyze/analyzers/extractive.js';
import { openAiAnalyzer } from './engines/analyze/analyzers/openai.js';
import type { CaptureDeps } from './engines/capture/capture.js';
import type { ContentDeps } from './engines/content/content.js';
import { ExtractorPool } from './engines/extractors/pool.js';
import { WebcapError } from './errors.js';
import { type App, buildApp } from './http/app.js';
import { BullMqQueue } from './jobs/bullmq.js';
import { InProcessQueue } from './jobs/in-process.js';
import { Jobs } from './jobs/jobs.js';
import type { JobQueue } from './jobs/queue.js';
import { Sealer } from './jobs/sealed.js';
import { type WebhookDelivery, Webhooks } from './jobs/webhooks.js';
import { createLogger } from './logging.js';
import { NetworkGuard } from './net/guard.js';
import type { Resolver } from './net/resolve.js';
import { Metrics } from './stats/metrics.js';
import { RequestLog } from './stats/request-log.js';
import { pruneRequestLog } from './stats/snapshot.js';
import type { BlobStore } from './store/blobs.js';
import { FsBlobStore } from './store/blobs-fs.js';
import { GuardedBlobStore } from './store/blobs-guarded.js';
import { MemoryCachedBlobStore } from './store/blobs-memory.js';
import { S3BlobStore } from './store/blobs-s3.js';
import { openStore, type Store } from './store/db.js';
import { resolveSigningSecret } from './store/signing-secret.js';

/** A running composition of the service: its store, logger and HTTP app. */
export interface Runtime {
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  readonly app: App;
  readonly guard: NetworkGuard;
  readonly pool: BrowserPool;
  readonly jobs: Jobs;
  /** What billable calls run with; the HTTP routes and the job worker share it. */
  readonly calls: CallDeps;
  /** Launches the browser and loads the ad blocker now rather than on the first call that needs them. */
  warmUp(): Promise<void>;
  /** Stops taking requests, finishes those in flight, then closes the browser and the stores. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** `api` serves the whole HTTP API; `worker` only health and metrics (`webcap worker`). */
  readonly role?: 'api' | 'worker';
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Name resolution for the network guard; tests answer names themselves. */
  readonly resolver?: Resolver;
}

/** The composition root: config → adapters → HTTP app. Chooses every adapter; nothing else does. */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const store = await openStore(config.database, {
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
    logger,
  });
  const redis =
    config.redisUrl === null ? null : capsRedisClient(config.redisUrl, config.redisCommandTimeoutMs, logger);
  const caps = new RateCaps(redis);
  const keys = new KeyCache(store.db, config.keyCacheTtlMs);
  const reservations = new Reservations(store.db, clock, config.reservationHoldMs);
  const requestLog = new RequestLog(store.db, logger, config.requestLogFlushIntervalMs);
  const stored: BlobStore =
    config.blobs.kind === 's3'
      ? new S3BlobStore(config.blobs, clock)
      : new FsBlobStore(config.blobs.dir, clock);
  const blobs = new GuardedBlobStore(
    config.blobMemoryCacheBytes > 0
      ? new MemoryCachedBlobStore(stored, config.blobMemoryCacheBytes, clock)
      : stored,
    logger,
  );
  const signingSecret = await resolveSigningSecret(store.db, config.signingSecret);
  const guard = await NetworkGuard.start(config, options.resolver);
  const pool = new BrowserPool({
    ...config.browser,
    maxQueue: config.browser.maxQueueDepth,
    args: chromiumArgs({ proxyPort: guard.proxy.port }),
    egress: guard.proxy,
    logger,
  });
  // Parsing the filter lists costs seconds on a first start, so it happens once, when first needed.
  let adBlocker: Promise<AdBlocker> | null = null;
  const loadBlocker = () => {
    adBlocker ??= loadAdBlocker({ cacheDir: path.join(config.dataDir, 'cache') });
    adBlocker.catch(() => {
      adBlocker = null;
    });
    return adBlocker;
  };
  const capture: CaptureDeps = {
    pool,
    adBlocker: loadBlocker,
    navigationTimeoutMs: config.browser.navigationTimeoutMs,
    maxFullPageHeightPx: config.browser.maxFullPageHeightPx,
  };
  const extractor = new ExtractorPool({
    threads: config.content.threads,
    maxQueue: config.content.maxQueue,
    taskTimeoutMs: config.content.extractTimeoutMs,
    maxHeapMb: config.content.threadHeapMb,
    // What the extraction libraries print (defuddle reports bad JSON-LD with a stack trace).
    output: (line, stream) => logger.debug({ extractor: stream }, line),
  });
  const content: ContentDeps = {
    page: capture,
    extractor,
    fetcher: guard.fetcher,
    sitemap: {
      maxFiles: config.content.sitemapMaxFiles,
      maxLinks: config.content.sitemapMaxLinks,
      maxFileBytes: config.content.sitemapMaxFileBytes,
      timeoutMs: config.content.sitemapTimeoutMs,
    },
    maxHtmlChars: config.content.maxHtmlChars,
    maxLinks: config.content.maxLinks,
  };
  const analyzer: Analyzer =
    config.analyzer.kind === 'openai'
      ? openAiAnalyzer(config.analyzer, logger)
      : extractiveAnalyzer(extractor);
  const analyze: AnalyzeDeps = {
    page: capture,
    extractor,
    analyzer,
    maxHtmlChars: config.content.maxHtmlChars,
  };
  const calls: CallDeps = {
    metering: { reservations, clock, caps, logger },
    guard,
    blobs,
    capture,
    content,
    analyze,
    signingSecret,
    fileUrlTtlSeconds: config.fileUrlTtlSeconds,
    s3UploadTimeoutMs: config.s3UploadTimeoutMs,
  };
  const queue: JobQueue =
    config.redisUrl === null
      ? new InProcessQueue()
      : new BullMqQueue({
          redisUrl: config.redisUrl,
          queueName: config.jobs.queueName,
          leaseMs: config.jobs.leaseMs,
          maxAttempts: config.jobs.maxAttempts,
          logger,
          onAbandoned: async (id) => {
            await jobs.runner.fail(
              id,
              { staleBefore: clock() },
              new WebcapError('internal', 'the job stalled too often'),
            );
          },
        });
  const webhooks = new Webhooks({
    db: store.db,
    fetcher: guard.fetcher,
    clock,
    logger,
    timeoutMs: config.jobs.webhookTimeoutMs,
    retryWindowMs: config.jobs.webhookRetryWindowMs,
    backoffMs: config.jobs.webhookBackoffMs,
    delivery: (job): Promise<WebhookDelivery> => jobs.runner.webhookDelivery(job),
    observe: (outcome) => metrics.observeWebhook(outcome),
  });
  const jobs = new Jobs({
    db: store.db,
    calls,
    blobs,
    sealer: new Sealer(signingSecret),
    clock,
    logger,
    requestLog,
    webhooks,
    config: config.jobs,
    observe: (engine, outcome) => metrics.observeJob(engine, outcome),
    queue,
  });
  const metrics = new Metrics({
    renderPool: () => pool.state(),
    extractors: () => extractor.state(),
    jobsQueued: () => jobs.queued(),
  });
  const app = await buildApp(
    {
      config,
      store,
      logger,
      clock,
      keys,
      requestLog,
      calls,
      blobs,
      signingSecret,
      metrics,
      jobs,
      renderPool: () => pool.state(),
    },
    options.role === 'worker' ? 'health' : 'all',
  );

  // Reservations of a process that died are released once their hold expires: now, then periodically.
  const sweep = () =>
    reservations.releaseExpired().then(
      (released) => released > 0 && logger.info({ released }, 'released expired reservations'),
      (error: unknown) => logger.error({ err: error }, 'releasing expired reservations failed'),
    );
  await sweep();
  const sweeper = setInterval(sweep, Math.min(config.reservationSweepIntervalMs, config.reservationHoldMs));
  sweeper.unref();
  // Expired blobs already read as absent; the sweep reclaims their space.
  const sweepBlobs = () =>
    blobs.sweepExpired().then(
      (deleted) => deleted > 0 && logger.info({ deleted }, 'deleted expired blobs'),
      (error: unknown) => logger.error({ err: error }, 'sweeping expired blobs failed'),
    );
  void sweepBlobs();
  const blobSweeper = setInterval(sweepBlobs, config.blobSweepIntervalMs);
  blobSweeper.unref();
  // The request log is kept for its retention; the stats' minute totals for two hours.
  const pruneLog = () =>
    pruneRequestLog(store.db, clock(), config.requestLogRetentionMs).then(
      ({ log, totals }) => (log > 0 || totals > 0) && logger.info({ log, totals }, 'pruned the request log'),
      (error: unknown) => logger.error({ err: error }, 'pruning the request log failed'),
    );
  void pruneLog();
  const logPruner = setInterval(pruneLog, config.requestLogPruneIntervalMs);
  logPruner.unref();
  await jobs.start();

  return {
    config,
    store,
    logger,
    app,
    guard,
    pool,
    jobs,
    calls,
    async warmUp() {
      await pool.warmUp();
      await loadBlocker();
    },
    async close() {
      clearInterval(sweeper);
      clearInterval(blobSweeper);
      clearInterval(logPruner);
      await app.close();
      await jobs.close();
      await pool.close();
      await extractor.close();
      await analyzer.close();
      await guard.close();
      await requestLog.close();
      keys.close();
      await blobs.close();
      await store.close();
      redis?.disconnect();
    },
  };
}
