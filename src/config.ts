import path from 'node:path';
import { CONFIG_VARS, type ConfigValues, type ConfigVar } from './config-vars.js';
import type { OpenAiConfig } from './engines/analyze/analyzers/openai.js';
import type { AllowRule } from './net/address-policy.js';
import type { TrustProxy } from './net/trust-proxy.js';

/** Where the service keeps its rows: an embedded SQLite file, or a PostgreSQL server. */
export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly file: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

/** Where blobs (cache entries, hosted files) live: a local directory, or an S3-compatible bucket. */
export type BlobStoreConfig =
  | { readonly kind: 'fs'; readonly dir: string }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      /** Null for AWS itself; the URL of an S3-compatible service otherwise (addressed path-style). */
      readonly endpoint: string | null;
      readonly region: string;
      /** Null leaves credentials to the SDK's default chain (instance role, AWS_* variables, profile). */
      readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
      /** Prepended to every key: empty, or ending in '/'. */
      readonly prefix: string;
      /** Deadline of each attempt: connecting, sending, the answer, and any pause while its body arrives. */
      readonly timeoutMs: number;
      /** Attempts per operation: a timeout, a lost connection, a 5xx or throttling is retried up to this. */
      readonly maxAttempts: number;
    };

export type LogLevel = ConfigValues['LOG_LEVEL'];

/** The whole configuration, parsed once from the environment at start and frozen. */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** Port of `webcap worker`'s health and metrics endpoints (0: any free port). */
  readonly workerPort: number;
  readonly dataDir: string;
  readonly database: DatabaseConfig;
  /** PostgreSQL: longest wait for a connection (opening one, or a free one from the pool). */
  readonly databaseConnectTimeoutMs: number;
  /** PostgreSQL: longest wait for the answer to one query; the connection is dropped past it. */
  readonly databaseQueryTimeoutMs: number;
  /** SQLite: longest wait for a write lock another process holds (waited off the event loop); 503 past it. */
  readonly sqliteBusyTimeoutMs: number;
  /** Bearer token of the admin HTTP API; null turns the admin API off. */
  readonly adminToken: string | null;
  /** Bearer token of GET /metrics (Prometheus); null turns /metrics off. */
  readonly metricsToken: string | null;
  readonly bootstrapQuota: number;
  readonly bootstrapKey: string | null;
  readonly logLevel: LogLevel;
  readonly bodyLimitBytes: number;
  /** Longest time to receive a whole request, headers and body (not to answer it): 408 past it. */
  readonly requestTimeoutMs: number;
  /** Longest time to receive a request's headers: 408 past it; at most requestTimeoutMs. */
  readonly headersTimeoutMs: number;
  /** Open connections one peer address may hold; 0: no cap (behind a reverse proxy, keep it so). */
  readonly maxConnectionsPerClient: number;
  /** Which proxies' forwarded client address and protocol are believed (TRUST_PROXY); false: none. */
  readonly trustProxy: TrustProxy;
  /** On SIGTERM: /readyz answers 503 this long, every request still served, before the listener closes. */
  readonly shutdownDrainDelayMs: number;
  /** Then: how long calls in flight may take to finish; those still running are ended unbilled. */
  readonly shutdownGraceMs: number;
  /** Base URL the service is reached at from outside, for links it hands out; null derives it per request. */
  readonly publicBaseUrl: string | null;
  /** Redis for the shared rate-limit store; null keeps limits in process memory. */
  readonly redisUrl: string | null;
  /** Longest wait for Redis to answer one command; past it the caps are counted in this process. */
  readonly redisCommandTimeoutMs: number;
  readonly blobs: BlobStoreConfig;
  /** Bytes of recently read blobs (cache entries, hosted files) kept in memory; 0 keeps none (the default for local files). */
  readonly blobMemoryCacheBytes: number;
  /** How long a hosted screenshot_url stays valid. */
  readonly fileUrlTtlSeconds: number;
  /** HMAC secret of hosted file URLs; null uses the one generated once and kept in the database. */
  readonly signingSecret: string | null;
  /** Deadline of an upload to a caller's bucket (s3_url=true). */
  readonly s3UploadTimeoutMs: number;
  readonly browser: BrowserConfig;
  readonly content: ContentConfig;
  readonly jobs: JobsConfig;
  readonly console: ConsoleConfig;
  /** Which analyzer answers /v1/analyze (docs/analyze.md): the built-in extractive one, or a model behind an OpenAI-compatible API. */
  readonly analyzer: AnalyzerConfig;
  /** How long request-log rows are kept before they are deleted. */
  readonly requestLogRetentionMs: number;
  /** How long a reserved credit is held before an unsettled reservation is released. */
  readonly reservationHoldMs: number;
  /** How long a verified key's record is reused before it is read again; 0 reads it on every call. */
  readonly keyCacheTtlMs: number;
  /** Private destinations the network guard lets through (WEBCAP_ALLOW_PRIVATE); empty allows none. */
  readonly allowPrivate: readonly AllowRule[];
  /** Largest body, after decoding, that a server-side fetch (crawler, sitemap, robots) accepts. */
  readonly fetchMaxBytes: number;
  /** Longest wait for a server-side fetch to connect and send headers (per redirect hop), and between body chunks. */
  readonly fetchHeadersTimeoutMs: number;
  /** Deadline of a whole server-side fetch, redirects and body included. */
  readonly fetchTimeoutMs: number;
  /** How often reservations past their hold are released (at most reservationHoldMs). */
  readonly reservationSweepIntervalMs: number;
  /** How often expired blobs are deleted. */
  readonly blobSweepIntervalMs: number;
  /** How often the request log and the stats' minute totals are pruned. */
  readonly requestLogPruneIntervalMs: number;
  /** How often the buffered request log is written. */
  readonly requestLogFlushIntervalMs: number;
}

/** The content engine: its extractor processes and the bounds of what it returns (docs/content.md). */
export interface ContentConfig {
  /** Extractor processes working at once, beside the event loop. */
  readonly threads: number;
  /** Extractions that may wait for an extractor process; past it, 503. */
  readonly maxQueue: number;
  /** Longest one page's extraction may take. */
  readonly extractTimeoutMs: number;
  /** V8 heap of one extractor process (its element budget follows it: element-budget.ts). */
  readonly threadHeapMb: number;
  /** The rendered page's HTML is cut at this many characters before extraction. */
  readonly maxHtmlChars: number;
  /** Links returned per page, internal, external and social together. */
  readonly maxLinks: number;
  /** Sitemap discovery: files fetched, links returned, bytes per file (decompressed), deadline. */
  readonly sitemapMaxFiles: number;
  readonly sitemapMaxLinks: number;
  readonly sitemapMaxFileBytes: number;
  readonly sitemapTimeoutMs: number;
}

/** The console's sessions (docs/console.md). */
export interface ConsoleConfig {
  /** A session ends after this long without use. */
  readonly sessionIdleMs: number;
  /** A session ends this long after sign-in, however much it is used. */
  readonly sessionMaxMs: number;
  /** How long the audit rows of failed sign-ins and locks are kept. */
  readonly signInFailureAuditMs: number;
}

/** Async jobs (docs/jobs.md): queue bounds, timing, retention, webhooks. */
export interface JobsConfig {
  /** Jobs this process runs at once; 0 makes it submit only (BullMQ: other processes run them). */
  readonly concurrency: number;
  /** Queued jobs at most, across processes; past it a submission is a 503 and nothing is reserved. */
  readonly maxQueued: number;
  /** Longest a job waits in the queue; past it the job fails unbilled. */
  readonly queueTimeoutMs: number;
  /** Longest one run of a job; past it the job fails unbilled. */
  readonly timeoutMs: number;
  /** How long a worker's claim on a running job holds unless renewed; a dead worker's job is taken over after it. */
  readonly leaseMs: number;
  /** Runs of one job at most (a worker dying mid-job starts another run). */
  readonly maxAttempts: number;
  /** How long a finished job's record and result are kept. */
  readonly retentionMs: number;
  /** Deadline of one webhook delivery. */
  readonly webhookTimeoutMs: number;
  /** How long failed webhook deliveries are retried, with backoff. */
  readonly webhookRetryWindowMs: number;
  /** First retry delay of a webhook; each next one doubles. */
  readonly webhookBackoffMs: number;
  /** BullMQ's queue name: processes sharing one Redis and database use the same. */
  readonly queueName: string;
  /** How long a stopping process waits for its running jobs before it lets them go. */
  readonly shutdownGraceMs: number;
  /** How often queued jobs are checked for expiry and runs for lapsed leases (at most leaseMs). */
  readonly sweepIntervalMs: number;
}

export type AnalyzerConfig = { readonly kind: 'extractive' } | ({ readonly kind: 'openai' } & OpenAiConfig);

/** Chromium and the render pool: capacity and every bound of a render. */
export interface BrowserConfig {
  readonly executablePath: string;
  /** Whether Chromium runs sandboxed; `auto` decides by whether the service runs as root. */
  readonly sandbox: 'auto' | 'on' | 'off';
  /** Renders at once, each in its own browser context. */
  readonly concurrency: number;
  /** Calls that may wait for a free render; past it, 503. */
  readonly maxQueueDepth: number;
  /** Hard limit on one render, from taking a page to the last byte. */
  readonly renderTimeoutMs: number;
  /** Limit on navigation and on each wait for a selector; below renderTimeoutMs. */
  readonly navigationTimeoutMs: number;
  readonly recycleAfterRenders: number;
  readonly maxMemoryBytes: number;
  /** Full-page captures are cut at this many CSS pixels. */
  readonly maxFullPageHeightPx: number;
  /** Launch the browser and load the ad blocker at start rather than on first use. */
  readonly prewarm: boolean;
  /** Wait after a failed launch before the next attempt; it doubles with each failure in a row... */
  readonly launchBackoffMs: number;
  /** ...up to this. */
  readonly launchBackoffMaxMs: number;
}

/** A variable that does not parse: the message names it and what it expects. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    expected: string,
    got: string,
  ) {
    super(`${variable} must be ${expected} (got ${JSON.stringify(got)})`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** What a variable must be: the end of its ConfigError's "NAME must be ..." (and of its documentation). */
export function expectedOf(variable: ConfigVar): string {
  switch (variable.type) {
    case 'integer':
      return `an integer from ${variable.min} to ${variable.max}`;
    case 'text':
      return variable.expected ?? 'a string';
    case 'url':
      return `a URL with scheme ${variable.protocols.join(' or ')}`;
    case 'boolean':
      return 'true or false';
    case 'choice':
      return variable.expected ?? `${variable.choices.slice(0, -1).join(', ')} or ${variable.choices.at(-1)}`;
    case 'custom':
      return variable.expected;
  }
}

/** The value of a variable's (trimmed) text, or undefined when it is not what the variable expects. */
function parse(variable: ConfigVar, raw: string): unknown {
  switch (variable.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw)) return undefined;
      const n = Number(raw);
      return Number.isSafeInteger(n) && n >= variable.min && n <= variable.max ? n : undefined;
    }
    case 'text':
      return variable.pattern === undefined || variable.pattern.test(raw) ? raw : undefined;
    case 'url':
      try {
        return variable.protocols.includes(new URL(raw).protocol) ? raw : undefined;
      } catch {
        return undefined;
      }
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : undefined;
    case 'choice':
      return variable.choices.includes(raw) ? raw : undefined;
    case 'custom':
      return variable.parse(raw);
  }
}

/** Every variable of CONFIG_VARS, in its order: parsed when set (an empty one is unset), else its default. */
function readVariables(env: Env): ConfigValues {
  const values: Record<string, unknown> = {};
  for (const variable of CONFIG_VARS as readonly ConfigVar[]) {
    const raw = env[variable.name];
    if (raw === undefined || raw === '') {
      values[variable.name] = variable.default;
      continue;
    }
    const value = parse(variable, raw.trim());
    if (value === undefined) throw new ConfigError(variable.name, expectedOf(variable), raw);
    values[variable.name] = value;
  }
  // Each value was parsed by its own entry's type, which is what ConfigValues maps each name to.
  return values as ConfigValues;
}

/** Blobs go to the bucket BLOB_S3_BUCKET names, else to `<dataDir>/blobs`; every BLOB_S3_* is checked either way. */
function blobStoreConfig(v: ConfigValues, dataDir: string): BlobStoreConfig {
  const accessKeyId = v.BLOB_S3_ACCESS_KEY_ID;
  const secretAccessKey = v.BLOB_S3_SECRET_ACCESS_KEY;
  if (accessKeyId === null && secretAccessKey !== null) {
    throw new ConfigError('BLOB_S3_ACCESS_KEY_ID', 'set together with BLOB_S3_SECRET_ACCESS_KEY', '');
  }
  if (accessKeyId !== null && secretAccessKey === null) {
    throw new ConfigError('BLOB_S3_SECRET_ACCESS_KEY', 'set together with BLOB_S3_ACCESS_KEY_ID', '');
  }
  if (v.BLOB_S3_BUCKET === null) return { kind: 'fs', dir: path.join(dataDir, 'blobs') };
  const prefix = v.BLOB_S3_PREFIX;
  return {
    kind: 's3',
    bucket: v.BLOB_S3_BUCKET,
    endpoint: v.BLOB_S3_ENDPOINT?.replace(/\/+$/, '') ?? null,
    region: v.BLOB_S3_REGION,
    credentials: accessKeyId === null || secretAccessKey === null ? null : { accessKeyId, secretAccessKey },
    prefix: prefix ? `${prefix.replace(/\/$/, '')}/` : '',
    timeoutMs: v.BLOB_S3_TIMEOUT_MS,
    maxAttempts: v.BLOB_S3_MAX_ATTEMPTS,
  };
}

function browserConfig(v: ConfigValues): BrowserConfig {
  if (v.NAVIGATION_TIMEOUT_MS >= v.RENDER_TIMEOUT_MS) {
    throw new ConfigError(
      'NAVIGATION_TIMEOUT_MS',
      `below RENDER_TIMEOUT_MS (${v.RENDER_TIMEOUT_MS})`,
      String(v.NAVIGATION_TIMEOUT_MS),
    );
  }
  if (v.BROWSER_LAUNCH_BACKOFF_MAX_MS < v.BROWSER_LAUNCH_BACKOFF_MS) {
    throw new ConfigError(
      'BROWSER_LAUNCH_BACKOFF_MAX_MS',
      `at least BROWSER_LAUNCH_BACKOFF_MS (${v.BROWSER_LAUNCH_BACKOFF_MS})`,
      String(v.BROWSER_LAUNCH_BACKOFF_MAX_MS),
    );
  }
  return Object.freeze({
    executablePath: v.CHROMIUM_PATH,
    sandbox: v.CHROMIUM_SANDBOX,
    concurrency: v.BROWSER_CONCURRENCY,
    maxQueueDepth: v.MAX_QUEUE_DEPTH,
    renderTimeoutMs: v.RENDER_TIMEOUT_MS,
    navigationTimeoutMs: v.NAVIGATION_TIMEOUT_MS,
    recycleAfterRenders: v.BROWSER_RECYCLE_RENDERS,
    maxMemoryBytes: v.BROWSER_MAX_MEMORY_MB * 1024 * 1024,
    maxFullPageHeightPx: v.MAX_FULL_PAGE_HEIGHT_PX,
    prewarm: v.BROWSER_PREWARM,
    launchBackoffMs: v.BROWSER_LAUNCH_BACKOFF_MS,
    launchBackoffMaxMs: v.BROWSER_LAUNCH_BACKOFF_MAX_MS,
  });
}

function contentConfig(v: ConfigValues): ContentConfig {
  return {
    threads: v.CONTENT_THREADS,
    maxQueue: v.CONTENT_MAX_QUEUE,
    extractTimeoutMs: v.CONTENT_EXTRACT_TIMEOUT_MS,
    threadHeapMb: v.CONTENT_THREAD_HEAP_MB,
    maxHtmlChars: v.CONTENT_MAX_HTML_CHARS,
    maxLinks: v.CONTENT_MAX_LINKS,
    sitemapMaxFiles: v.SITEMAP_MAX_FILES,
    sitemapMaxLinks: v.SITEMAP_MAX_LINKS,
    sitemapMaxFileBytes: v.SITEMAP_MAX_FILE_BYTES,
    sitemapTimeoutMs: v.SITEMAP_TIMEOUT_MS,
  };
}

function analyzerConfig(v: ConfigValues): AnalyzerConfig {
  if (v.ANALYZER !== 'openai') return { kind: 'extractive' };
  const baseUrl = v.ANALYZE_OPENAI_BASE_URL;
  const model = v.ANALYZE_OPENAI_MODEL;
  if (baseUrl === null) throw new ConfigError('ANALYZE_OPENAI_BASE_URL', 'set when ANALYZER=openai', '');
  if (model === null) throw new ConfigError('ANALYZE_OPENAI_MODEL', 'set when ANALYZER=openai', '');
  return {
    kind: 'openai',
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: v.ANALYZE_OPENAI_API_KEY,
    model,
    output: v.ANALYZE_OPENAI_OUTPUT,
    timeoutMs: v.ANALYZE_OPENAI_TIMEOUT_MS,
    retries: v.ANALYZE_OPENAI_RETRIES,
    maxInputTokens: v.ANALYZE_MAX_INPUT_TOKENS,
    maxOutputTokens: v.ANALYZE_MAX_OUTPUT_TOKENS,
    temperature: v.ANALYZE_OPENAI_TEMPERATURE,
    maxTokensParam: v.ANALYZE_OPENAI_MAX_TOKENS_PARAM,
  };
}

function jobsConfig(v: ConfigValues): JobsConfig {
  return Object.freeze({
    concurrency: v.JOB_CONCURRENCY,
    maxQueued: v.JOB_MAX_QUEUED,
    queueTimeoutMs: v.JOB_QUEUE_TIMEOUT_MS,
    timeoutMs: v.JOB_TIMEOUT_MS,
    leaseMs: v.JOB_LEASE_MS,
    maxAttempts: v.JOB_MAX_ATTEMPTS,
    retentionMs: v.JOB_RETENTION_SECONDS * 1000,
    webhookTimeoutMs: v.WEBHOOK_TIMEOUT_MS,
    webhookRetryWindowMs: v.WEBHOOK_RETRY_WINDOW_MS,
    webhookBackoffMs: v.WEBHOOK_BACKOFF_MS,
    shutdownGraceMs: v.JOB_SHUTDOWN_GRACE_MS,
    queueName: v.JOB_QUEUE_NAME,
    sweepIntervalMs: v.JOB_SWEEP_INTERVAL_MS,
  });
}

/**
 * Parses the environment into a frozen Config; throws ConfigError naming the first bad variable
 * (in CONFIG_VARS's order), then the first pair that does not fit together.
 */
export function loadConfig(env: Env): Config {
  const v = readVariables(env);
  const dataDir = path.resolve(v.WEBCAP_DATA_DIR);
  const database: DatabaseConfig =
    v.DATABASE_URL === null
      ? { kind: 'sqlite', file: path.join(dataDir, 'webcap.sqlite') }
      : { kind: 'postgres', url: v.DATABASE_URL, schema: v.DATABASE_SCHEMA };
  const blobs = blobStoreConfig(v, dataDir);
  const browser = browserConfig(v);
  const analyzer = analyzerConfig(v);
  if (v.HEADERS_TIMEOUT_MS > v.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `at most REQUEST_TIMEOUT_MS (${v.REQUEST_TIMEOUT_MS})`,
      String(v.HEADERS_TIMEOUT_MS),
    );
  }
  if (v.REDIS_URL === null && v.JOB_CONCURRENCY === 0) {
    throw new ConfigError(
      'JOB_CONCURRENCY',
      'at least 1 without REDIS_URL (nothing else would run jobs)',
      '0',
    );
  }
  return Object.freeze({
    host: v.HOST,
    port: v.PORT,
    workerPort: v.WORKER_PORT,
    dataDir,
    database,
    databaseConnectTimeoutMs: v.DATABASE_CONNECT_TIMEOUT_MS,
    databaseQueryTimeoutMs: v.DATABASE_QUERY_TIMEOUT_MS,
    sqliteBusyTimeoutMs: v.SQLITE_BUSY_TIMEOUT_MS,
    adminToken: v.WEBCAP_ADMIN_TOKEN,
    metricsToken: v.METRICS_TOKEN,
    bootstrapQuota: v.WEBCAP_BOOTSTRAP_QUOTA,
    bootstrapKey: v.WEBCAP_BOOTSTRAP_KEY,
    logLevel: v.LOG_LEVEL,
    bodyLimitBytes: v.BODY_LIMIT_BYTES,
    requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: v.HEADERS_TIMEOUT_MS,
    maxConnectionsPerClient: v.MAX_CONNECTIONS_PER_CLIENT,
    trustProxy: v.TRUST_PROXY,
    shutdownDrainDelayMs: v.SHUTDOWN_DRAIN_DELAY_MS,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    publicBaseUrl: v.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? null,
    redisUrl: v.REDIS_URL,
    redisCommandTimeoutMs: v.REDIS_COMMAND_TIMEOUT_MS,
    blobs,
    // Local files are already in the kernel's page cache when read again (a hit through it cost
    // 0.32 ms more), and a second copy in the service kept its memory from staying flat over a long
    // run (docs/performance.md, "Soak"); a bucket's round trip is worth keeping copies for.
    blobMemoryCacheBytes: (v.BLOB_MEMORY_CACHE_MB ?? (blobs.kind === 'fs' ? 0 : 64)) * 1_048_576,
    fileUrlTtlSeconds: v.FILE_URL_TTL_SECONDS,
    signingSecret: v.WEBCAP_SIGNING_SECRET,
    s3UploadTimeoutMs: v.S3_UPLOAD_TIMEOUT_MS,
    requestLogRetentionMs: v.REQUEST_LOG_RETENTION_DAYS * 86_400_000,
    reservationHoldMs: v.RESERVATION_HOLD_MS,
    keyCacheTtlMs: v.KEY_CACHE_TTL_MS,
    allowPrivate: v.WEBCAP_ALLOW_PRIVATE,
    fetchMaxBytes: v.FETCH_MAX_BYTES,
    fetchHeadersTimeoutMs: v.FETCH_HEADERS_TIMEOUT_MS,
    fetchTimeoutMs: v.FETCH_TIMEOUT_MS,
    reservationSweepIntervalMs: v.RESERVATION_SWEEP_INTERVAL_MS,
    blobSweepIntervalMs: v.BLOB_SWEEP_INTERVAL_MS,
    requestLogPruneIntervalMs: v.REQUEST_LOG_PRUNE_INTERVAL_MS,
    requestLogFlushIntervalMs: v.REQUEST_LOG_FLUSH_INTERVAL_MS,
    browser,
    content: contentConfig(v),
    jobs: jobsConfig(v),
    console: Object.freeze({
      sessionIdleMs: v.CONSOLE_SESSION_IDLE_MINUTES * 60_000,
      sessionMaxMs: v.CONSOLE_SESSION_MAX_HOURS * 3_600_000,
      signInFailureAuditMs: v.CONSOLE_SIGN_IN_FAILURE_AUDIT_DAYS * 86_400_000,
    }),
    analyzer,
  });
}

/** The process's configuration: the one place that reads process.env. */
export function configFromProcess(): Config {
  return loadConfig(process.env);
}
