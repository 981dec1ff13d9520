import path from 'node:path';
import type { Logger } from 'pino';
import { pruneSignInRefusals } from './admin/audit.js';
import { pruneConsoleRows } from './admin/sessions.js';
import { KeyCache } from './billing/key-cache.js';
import { capsRedisClient, RateCaps } from './billing/rate-caps.js';
import { Reservations } from './billing/reservations.js';
import { loadAdBlocker } from './browser/ad-blocker.js';
import { chromiumArgs } from './browser/chromium-args.js';
import { loadCookieBannerRemover } from './browser/cookie-banners.js';
import { loadOnce } from './browser/load-once.js';
import { BrowserPool } from './browser/pool.js';
import { hostedFileLink } from './calls/delivery.js';
import type { CallDeps } from './calls/deps.js';
import { isResultCacheBlob } from './calls/result-cache.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { crawlOutbox } from './crawls/crawl-events.js';
import { Crawls } from './crawls/crawls.js';
import type { AnalyzeDeps } from './engines/analyze/analyze.js';
import type { Analyzer } from './engines/analyze/analyzers/analyzer.js';
import { extractiveAnalyzer } from './engines/analyze/analyzers/extractive.js';
import { openAiAnalyzer } from './engines/analyze/analyzers/openai.js';
import type { CaptureDeps } from './engines/capture/capture.js';
import type { ContentDeps } from './engines/content/content.js';
import { openAiSchemaModel } from './engines/extract/schema/model-extract.js';
import { ExtractorPool } from './engines/extractors/pool.js';
import { type App, buildApp } from './http/app.js';
import { HttpDrain } from './http/drain.js';
import { BullMqQueue } from './jobs/bullmq.js';
import { InProcessQueue } from './jobs/in-process.js';
import { countQueued } from './jobs/job-store.js';
import { jobOutbox } from './jobs/job-webhooks.js';
import { Jobs } from './jobs/jobs.js';
import type { JobQueue } from './jobs/queue.js';
import { Sealer } from './jobs/sealed.js';
import { Webhooks } from './jobs/webhooks.js';
import { buildOrUnwind, type Closers } from './lifecycle.js';
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
import { warnOpenDataPaths } from './store/private-files.js';
import { resolveSigningSecret } from './store/signing-secret.js';

/** A running composition of the service: its store, logger and HTTP app. */
export interface Runtime {
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  readonly app: App;
  readonly jobs: Jobs;
  /** Whole-site crawls: submission, reading, cancellation (the MCP tools use them too). */
  readonly crawls: Crawls;
  /** What billable calls run with; the HTTP routes and the job worker share it. */
  readonly calls: CallDeps;
  /** Verifies presented keys (the HTTP auth and `webcap mcp` alike). */
  readonly keys: KeyCache;
  readonly requestLog: RequestLog;
  /** Launches the browser and loads the ad blocker now rather than on the first call that needs them. */
  warmUp(): Promise<void>;
  /**
   * Stops the upkeep and taking requests, lets those in flight finish within SHUTDOWN_GRACE_MS
   * and the running jobs within JOB_SHUTDOWN_GRACE_MS (what is still running then is ended
   * unbilled, a job handed back to the queue), then closes the engines and the stores: everything
   * opened, latest first. Every closer runs even when one fails; it then rejects with a
   * CloseError naming those that failed.
   */
  close(): Promise<void>;
  /**
   * The graceful stop on SIGTERM (docs/drain.md): /readyz answers 503 at once, every request is
   * still served for SHUTDOWN_DRAIN_DELAY_MS, then `close`, with the jobs' grace running
   * alongside the calls'.
   */
  shutdown(): Promise<void>;
}

export interface RuntimeOptions {
  /** `api` serves the whole HTTP API; `worker` only health and metrics (`webcap worker`). */
  readonly role?: 'api' | 'worker';
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Name resolution for the network guard; tests answer names themselves. */
  readonly resolver?: Resolver;
  /** Where the console's built front end is; default dist/console. */
  readonly consoleDir?: string;
}

/**
 * The composition root: config → stores → blobs → engines → calls → jobs → HTTP app → upkeep.
 * Chooses every adapter; nothing else does. Each phase registers how what it opens closes, so a
 * start that fails part way closes what was opened, latest first, and rethrows.
 */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  return buildOrUnwind(
    async (closers) => {
      await warnOpenDataPaths(config, logger);
      const stores = await openStores(config, clock, logger, closers);
      const blobs = openBlobs(config, clock, logger, closers);
      // Runs once the engines have closed (ending the calls past the grace): the stores their
      // units are released in close only after those calls answered.
      const drain = new HttpDrain(logger);
      closers.add('requests in flight', () => drain.settle());
      const engines = await openEngines(config, logger, options.resolver, closers);
      const calls = callDeps(config, clock, logger, stores, blobs, engines);
      const metrics = new Metrics({
        renderPool: () => engines.pool.state(),
        extractors: () => engines.extractor.state(),
        jobsQueued: () => countQueued(stores.store.db),
      });
      const jobs = openJobs(config, clock, logger, { stores, blobs, engines, calls, metrics }, closers);
      const crawlSealer = new Sealer(stores.signingSecret, 'crawl plans');
      const crawls = new Crawls({
        db: stores.store.db,
        calls,
        blobs,
        sealer: crawlSealer,
        clock,
        logger,
        requestLog: stores.requestLog,
        jobs,
        config: config.jobs,
        webhooks: new Webhooks({
          db: stores.store.db,
          outbox: crawlOutbox(stores.store.db, blobs, crawlSealer, (baseUrl, id) =>
            hostedFileLink(calls, baseUrl, id),
          ),
          fetcher: engines.guard.fetcher,
          clock,
          logger,
          timeoutMs: config.jobs.webhookTimeoutMs,
          retryWindowMs: config.jobs.webhookRetryWindowMs,
          backoffMs: config.jobs.webhookBackoffMs,
          observe: (outcome) => metrics.observeWebhook(outcome),
        }),
      });
      closers.add('crawls', () => crawls.close());
      const app = await buildApp(
        {
          config,
          store: stores.store,
          logger,
          clock,
          keys: stores.keys,
          requestLog: stores.requestLog,
          calls,
          blobs,
          signingSecret: stores.signingSecret,
          metrics,
          jobs,
          crawls,
          renderPool: () => engines.pool.state(),
          consoleDir: options.consoleDir,
        },
        options.role === 'worker' ? 'health' : 'all',
      );
      drain.attach(app);
      closers.add('http', () => drain.close(config.shutdownGraceMs));
      await startUpkeep(config, clock, logger, { stores, blobs }, closers);
      await jobs.start();
      await crawls.start();
      return {
        config,
        store: stores.store,
        logger,
        app,
        jobs,
        crawls,
        calls,
        keys: stores.keys,
        requestLog: stores.requestLog,
        warmUp: engines.warmUp,
        close: () => closers.close(),
        async shutdown() {
          drain.begin();
          await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainDelayMs));
          // The jobs' grace runs alongside the calls' rather than after it. Submissions are
          // still queued until the jobs closer runs, after the HTTP side has drained.
          jobs.stopTaking().catch(() => undefined);
          await closers.close();
        },
      };
    },
    (error) => logger.error({ err: error }, 'closing after a failed start failed'),
  );
}

/** The rows and what keeps them: database, Redis for the rate caps, keys, reservations, request log. */
interface Stores {
  readonly store: Store;
  readonly caps: RateCaps;
  readonly keys: KeyCache;
  readonly reservations: Reservations;
  readonly requestLog: RequestLog;
  readonly signingSecret: string;
}

async function openStores(config: Config, clock: Clock, logger: Logger, closers: Closers): Promise<Stores> {
  const store = await openStore(config.database, {
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
    logger,
  });
  closers.add('database', () => store.close());
  const redis =
    config.redisUrl === null ? null : capsRedisClient(config.redisUrl, config.redisCommandTimeoutMs, logger);
  if (redis !== null) closers.add('rate caps redis', () => redis.disconnect());
  const keys = new KeyCache(store.db, config.keyCacheTtlMs);
  closers.add('key cache', () => keys.close());
  const requestLog = new RequestLog(store.db, logger, config.requestLogFlushIntervalMs);
  closers.add('request log', () => requestLog.close());
  const reservations = new Reservations(store.db, clock, config.reservationHoldMs, logger);
  closers.add('reservation leases', () => reservations.close());
  return {
    store,
    caps: new RateCaps(redis, clock),
    keys,
    reservations,
    requestLog,
    signingSecret: await resolveSigningSecret(store.db, config.signingSecret),
  };
}

/** Cache entries, hosted files and job results: local files or a bucket, maybe with copies in memory. */
function openBlobs(config: Config, clock: Clock, logger: Logger, closers: Closers): BlobStore {
  const stored: BlobStore =
    config.blobs.kind === 's3'
      ? new S3BlobStore(config.blobs, clock)
      : new FsBlobStore(config.blobs.dir, clock);
  const blobs = new GuardedBlobStore(
    config.blobMemoryCacheBytes > 0
      ? new MemoryCachedBlobStore(
          stored,
          config.blobMemoryCacheBytes,
          clock,
          // A local file read again is served by the page cache, but a hit's open, read and close
          // cost more than the rest of it; hosted files, mostly fetched once, would only churn
          // the copies (docs/performance.md, "Soak").
          config.blobs.kind === 'fs' ? isResultCacheBlob : undefined,
        )
      : stored,
    logger,
  );
  closers.add('blobs', () => blobs.close());
  return blobs;
}

/** The network guard, the browser pool, the extractor processes and the analyzer, and what the engines take. */
interface Engines {
  readonly guard: NetworkGuard;
  readonly pool: BrowserPool;
  readonly extractor: ExtractorPool;
  readonly capture: CaptureDeps;
  readonly content: ContentDeps;
  readonly analyze: AnalyzeDeps;
  readonly warmUp: () => Promise<void>;
}

async function openEngines(
  config: Config,
  logger: Logger,
  resolver: Resolver | undefined,
  closers: Closers,
): Promise<Engines> {
  const guard = await NetworkGuard.start(config, resolver);
  closers.add('network guard', () => guard.close());
  const pool = new BrowserPool({
    ...config.browser,
    maxQueue: config.browser.maxQueueDepth,
    args: chromiumArgs({ proxyPort: guard.proxy.port, sandbox: config.browser.sandbox }),
    egress: guard.proxy,
    logger,
  });
  closers.add('browser pool', () => pool.close());
  // Parsing the filter lists costs seconds on a first start, so it happens once, when first needed.
  const loadBlocker = loadOnce(() =>
    loadAdBlocker({
      cacheDir: path.join(config.dataDir, 'cache'),
      onCacheWriteError: (err) =>
        logger.warn(
          { err },
          'ad blocker: its parsed filter lists could not be cached; it parses them again at each start',
        ),
    }),
  );
  const extractor = new ExtractorPool({
    threads: config.content.threads,
    maxQueue: config.content.maxQueue,
    taskTimeoutMs: config.content.extractTimeoutMs,
    maxHeapMb: config.content.threadHeapMb,
    // What an extractor process prints: V8's out-of-heap report when a page exhausts its heap.
    output: (line, stream) => logger.debug({ extractor: stream }, line),
  });
  closers.add('extractors', () => extractor.close());
  const capture: CaptureDeps = {
    pool,
    adBlocker: loadBlocker,
    cookieBanners: loadOnce(loadCookieBannerRemover),
    navigationTimeoutMs: config.browser.navigationTimeoutMs,
    textSettleMaxMs: config.browser.textSettleMaxMs,
    maxFullPageHeightPx: config.browser.maxFullPageHeightPx,
    markdownPage: (markdown) => extractor.run('markdown-page', markdown),
    animation: {
      ...config.animation,
      renderTimeoutMs: config.browser.renderTimeoutMs,
      clockMs: () => performance.now(),
    },
  };
  const analyzer: Analyzer =
    config.analyzer.kind === 'openai'
      ? openAiAnalyzer(config.analyzer, logger)
      : extractiveAnalyzer(extractor);
  closers.add('analyzer', () => analyzer.close());
  // The analyzer's model fills schemas too; without one the built-in extractor does.
  const schemaModel = config.analyzer.kind === 'openai' ? openAiSchemaModel(config.analyzer, logger) : null;
  if (schemaModel !== null) closers.add('schema model', () => schemaModel.close());
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
    schemaModel,
  };
  const analyze: AnalyzeDeps = {
    page: capture,
    extractor,
    analyzer,
    maxHtmlChars: config.content.maxHtmlChars,
  };
  return {
    guard,
    pool,
    extractor,
    capture,
    content,
    analyze,
    async warmUp() {
      await pool.warmUp();
      await loadBlocker();
    },
  };
}

/** What one billable call runs with, synchronous or as a job: metering, guard, blobs, engines. */
function callDeps(
  config: Config,
  clock: Clock,
  logger: Logger,
  stores: Stores,
  blobs: BlobStore,
  engines: Engines,
): CallDeps {
  return {
    metering: { reservations: stores.reservations, clock, caps: stores.caps, logger },
    guard: engines.guard,
    blobs,
    capture: engines.capture,
    content: engines.content,
    analyze: engines.analyze,
    signingSecret: stores.signingSecret,
    fileUrlTtlSeconds: config.fileUrlTtlSeconds,
    s3UploadTimeoutMs: config.s3UploadTimeoutMs,
  };
}

/** Async jobs: the queue (in this process, or BullMQ on Redis), webhooks, and the runner over both. */
function openJobs(
  config: Config,
  clock: Clock,
  logger: Logger,
  parts: {
    readonly stores: Stores;
    readonly blobs: BlobStore;
    readonly engines: Engines;
    readonly calls: CallDeps;
    readonly metrics: Metrics;
  },
  closers: Closers,
): Jobs {
  const { stores, metrics } = parts;
  // The queue and the webhooks call back into the runner that Jobs builds on them. It exists
  // before either can: the queue delivers nothing, and webhooks poll nothing, before jobs.start().
  let jobs: Jobs | undefined;
  const built = (): Jobs => {
    if (jobs === undefined) throw new Error('the job runner was called back before it was built');
    return jobs;
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
          onAbandoned: (id) => built().abandon(id),
        });
  const webhooks = new Webhooks({
    db: stores.store.db,
    outbox: jobOutbox(stores.store.db, (job) => built().runner.webhookDelivery(job)),
    fetcher: parts.engines.guard.fetcher,
    clock,
    logger,
    timeoutMs: config.jobs.webhookTimeoutMs,
    retryWindowMs: config.jobs.webhookRetryWindowMs,
    backoffMs: config.jobs.webhookBackoffMs,
    observe: (outcome) => metrics.observeWebhook(outcome),
  });
  const made = new Jobs({
    db: stores.store.db,
    calls: parts.calls,
    blobs: parts.blobs,
    sealer: new Sealer(stores.signingSecret),
    clock,
    logger,
    requestLog: stores.requestLog,
    webhooks,
    config: config.jobs,
    observe: (engine, outcome) => metrics.observeJob(engine, outcome),
    queue,
  });
  jobs = made;
  // Closes the queue and the webhooks too, after the runs in flight.
  closers.add('jobs', () => made.close());
  return made;
}

/**
 * The periodic upkeep, every task now and then at its interval (from config): expired
 * reservations released (awaited, as before serving), expired blobs deleted, the request log pruned.
 */
async function startUpkeep(
  config: Config,
  clock: Clock,
  logger: Logger,
  parts: { readonly stores: Stores; readonly blobs: BlobStore },
  closers: Closers,
): Promise<void> {
  const { stores, blobs } = parts;
  const every = (name: string, intervalMs: number, task: () => Promise<unknown>) => {
    const timer = setInterval(task, intervalMs);
    timer.unref();
    closers.add(name, () => clearInterval(timer));
  };
  // Reservations of a process that died are released once their hold expires: now, then periodically.
  const sweep = () =>
    stores.reservations.releaseExpired().then(
      (released) => released > 0 && logger.info({ released }, 'released expired reservations'),
      (error: unknown) => logger.error({ err: error }, 'releasing expired reservations failed'),
    );
  await sweep();
  every('reservation sweep', Math.min(config.reservationSweepIntervalMs, config.reservationHoldMs), sweep);
  // Expired blobs already read as absent; the sweep reclaims their space.
  const sweepBlobs = () =>
    blobs.sweepExpired().then(
      (deleted) => deleted > 0 && logger.info({ deleted }, 'deleted expired blobs'),
      (error: unknown) => logger.error({ err: error }, 'sweeping expired blobs failed'),
    );
  void sweepBlobs();
  every('blob sweep', config.blobSweepIntervalMs, sweepBlobs);
  // The request log is kept for its retention; the stats' minute totals for two hours.
  const pruneLog = () =>
    pruneRequestLog(stores.store.db, clock(), config.requestLogRetentionMs).then(
      ({ log, totals }) => (log > 0 || totals > 0) && logger.info({ log, totals }, 'pruned the request log'),
      (error: unknown) => logger.error({ err: error }, 'pruning the request log failed'),
    );
  void pruneLog();
  every('request log pruning', config.requestLogPruneIntervalMs, pruneLog);
  // Console sessions past their end and sign-in failures no longer counted go on the same beat.
  const pruneConsole = () =>
    pruneConsoleRows(stores.store.db, clock(), config.console.sessionIdleMs).catch((error: unknown) =>
      logger.error({ err: error }, 'pruning console sessions failed'),
    );
  void pruneConsole();
  every('console pruning', config.requestLogPruneIntervalMs, pruneConsole);
  const pruneRefusals = () =>
    pruneSignInRefusals(stores.store.db, clock(), config.console.signInFailureAuditMs).then(
      (deleted) => deleted > 0 && logger.info({ deleted }, 'pruned failed sign-ins from the audit log'),
      (error: unknown) => logger.error({ err: error }, 'pruning failed sign-ins from the audit log failed'),
    );
  void pruneRefusals();
  every('sign-in audit pruning', config.requestLogPruneIntervalMs, pruneRefusals);
}
