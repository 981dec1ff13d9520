import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CHROMIUM_PATH } from './browser/chromium-args.js';
import type { OpenAiConfig } from './engines/analyze/analyzers/openai.js';
import { type AllowRule, parseAllowList } from './net/address-policy.js';

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

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

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
}

function jobsConfig(env: Env): JobsConfig {
  const leaseMs = read(env, integer('JOB_LEASE_MS', 30_000, 1000, 600_000));
  return Object.freeze({
    concurrency: read(env, integer('JOB_CONCURRENCY', 2, 0, 256)),
    maxQueued: read(env, integer('JOB_MAX_QUEUED', 1000, 1, 1_000_000)),
    queueTimeoutMs: read(env, integer('JOB_QUEUE_TIMEOUT_MS', 3_600_000, 1000, 86_400_000)),
    timeoutMs: read(env, integer('JOB_TIMEOUT_MS', 120_000, 1000, 3_600_000)),
    leaseMs,
    maxAttempts: read(env, integer('JOB_MAX_ATTEMPTS', 2, 1, 10)),
    retentionMs: read(env, integer('JOB_RETENTION_SECONDS', 86_400, 60, 2_592_000)) * 1000,
    webhookTimeoutMs: read(env, integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000)),
    webhookRetryWindowMs: read(env, integer('WEBHOOK_RETRY_WINDOW_MS', 3_600_000, 0, 86_400_000)),
    webhookBackoffMs: read(env, integer('WEBHOOK_BACKOFF_MS', 1000, 10, 600_000)),
    shutdownGraceMs: read(env, integer('JOB_SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000)),
    queueName:
      read(
        env,
        text('JOB_QUEUE_NAME', 'webcap-jobs', /^[A-Za-z0-9_-]{1,64}$/, '1 to 64 of A-Z a-z 0-9 _ -'),
      ) ?? 'webcap-jobs',
  });
}

export type AnalyzerConfig = { readonly kind: 'extractive' } | ({ readonly kind: 'openai' } & OpenAiConfig);

/** Chromium and the render pool: capacity and every bound of a render. */
export interface BrowserConfig {
  readonly executablePath: string;
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

/** One documented variable: its name, default and what it expects. The README's table mirrors this list. */
interface VariableSpec<T> {
  readonly name: string;
  readonly expected: string;
  readonly fallback: T;
  readonly parse: (raw: string) => T | undefined;
}

function read<T>(env: Env, spec: VariableSpec<T>): T {
  const raw = env[spec.name];
  if (raw === undefined || raw === '') return spec.fallback;
  const value = spec.parse(raw.trim());
  if (value === undefined) throw new ConfigError(spec.name, spec.expected, raw);
  return value;
}

function integer(name: string, fallback: number, min: number, max: number): VariableSpec<number> {
  return {
    name,
    fallback,
    expected: `an integer from ${min} to ${max}`,
    parse: (raw) => {
      if (!/^-?\d+$/.test(raw)) return undefined;
      const n = Number(raw);
      return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
    },
  };
}

function text(name: string, fallback: string | null, pattern?: RegExp, expected = 'a string') {
  return {
    name,
    fallback,
    expected,
    parse: (raw: string) => (pattern === undefined || pattern.test(raw) ? raw : undefined),
  } satisfies VariableSpec<string | null>;
}

function httpUrl(name: string, protocols: readonly string[]): VariableSpec<string | null> {
  return {
    name,
    fallback: null,
    expected: `a URL with scheme ${protocols.join(' or ')}`,
    parse: (raw) => {
      try {
        return protocols.includes(new URL(raw).protocol) ? raw : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

// AWS's bucket naming rules; S3-compatible services follow them too.
const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const S3_BUCKET_EXPECTED = 'an S3 bucket name (3 to 63 characters of a-z 0-9 . -)';

/** Blobs go to the bucket BLOB_S3_BUCKET names, else to `<dataDir>/blobs`; every BLOB_S3_* is checked either way. */
function blobStoreConfig(env: Env, dataDir: string): BlobStoreConfig {
  const bucket = read(env, text('BLOB_S3_BUCKET', null, S3_BUCKET, S3_BUCKET_EXPECTED));
  const endpoint = read(env, httpUrl('BLOB_S3_ENDPOINT', ['http:', 'https:']));
  const region =
    read(env, text('BLOB_S3_REGION', 'us-east-1', /^[a-z0-9-]{1,32}$/, 'a region name such as us-east-1')) ??
    'us-east-1';
  const accessKeyId = read(env, text('BLOB_S3_ACCESS_KEY_ID', null, /^\S+$/, 'a key id without spaces'));
  const secretAccessKey = read(
    env,
    text('BLOB_S3_SECRET_ACCESS_KEY', null, /^\S+$/, 'a secret without spaces'),
  );
  const prefix = read(
    env,
    text(
      'BLOB_S3_PREFIX',
      '',
      /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*\/?$/,
      'path segments of A-Z a-z 0-9 . _ - separated by / (no leading /)',
    ),
  );
  if (accessKeyId === null && secretAccessKey !== null) {
    throw new ConfigError('BLOB_S3_ACCESS_KEY_ID', 'set together with BLOB_S3_SECRET_ACCESS_KEY', '');
  }
  if (accessKeyId !== null && secretAccessKey === null) {
    throw new ConfigError('BLOB_S3_SECRET_ACCESS_KEY', 'set together with BLOB_S3_ACCESS_KEY_ID', '');
  }
  const timeoutMs = read(env, integer('BLOB_S3_TIMEOUT_MS', 10_000, 100, 600_000));
  const maxAttempts = read(env, integer('BLOB_S3_MAX_ATTEMPTS', 2, 1, 10));
  if (bucket === null) return { kind: 'fs', dir: path.join(dataDir, 'blobs') };
  return {
    kind: 's3',
    bucket,
    endpoint: endpoint?.replace(/\/+$/, '') ?? null,
    region,
    credentials: accessKeyId === null || secretAccessKey === null ? null : { accessKeyId, secretAccessKey },
    prefix: prefix ? `${prefix.replace(/\/$/, '')}/` : '',
    timeoutMs,
    maxAttempts,
  };
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function contentConfig(env: Env): ContentConfig {
  // One extractor process per core, beside the event loop and the browser, up to 4.
  const cores = os.availableParallelism();
  return {
    threads: read(env, integer('CONTENT_THREADS', Math.max(1, Math.min(4, cores)), 1, 64)),
    maxQueue: read(env, integer('CONTENT_MAX_QUEUE', 100, 0, 100_000)),
    extractTimeoutMs: read(env, integer('CONTENT_EXTRACT_TIMEOUT_MS', 15_000, 100, 600_000)),
    threadHeapMb: read(env, integer('CONTENT_THREAD_HEAP_MB', 512, 64, 16_384)),
    maxHtmlChars: read(env, integer('CONTENT_MAX_HTML_CHARS', 5_000_000, 10_000, 100_000_000)),
    maxLinks: read(env, integer('CONTENT_MAX_LINKS', 5000, 1, 1_000_000)),
    sitemapMaxFiles: read(env, integer('SITEMAP_MAX_FILES', 50, 1, 10_000)),
    sitemapMaxLinks: read(env, integer('SITEMAP_MAX_LINKS', 50_000, 1, 10_000_000)),
    sitemapMaxFileBytes: read(env, integer('SITEMAP_MAX_FILE_BYTES', 52_428_800, 1024, 1_073_741_824)),
    sitemapTimeoutMs: read(env, integer('SITEMAP_TIMEOUT_MS', 20_000, 100, 600_000)),
  };
}

function analyzerConfig(env: Env): AnalyzerConfig {
  const kind = read(env, text('ANALYZER', 'extractive', /^(extractive|openai)$/, 'extractive or openai'));
  const baseUrl = read(env, httpUrl('ANALYZE_OPENAI_BASE_URL', ['http:', 'https:']));
  const model = read(env, text('ANALYZE_OPENAI_MODEL', null, /^\S{1,200}$/, 'a model name without spaces'));
  const apiKey = read(env, text('ANALYZE_OPENAI_API_KEY', null, /^\S+$/, 'a key without spaces'));
  const output = read(
    env,
    text(
      'ANALYZE_OPENAI_OUTPUT',
      'json_schema',
      /^(json_schema|json_object|prompt)$/,
      'json_schema, json_object or prompt',
    ),
  ) as OpenAiConfig['output'];
  const maxTokensParam = read(
    env,
    text(
      'ANALYZE_OPENAI_MAX_TOKENS_PARAM',
      'max_tokens',
      /^(max_tokens|max_completion_tokens)$/,
      'max_tokens or max_completion_tokens',
    ),
  ) as OpenAiConfig['maxTokensParam'];
  const temperature = read(env, {
    name: 'ANALYZE_OPENAI_TEMPERATURE',
    fallback: 0 as number | null,
    expected: 'a number from 0 to 2, or "default" to send none',
    parse: (raw) => {
      if (raw === 'default') return null;
      const n = Number(raw);
      return /^\d+(\.\d+)?$/.test(raw) && n >= 0 && n <= 2 ? n : undefined;
    },
  });
  const timeoutMs = read(env, integer('ANALYZE_OPENAI_TIMEOUT_MS', 90_000, 1000, 600_000));
  const retries = read(env, integer('ANALYZE_OPENAI_RETRIES', 2, 0, 10));
  const maxInputTokens = read(env, integer('ANALYZE_MAX_INPUT_TOKENS', 6000, 100, 1_000_000));
  const maxOutputTokens = read(env, integer('ANALYZE_MAX_OUTPUT_TOKENS', 1500, 100, 100_000));
  if (kind !== 'openai') return { kind: 'extractive' };
  if (baseUrl === null) throw new ConfigError('ANALYZE_OPENAI_BASE_URL', 'set when ANALYZER=openai', '');
  if (model === null) throw new ConfigError('ANALYZE_OPENAI_MODEL', 'set when ANALYZER=openai', '');
  return {
    kind: 'openai',
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey,
    model,
    output,
    timeoutMs,
    retries,
    maxInputTokens,
    maxOutputTokens,
    temperature,
    maxTokensParam,
  };
}

function browserConfig(env: Env): BrowserConfig {
  const renderTimeoutMs = read(env, integer('RENDER_TIMEOUT_MS', 60_000, 1000, 600_000));
  const navigationTimeoutMs = read(env, integer('NAVIGATION_TIMEOUT_MS', 30_000, 500, 600_000));
  if (navigationTimeoutMs >= renderTimeoutMs) {
    throw new ConfigError(
      'NAVIGATION_TIMEOUT_MS',
      `below RENDER_TIMEOUT_MS (${renderTimeoutMs})`,
      String(navigationTimeoutMs),
    );
  }
  const launchBackoffMs = read(env, integer('BROWSER_LAUNCH_BACKOFF_MS', 1000, 100, 600_000));
  const launchBackoffMaxMs = read(env, integer('BROWSER_LAUNCH_BACKOFF_MAX_MS', 30_000, 100, 3_600_000));
  if (launchBackoffMaxMs < launchBackoffMs) {
    throw new ConfigError(
      'BROWSER_LAUNCH_BACKOFF_MAX_MS',
      `at least BROWSER_LAUNCH_BACKOFF_MS (${launchBackoffMs})`,
      String(launchBackoffMaxMs),
    );
  }
  return Object.freeze({
    executablePath: read(env, text('CHROMIUM_PATH', DEFAULT_CHROMIUM_PATH)) ?? DEFAULT_CHROMIUM_PATH,
    concurrency: read(env, integer('BROWSER_CONCURRENCY', 2, 1, 64)),
    maxQueueDepth: read(env, integer('MAX_QUEUE_DEPTH', 32, 0, 10_000)),
    renderTimeoutMs,
    navigationTimeoutMs,
    recycleAfterRenders: read(env, integer('BROWSER_RECYCLE_RENDERS', 500, 1, 1_000_000)),
    maxMemoryBytes: read(env, integer('BROWSER_MAX_MEMORY_MB', 2048, 128, 262_144)) * 1024 * 1024,
    maxFullPageHeightPx: read(env, integer('MAX_FULL_PAGE_HEIGHT_PX', 20_000, 1000, 100_000)),
    prewarm: read(env, {
      name: 'BROWSER_PREWARM',
      fallback: true,
      expected: 'true or false',
      parse: (raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined),
    }),
    launchBackoffMs,
    launchBackoffMaxMs,
  });
}

/** Parses the environment into a frozen Config; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env): Config {
  const dataDir = path.resolve(read(env, text('WEBCAP_DATA_DIR', './data')) ?? './data');
  const databaseUrl = read(env, httpUrl('DATABASE_URL', ['postgres:', 'postgresql:']));
  const schema = read(
    env,
    text('DATABASE_SCHEMA', 'public', /^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier'),
  );
  const database: DatabaseConfig =
    databaseUrl === null
      ? { kind: 'sqlite', file: path.join(dataDir, 'webcap.sqlite') }
      : { kind: 'postgres', url: databaseUrl, schema: schema ?? 'public' };
  const blobs = blobStoreConfig(env, dataDir);

  const config: Config = {
    host: read(env, text('HOST', '127.0.0.1')) ?? '127.0.0.1',
    port: read(env, integer('PORT', 8080, 0, 65535)),
    workerPort: read(env, integer('WORKER_PORT', 8081, 0, 65535)),
    dataDir,
    database,
    databaseConnectTimeoutMs: read(env, integer('DATABASE_CONNECT_TIMEOUT_MS', 5000, 100, 600_000)),
    databaseQueryTimeoutMs: read(env, integer('DATABASE_QUERY_TIMEOUT_MS', 10_000, 100, 3_600_000)),
    sqliteBusyTimeoutMs: read(env, integer('SQLITE_BUSY_TIMEOUT_MS', 5000, 0, 600_000)),
    adminToken: read(
      env,
      text('WEBCAP_ADMIN_TOKEN', null, /^\S{16,}$/, 'at least 16 characters without spaces'),
    ),
    metricsToken: read(
      env,
      text('METRICS_TOKEN', null, /^\S{16,}$/, 'at least 16 characters without spaces'),
    ),
    bootstrapQuota: read(env, integer('WEBCAP_BOOTSTRAP_QUOTA', 1000, 0, 1_000_000_000)),
    bootstrapKey: read(
      env,
      text(
        'WEBCAP_BOOTSTRAP_KEY',
        null,
        /^[A-Za-z0-9_-]{16,128}$/,
        '16 to 128 characters of A-Z a-z 0-9 _ -',
      ),
    ),
    logLevel: read(env, {
      name: 'LOG_LEVEL',
      fallback: 'info' as LogLevel,
      expected: `one of ${LOG_LEVELS.join(', ')}`,
      parse: (raw) => LOG_LEVELS.find((level) => level === raw),
    }),
    bodyLimitBytes: read(env, integer('BODY_LIMIT_BYTES', 1_048_576, 1024, 104_857_600)),
    requestTimeoutMs: read(env, integer('REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000)),
    headersTimeoutMs: read(env, integer('HEADERS_TIMEOUT_MS', 10_000, 1000, 600_000)),
    maxConnectionsPerClient: read(env, integer('MAX_CONNECTIONS_PER_CLIENT', 0, 0, 1_000_000)),
    publicBaseUrl: read(env, httpUrl('PUBLIC_BASE_URL', ['http:', 'https:']))?.replace(/\/+$/, '') ?? null,
    redisUrl: read(env, httpUrl('REDIS_URL', ['redis:', 'rediss:'])),
    redisCommandTimeoutMs: read(env, integer('REDIS_COMMAND_TIMEOUT_MS', 1000, 10, 60_000)),
    blobs,
    // Local files are already in the kernel's page cache when read again (a hit through it cost
    // 0.32 ms more), and a second copy in the service kept its memory from staying flat over a long
    // run (docs/performance.md, "Soak"); a bucket's round trip is worth keeping copies for.
    blobMemoryCacheBytes:
      read(env, integer('BLOB_MEMORY_CACHE_MB', blobs.kind === 'fs' ? 0 : 64, 0, 65_536)) * 1_048_576,
    // A week at most: a link is a bearer credential, and S3's presigned URLs stop there too.
    fileUrlTtlSeconds: read(env, integer('FILE_URL_TTL_SECONDS', 86_400, 60, 604_800)),
    signingSecret: read(
      env,
      text('WEBCAP_SIGNING_SECRET', null, /^\S{32,}$/, 'at least 32 characters without spaces'),
    ),
    s3UploadTimeoutMs: read(env, integer('S3_UPLOAD_TIMEOUT_MS', 30_000, 1000, 600_000)),
    requestLogRetentionMs: read(env, integer('REQUEST_LOG_RETENTION_DAYS', 30, 1, 3650)) * 86_400_000,
    reservationHoldMs: read(env, integer('RESERVATION_HOLD_MS', 600_000, 1000, 86_400_000)),
    // Bounds how long another process's key or account change (the CLI's, say) takes to apply here.
    keyCacheTtlMs: read(env, integer('KEY_CACHE_TTL_MS', 1000, 0, 60_000)),
    allowPrivate: read(env, {
      name: 'WEBCAP_ALLOW_PRIVATE',
      fallback: [] as readonly AllowRule[],
      expected:
        'a comma-separated list of cidr[:port], IPv6 in brackets (127.0.0.1/32:8081,10.0.0.0/8,[::1]/128:8080)',
      parse: parseAllowList,
    }),
    fetchMaxBytes: read(env, integer('FETCH_MAX_BYTES', 10_485_760, 1024, 1_073_741_824)),
    fetchHeadersTimeoutMs: read(env, integer('FETCH_HEADERS_TIMEOUT_MS', 15_000, 100, 600_000)),
    fetchTimeoutMs: read(env, integer('FETCH_TIMEOUT_MS', 30_000, 100, 600_000)),
    browser: browserConfig(env),
    content: contentConfig(env),
    jobs: jobsConfig(env),
    analyzer: analyzerConfig(env),
  };
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `at most REQUEST_TIMEOUT_MS (${config.requestTimeoutMs})`,
      String(config.headersTimeoutMs),
    );
  }
  if (config.redisUrl === null && config.jobs.concurrency === 0) {
    throw new ConfigError(
      'JOB_CONCURRENCY',
      'at least 1 without REDIS_URL (nothing else would run jobs)',
      '0',
    );
  }
  return Object.freeze(config);
}

/** The process's configuration: the one place that reads process.env. */
export function configFromProcess(): Config {
  return loadConfig(process.env);
}
