import os from 'node:os';
import { DEFAULT_CHROMIUM_PATH } from './browser/chromium-args.js';
import { DEFAULT_FFMPEG_PATH } from './engines/capture/encode-animation.js';
import { type AllowRule, parseAllowList } from './net/address-policy.js';
import { parseTrustProxy, type TrustProxy } from './net/trust-proxy.js';

/**
 * Every environment variable webcap reads, as data: config.ts parses them in this order, each into
 * the place in Config its `key` names (Config's type follows from the same entries), and the
 * README's configuration table is generated from it (`npm run docs:config`; a test compares).
 */

/** The README's sections, in the order they appear. */
export const CONFIG_GROUPS = {
  service: 'Service',
  requests: 'Receiving requests',
  storage: 'Database and files',
  billing: 'Keys, caps and credits',
  network: 'Network guard and server-side fetches',
  browser: 'Browser',
  content: 'Content',
  analyze: 'Analysis',
  jobs: 'Async jobs and webhooks',
  crawl: 'Crawls and batches',
  console: 'Console',
  upkeep: 'Upkeep',
} as const;

export type ConfigGroup = keyof typeof CONFIG_GROUPS;

/** What an integer counts; a variable's name ends in it (`_MS`, `_BYTES`...), checked by a test. */
export type ConfigUnit =
  | 'ms'
  | 'seconds'
  | 'minutes'
  | 'hours'
  | 'days'
  | 'bytes'
  | 'MB'
  | 'px'
  | 'characters'
  | 'tokens';

/**
 * The units a value may be converted to on its way into Config (`keyUnit`), with the size of each
 * variable's unit in them: an operator writes `JOB_RETENTION_SECONDS`, the code reads `retentionMs`.
 */
export const KEY_UNITS = {
  ms: { ms: 1, seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 },
  bytes: { bytes: 1, MB: 1_048_576 },
} as const;

/** A variable's unit and the Config unit it is converted to: only the pairs KEY_UNITS can convert. */
type UnitConversion = {
  [K in keyof typeof KEY_UNITS]: { readonly unit: keyof (typeof KEY_UNITS)[K]; readonly keyUnit: K };
}[keyof typeof KEY_UNITS];

interface VarDoc {
  readonly name: string;
  /**
   * Where the value lands in Config: a property (`port`), or a section's (`browser.concurrency`).
   * A key in a unit of its own ends in it (`Ms`, `Bytes`...), checked by a test.
   */
  readonly key: string;
  readonly group: ConfigGroup;
  /** The README's "meaning" cell (Markdown). */
  readonly description: string;
  /** The README's "default" cell when the default is not a plain value (derived, or machine-dependent). */
  readonly defaultText?: string;
}

/**
 * One variable: its parser (by type), its default, and its documentation. A null default means
 * unset: the variable turns something off, or config.ts derives the value (`defaultText` says how).
 */
export type ConfigVar =
  | (VarDoc & {
      readonly type: 'integer';
      readonly min: number;
      readonly max: number;
      readonly default: number | null;
    } & ({ readonly unit?: ConfigUnit; readonly keyUnit?: undefined } | UnitConversion))
  | (VarDoc & {
      readonly type: 'text';
      readonly default: string | null;
      /** What the whole value must match; without one, any text. */
      readonly pattern?: RegExp;
      /** Ends the message "NAME must be ...". */
      readonly expected?: string;
    })
  | (VarDoc & {
      readonly type: 'url';
      readonly protocols: readonly string[];
      readonly default: null;
      /** A base URL that paths are appended to: its trailing slashes are dropped. */
      readonly dropTrailingSlashes?: true;
    })
  | (VarDoc & { readonly type: 'boolean'; readonly default: boolean })
  | (VarDoc & {
      readonly type: 'choice';
      readonly choices: readonly string[];
      readonly default: string;
      readonly expected?: string;
    })
  | (VarDoc & {
      readonly type: 'custom';
      /** The value, or undefined when the text is not acceptable. */
      readonly parse: (raw: string) => unknown;
      readonly expected: string;
      readonly default: unknown;
    });

const TOKEN = /^\S{16,}$/;
const TOKEN_EXPECTED = 'at least 16 characters without spaces';

export const CONFIG_VARS = [
  // Service
  {
    name: 'HOST',
    key: 'host',
    group: 'service',
    type: 'text',
    default: '127.0.0.1',
    description: 'address to listen on',
  },
  {
    name: 'PORT',
    key: 'port',
    group: 'service',
    type: 'integer',
    min: 0,
    max: 65535,
    default: 8080,
    description: 'port `webcap serve` listens on (0: any free port)',
  },
  {
    name: 'WORKER_PORT',
    key: 'workerPort',
    group: 'service',
    type: 'integer',
    min: 0,
    max: 65535,
    default: 8081,
    description: "port of `webcap worker`'s `/healthz`, `/readyz` and `/metrics` (0: any free port)",
  },
  {
    name: 'SHUTDOWN_DRAIN_DELAY_MS',
    key: 'shutdownDrainDelayMs',
    group: 'service',
    type: 'integer',
    min: 0,
    max: 600_000,
    default: 0,
    unit: 'ms',
    description:
      'on SIGTERM, how long `/readyz` answers 503 while every request is still served, before the listener closes: long enough for a load balancer or Kubernetes to stop sending (e.g. `5000` behind one; docs/drain.md)',
  },
  {
    name: 'SHUTDOWN_GRACE_MS',
    key: 'shutdownGraceMs',
    group: 'service',
    type: 'integer',
    min: 0,
    max: 3_600_000,
    default: 30_000,
    unit: 'ms',
    description:
      "after the listener closed, how long calls in flight may take to finish; those still running then are ended unbilled. Kubernetes' `terminationGracePeriodSeconds` must exceed the drain delay plus this",
  },
  {
    name: 'LOG_LEVEL',
    key: 'logLevel',
    group: 'service',
    type: 'choice',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    expected: 'one of fatal, error, warn, info, debug, trace, silent',
    default: 'info',
    description: 'least severe log lines written (JSON lines on stdout)',
  },
  {
    name: 'HEAP_GROWING_PERCENT',
    key: 'heapGrowingPercent',
    group: 'service',
    type: 'integer',
    min: 0,
    max: 400,
    default: 50,
    description:
      'how far V8\'s old generation may grow past what the last full collection kept, in percent, for `webcap serve` and `webcap worker`; 0 leaves it to V8, which under render load keeps it near 10 % and collects every second or so (docs/performance.md, "The heap\'s growth")',
  },
  {
    name: 'PUBLIC_BASE_URL',
    key: 'publicBaseUrl',
    group: 'service',
    type: 'url',
    protocols: ['http:', 'https:'],
    dropTrailingSlashes: true,
    default: null,
    description: 'base URL for links the service hands out; unset derives it from each request',
  },
  {
    name: 'WEBCAP_ADMIN_TOKEN',
    key: 'adminToken',
    group: 'service',
    type: 'text',
    pattern: TOKEN,
    expected: TOKEN_EXPECTED,
    default: null,
    description: 'bearer token of the admin API `/admin/v1`; unset turns that API off',
  },
  {
    name: 'METRICS_TOKEN',
    key: 'metricsToken',
    group: 'service',
    type: 'text',
    pattern: TOKEN,
    expected: TOKEN_EXPECTED,
    default: null,
    description:
      'turns on `GET /metrics` (Prometheus text format) behind `Authorization: Bearer <token>`; unset, `/metrics` is 404 ([docs/stats.md](docs/stats.md))',
  },
  {
    name: 'WEBCAP_BOOTSTRAP_QUOTA',
    key: 'bootstrapQuota',
    group: 'service',
    type: 'integer',
    min: 0,
    max: 1_000_000_000,
    default: 1000,
    description: 'monthly quota of account `default`, created on first start',
  },
  {
    name: 'WEBCAP_BOOTSTRAP_KEY',
    key: 'bootstrapKey',
    group: 'service',
    type: 'text',
    pattern: /^[A-Za-z0-9_-]{16,128}$/,
    expected: '16 to 128 characters of A-Z a-z 0-9 _ -',
    default: null,
    description: 'use this key for account `default` instead of a random one',
  },

  // Receiving requests
  {
    name: 'BODY_LIMIT_BYTES',
    key: 'bodyLimitBytes',
    group: 'requests',
    type: 'integer',
    min: 1024,
    max: 104_857_600,
    default: 1_048_576,
    unit: 'bytes',
    description: 'largest request body; larger gets 413',
  },
  {
    name: 'REQUEST_TIMEOUT_MS',
    key: 'requestTimeoutMs',
    group: 'requests',
    type: 'integer',
    min: 1000,
    max: 600_000,
    default: 30_000,
    unit: 'ms',
    description:
      'longest time to receive a whole request, headers and body (not to answer it: a long capture is not cut); past it, `408` and the connection is closed',
  },
  {
    name: 'HEADERS_TIMEOUT_MS',
    key: 'headersTimeoutMs',
    group: 'requests',
    type: 'integer',
    min: 1000,
    max: 600_000,
    default: 10_000,
    unit: 'ms',
    description:
      "longest time to receive a request's headers, at most `REQUEST_TIMEOUT_MS`; past it, `408` and the connection is closed",
  },
  {
    name: 'MAX_CONNECTIONS_PER_CLIENT',
    key: 'maxConnectionsPerClient',
    group: 'requests',
    type: 'integer',
    min: 0,
    max: 1_000_000,
    default: 0,
    description:
      "open connections one client address may hold; a connection past it is closed unanswered; 0: no cap, what a service behind a reverse proxy needs (every connection has the proxy's address) ([docs/security.md](docs/security.md))",
  },
  {
    name: 'TRUST_PROXY',
    key: 'trustProxy',
    group: 'requests',
    type: 'custom',
    parse: parseTrustProxy,
    expected: 'a number of proxy hops (1-10), or a comma-separated list of proxy addresses and CIDR ranges',
    default: false as TrustProxy,
    defaultText: 'unset',
    description:
      "which proxies' `X-Forwarded-For` and `X-Forwarded-Proto` to believe: the hops in front of webcap (`1` behind one reverse proxy that every request passes) or their addresses (`10.0.0.0/8,fd00::/8`); unset believes none, and every client address is its connection's. A client's address counts in the console's sign-in lockout and the audit log, the protocol in the session cookie's `Secure` ([docs/security.md](docs/security.md))",
  },

  // Database and files
  {
    name: 'WEBCAP_DATA_DIR',
    key: 'dataDir',
    group: 'storage',
    type: 'text',
    default: './data',
    description: 'where the SQLite file (`webcap.sqlite`) and local blobs live',
  },
  {
    name: 'DATABASE_URL',
    key: 'database.url',
    group: 'storage',
    type: 'url',
    protocols: ['postgres:', 'postgresql:'],
    default: null,
    description: '`postgres://...` switches from the SQLite file to PostgreSQL',
  },
  {
    name: 'DATABASE_SCHEMA',
    key: 'database.schema',
    group: 'storage',
    type: 'text',
    pattern: /^[a-z_][a-z0-9_]{0,62}$/,
    expected: 'a lower-case SQL identifier',
    default: 'public',
    description: "PostgreSQL schema holding webcap's tables",
  },
  {
    name: 'DATABASE_CONNECT_TIMEOUT_MS',
    key: 'databaseConnectTimeoutMs',
    group: 'storage',
    type: 'integer',
    min: 100,
    max: 600_000,
    default: 5000,
    unit: 'ms',
    description:
      'PostgreSQL: longest wait for a connection (a new one, or a free one from the pool); past it, `503`',
  },
  {
    name: 'DATABASE_QUERY_TIMEOUT_MS',
    key: 'databaseQueryTimeoutMs',
    group: 'storage',
    type: 'integer',
    min: 100,
    max: 3_600_000,
    default: 10_000,
    unit: 'ms',
    description:
      'PostgreSQL: longest wait for the answer to one query (migrations excepted); past it, `503` and the connection is dropped',
  },
  {
    name: 'SQLITE_BUSY_TIMEOUT_MS',
    key: 'sqliteBusyTimeoutMs',
    group: 'storage',
    type: 'integer',
    min: 0,
    max: 600_000,
    default: 5000,
    unit: 'ms',
    description:
      'SQLite: longest wait of a statement for the write lock another process (`webcap admin`, a second server) holds, waited with timers off the event loop; past it, `503`',
  },
  {
    name: 'BLOB_S3_BUCKET',
    key: 'blobs.bucket',
    group: 'storage',
    type: 'text',
    // AWS's bucket naming rules; S3-compatible services follow them too.
    pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
    expected: 'an S3 bucket name (3 to 63 characters of a-z 0-9 . -)',
    default: null,
    description:
      'keep blobs (cache, hosted files) in this S3 bucket; unset keeps them in `WEBCAP_DATA_DIR/blobs`',
  },
  {
    name: 'BLOB_S3_ENDPOINT',
    key: 'blobs.endpoint',
    group: 'storage',
    type: 'url',
    protocols: ['http:', 'https:'],
    dropTrailingSlashes: true,
    default: null,
    description: 'URL of an S3-compatible service (MinIO, R2, ...), addressed path-style; unset means AWS',
  },
  {
    name: 'BLOB_S3_REGION',
    key: 'blobs.region',
    group: 'storage',
    type: 'text',
    pattern: /^[a-z0-9-]{1,32}$/,
    expected: 'a region name such as us-east-1',
    default: 'us-east-1',
    description: 'region of the bucket',
  },
  {
    name: 'BLOB_S3_ACCESS_KEY_ID',
    key: 'blobs.accessKeyId',
    group: 'storage',
    type: 'text',
    pattern: /^\S+$/,
    expected: 'a key id without spaces',
    default: null,
    description:
      "with `BLOB_S3_SECRET_ACCESS_KEY`; both unset use the AWS SDK's default credentials (instance role, `AWS_*`)",
  },
  {
    name: 'BLOB_S3_SECRET_ACCESS_KEY',
    key: 'blobs.secretAccessKey',
    group: 'storage',
    type: 'text',
    pattern: /^\S+$/,
    expected: 'a secret without spaces',
    default: null,
    description: 'see `BLOB_S3_ACCESS_KEY_ID`',
  },
  {
    name: 'BLOB_S3_PREFIX',
    key: 'blobs.prefix',
    group: 'storage',
    type: 'text',
    pattern: /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*\/?$/,
    expected: 'path segments of A-Z a-z 0-9 . _ - separated by / (no leading /)',
    default: '',
    description: 'key prefix inside the bucket, such as `webcap/`',
  },
  {
    name: 'BLOB_S3_TIMEOUT_MS',
    key: 'blobs.timeoutMs',
    group: 'storage',
    type: 'integer',
    min: 100,
    max: 600_000,
    default: 10_000,
    unit: 'ms',
    description:
      "deadline of each request to the bucket: connecting, sending, the answer's headers, and any pause while its body arrives",
  },
  {
    name: 'BLOB_S3_MAX_ATTEMPTS',
    key: 'blobs.maxAttempts',
    group: 'storage',
    type: 'integer',
    min: 1,
    max: 10,
    default: 2,
    description:
      'attempts per blob operation (timeouts, lost connections, 5xx and throttling are retried): a bucket that stalls fails a call that needs it with a 503 after about `BLOB_S3_TIMEOUT_MS` times this',
  },
  {
    name: 'BLOB_MEMORY_CACHE_MB',
    key: 'blobMemoryCacheBytes',
    group: 'storage',
    type: 'integer',
    min: 0,
    max: 65_536,
    default: 64,
    unit: 'MB',
    keyUnit: 'bytes',
    description:
      'recently read blobs kept in memory, so that a repeated cache hit reads no file and no bucket: with S3 cache entries and hosted files, with local files cache entries only (hosted files, mostly fetched once, would only churn the copies: [docs/performance.md](docs/performance.md), "Soak"); 0 keeps none',
  },
  {
    name: 'FILE_URL_TTL_SECONDS',
    key: 'fileUrlTtlSeconds',
    group: 'storage',
    type: 'integer',
    // A week at most: a link is a bearer credential, and S3's presigned URLs stop there too.
    min: 60,
    max: 604_800,
    default: 86_400,
    unit: 'seconds',
    description: 'how long a hosted `screenshot_url` stays valid',
  },
  {
    name: 'WEBCAP_SIGNING_SECRET',
    key: 'signingSecret',
    group: 'storage',
    type: 'text',
    pattern: /^\S{32,}$/,
    expected: 'at least 32 characters without spaces',
    default: null,
    description:
      "secret signing hosted file links and sealing async jobs' parameters; unset: one is generated once and kept in the database (set it in production: [docs/jobs.md](docs/jobs.md))",
  },
  {
    name: 'S3_UPLOAD_TIMEOUT_MS',
    key: 's3UploadTimeoutMs',
    group: 'storage',
    type: 'integer',
    min: 1000,
    max: 600_000,
    default: 30_000,
    unit: 'ms',
    description:
      "deadline of an upload to a caller's bucket (`s3_url=true`); past it the call is `400 Bad Request: s3 upload failed (storage endpoint did not answer within N ms)`, unbilled",
  },

  // Keys, caps and credits
  {
    name: 'REDIS_URL',
    key: 'redisUrl',
    group: 'billing',
    type: 'url',
    protocols: ['redis:', 'rediss:'],
    default: null,
    description:
      '`redis://...`: per-second/per-minute caps shared by every server process, and async jobs on BullMQ run by any `webcap serve`/`webcap worker`; unset keeps caps in memory and jobs in this process',
  },
  {
    name: 'REDIS_COMMAND_TIMEOUT_MS',
    key: 'redisCommandTimeoutMs',
    group: 'billing',
    type: 'integer',
    min: 10,
    max: 60_000,
    default: 1000,
    unit: 'ms',
    description:
      'longest wait for Redis to answer a command; past it, and at once while disconnected, the caps are counted in this process ([docs/billing.md](docs/billing.md))',
  },
  {
    name: 'RESERVATION_HOLD_MS',
    key: 'reservationHoldMs',
    group: 'billing',
    type: 'integer',
    min: 1000,
    max: 86_400_000,
    default: 600_000,
    unit: 'ms',
    description:
      "how long a reserved credit is held unless the process running its call renews it (every third of it): a dead process's reservations are released this long after its last renewal",
  },
  {
    name: 'KEY_CACHE_TTL_MS',
    key: 'keyCacheTtlMs',
    group: 'billing',
    type: 'integer',
    // Bounds how long another process's key or account change (the CLI's, say) takes to apply here.
    min: 0,
    max: 60_000,
    default: 1000,
    unit: 'ms',
    description:
      "how long a verified key's record is reused before it is read again (0: on every call); a change made by this process applies at once, one made elsewhere (the CLI, another server) within this time",
  },
  {
    name: 'REQUEST_LOG_RETENTION_DAYS',
    key: 'requestLogRetentionMs',
    group: 'billing',
    type: 'integer',
    min: 1,
    max: 3650,
    default: 30,
    unit: 'days',
    keyUnit: 'ms',
    description:
      'request-log rows older than this are deleted (every `REQUEST_LOG_PRUNE_INTERVAL_MS`); `GET /v1/stats` reads per-minute totals kept for two hours ([docs/stats.md](docs/stats.md))',
  },

  // Network guard and server-side fetches
  {
    name: 'WEBCAP_ALLOW_PRIVATE',
    key: 'allowPrivate',
    group: 'network',
    type: 'custom',
    parse: parseAllowList,
    expected:
      'a comma-separated list of cidr[:port], IPv6 in brackets (127.0.0.1/32:8081,10.0.0.0/8,[::1]/128:8080)',
    default: [] as readonly AllowRule[],
    defaultText: 'unset',
    description:
      'private destinations the network guard lets through, `cidr[:port],...` with IPv6 in brackets (`127.0.0.1/32:8081,10.0.0.0/8,[::1]/128:8080`); unset allows none ([docs/network-guard.md](docs/network-guard.md))',
  },
  {
    name: 'FETCH_MAX_BYTES',
    key: 'fetchMaxBytes',
    group: 'network',
    type: 'integer',
    min: 1024,
    max: 1_073_741_824,
    default: 10_485_760,
    unit: 'bytes',
    description:
      'largest body, after decoding, of a server-side fetch (crawler, sitemaps, robots.txt); larger is a 400',
  },
  {
    name: 'FETCH_HEADERS_TIMEOUT_MS',
    key: 'fetchHeadersTimeoutMs',
    group: 'network',
    type: 'integer',
    min: 100,
    max: 600_000,
    default: 15_000,
    unit: 'ms',
    description:
      'longest wait of a server-side fetch to connect and get response headers (per redirect hop), and between body chunks',
  },
  {
    name: 'FETCH_TIMEOUT_MS',
    key: 'fetchTimeoutMs',
    group: 'network',
    type: 'integer',
    min: 100,
    max: 600_000,
    default: 30_000,
    unit: 'ms',
    description: 'deadline of a whole server-side fetch, redirects and body included',
  },

  // Browser
  {
    name: 'CHROMIUM_PATH',
    key: 'browser.executablePath',
    group: 'browser',
    type: 'text',
    default: DEFAULT_CHROMIUM_PATH,
    description:
      "the browser to drive (Debian's `chromium-headless-shell`; `/usr/lib/chromium/chromium` runs the full browser's headless mode; never downloaded)",
  },
  {
    name: 'CHROMIUM_SANDBOX',
    key: 'browser.sandbox',
    group: 'browser',
    type: 'choice',
    choices: ['auto', 'on', 'off'],
    expected: 'one of auto, on, off',
    default: 'auto',
    description:
      "Chromium's sandbox, which needs user namespaces: `auto` keeps it unless the service runs as root (which cannot use it); `off` for a container whose seccomp profile refuses user namespaces (Docker's default), leaving the container as the only boundary around the pages (docs/deploy.md)",
  },
  {
    name: 'BROWSER_CONCURRENCY',
    key: 'browser.concurrency',
    group: 'browser',
    type: 'integer',
    min: 1,
    max: 64,
    default: 2,
    description: 'renders at once, each in a browser context of its own',
  },
  {
    name: 'MAX_QUEUE_DEPTH',
    key: 'browser.maxQueueDepth',
    group: 'browser',
    type: 'integer',
    min: 0,
    max: 10_000,
    default: 32,
    description: 'calls that may wait for a free render; past it, `503` with `Retry-After` (not billed)',
  },
  {
    name: 'RENDER_TIMEOUT_MS',
    key: 'browser.renderTimeoutMs',
    group: 'browser',
    type: 'integer',
    min: 1000,
    max: 600_000,
    default: 60_000,
    unit: 'ms',
    description: 'hard limit on one render; past it, `500 Internal Error: timeout ...` (not billed)',
  },
  {
    name: 'NAVIGATION_TIMEOUT_MS',
    key: 'browser.navigationTimeoutMs',
    group: 'browser',
    type: 'integer',
    min: 500,
    max: 600_000,
    default: 30_000,
    unit: 'ms',
    description:
      'limit on loading a page and on each wait for a selector; below `RENDER_TIMEOUT_MS`; a page whose document has arrived is then used as it is, with a warning ([docs/capture.md](docs/capture.md))',
  },
  {
    name: 'TEXT_SETTLE_MAX_MS',
    key: 'browser.textSettleMaxMs',
    group: 'browser',
    type: 'integer',
    min: 0,
    max: 60_000,
    default: 3000,
    unit: 'ms',
    description:
      'longest wait, after load, for the text of a page read for its text (content, analyze, extract, crawl) to stop changing and stop saying "Loading…"; 0 does not wait ([docs/content.md](docs/content.md))',
  },
  {
    name: 'BROWSER_RECYCLE_RENDERS',
    key: 'browser.recycleAfterRenders',
    group: 'browser',
    type: 'integer',
    min: 1,
    max: 1_000_000,
    default: 500,
    description: 'the browser is replaced after this many renders...',
  },
  {
    name: 'BROWSER_MAX_MEMORY_MB',
    key: 'browser.maxMemoryBytes',
    group: 'browser',
    type: 'integer',
    min: 128,
    max: 262_144,
    default: 2048,
    unit: 'MB',
    keyUnit: 'bytes',
    description: '...or when its processes use more memory than this',
  },
  {
    name: 'MAX_FULL_PAGE_HEIGHT_PX',
    key: 'browser.maxFullPageHeightPx',
    group: 'browser',
    type: 'integer',
    min: 1000,
    max: 100_000,
    default: 20_000,
    unit: 'px',
    description: 'full-page captures are cut at this height (CSS pixels)',
  },
  {
    name: 'FFMPEG_PATH',
    key: 'animation.ffmpegPath',
    group: 'browser',
    type: 'text',
    default: DEFAULT_FFMPEG_PATH,
    description:
      "Debian's `ffmpeg`, which encodes animated captures (`format=mp4`, `webm`, `gif`; [docs/capture.md](docs/capture.md))",
  },
  {
    name: 'ANIMATION_MAX_MB',
    key: 'animation.maxBytes',
    group: 'browser',
    type: 'integer',
    min: 1,
    max: 1024,
    default: 50,
    unit: 'MB',
    keyUnit: 'bytes',
    description: 'an animated capture larger than this is a `400` naming `duration` (not billed)',
  },
  {
    name: 'BROWSER_LAUNCH_BACKOFF_MS',
    key: 'browser.launchBackoffMs',
    group: 'browser',
    type: 'integer',
    min: 100,
    max: 600_000,
    default: 1000,
    unit: 'ms',
    description:
      'wait after a failed browser launch before the next attempt; calls meanwhile get `503` with `Retry-After` ([docs/capture.md](docs/capture.md))',
  },
  {
    name: 'BROWSER_LAUNCH_BACKOFF_MAX_MS',
    key: 'browser.launchBackoffMaxMs',
    group: 'browser',
    type: 'integer',
    min: 100,
    max: 3_600_000,
    default: 30_000,
    unit: 'ms',
    description: 'the wait doubles with each failure in a row, up to this',
  },
  {
    name: 'BROWSER_PREWARM',
    key: 'browser.prewarm',
    group: 'browser',
    type: 'boolean',
    default: true,
    description:
      '`webcap serve` launches the browser and loads the ad blocker at start; `false` waits for the first capture',
  },

  // Content
  {
    name: 'CONTENT_THREADS',
    key: 'content.threads',
    group: 'content',
    type: 'integer',
    min: 1,
    max: 64,
    // One extractor process per core, beside the event loop and the browser, up to 4.
    default: Math.max(1, Math.min(4, os.availableParallelism())),
    defaultText: 'cores, at most 4',
    description:
      'extractor processes (metadata, links, main content, Markdown) beside the event loop ([docs/content.md](docs/content.md))',
  },
  {
    name: 'CONTENT_MAX_QUEUE',
    key: 'content.maxQueue',
    group: 'content',
    type: 'integer',
    min: 0,
    max: 100_000,
    default: 100,
    description: 'extractions that may wait for an extractor; past it, `503` with `Retry-After` (not billed)',
  },
  {
    name: 'CONTENT_EXTRACT_TIMEOUT_MS',
    key: 'content.extractTimeoutMs',
    group: 'content',
    type: 'integer',
    min: 100,
    max: 600_000,
    default: 15_000,
    unit: 'ms',
    description: "longest one page's extraction may take; past it, `500 ... timeout` (not billed)",
  },
  {
    name: 'CONTENT_THREAD_HEAP_MB',
    key: 'content.threadHeapMb',
    group: 'content',
    type: 'integer',
    min: 64,
    max: 16_384,
    default: 512,
    unit: 'MB',
    description:
      'JavaScript heap of one extractor process; pages are parsed up to 8 KB of it per element (cut with a warning), and a page that needs more fails alone',
  },
  {
    name: 'CONTENT_MAX_HTML_CHARS',
    key: 'content.maxHtmlChars',
    group: 'content',
    type: 'integer',
    min: 10_000,
    max: 100_000_000,
    default: 5_000_000,
    unit: 'characters',
    description:
      "the rendered page's HTML is cut at this many characters before extraction (a warning says so)",
  },
  {
    name: 'CONTENT_MAX_LINKS',
    key: 'content.maxLinks',
    group: 'content',
    type: 'integer',
    min: 1,
    max: 1_000_000,
    default: 5000,
    description: 'links returned per page (internal, external and social together; a warning says when cut)',
  },
  {
    name: 'SITEMAP_MAX_FILES',
    key: 'content.sitemapMaxFiles',
    group: 'content',
    type: 'integer',
    min: 1,
    max: 10_000,
    default: 50,
    description: 'sitemap files fetched per call (indexes and nested ones included)',
  },
  {
    name: 'SITEMAP_MAX_LINKS',
    key: 'content.sitemapMaxLinks',
    group: 'content',
    type: 'integer',
    min: 1,
    max: 10_000_000,
    default: 50_000,
    description:
      'sitemap links returned; `totalLinks` counts them all (exactly up to 65,536 past this, an estimate beyond, said in a warning)',
  },
  {
    name: 'SITEMAP_MAX_FILE_BYTES',
    key: 'content.sitemapMaxFileBytes',
    group: 'content',
    type: 'integer',
    min: 1024,
    max: 1_073_741_824,
    default: 52_428_800,
    unit: 'bytes',
    description: "one sitemap file's size after decompression",
  },
  {
    name: 'SITEMAP_TIMEOUT_MS',
    key: 'content.sitemapTimeoutMs',
    group: 'content',
    type: 'integer',
    min: 100,
    max: 600_000,
    default: 20_000,
    unit: 'ms',
    description: 'deadline of the sitemap discovery; what was found by then is returned, with a warning',
  },

  // Analysis
  {
    name: 'ANALYZER',
    key: 'analyzer.kind',
    group: 'analyze',
    type: 'choice',
    choices: ['extractive', 'openai'],
    default: 'extractive',
    description:
      'who answers `/v1/analyze`: `extractive` (built in, offline, deterministic) or `openai` (any OpenAI-compatible endpoint; [docs/analyze.md](docs/analyze.md))',
  },
  {
    name: 'ANALYZE_OPENAI_BASE_URL',
    key: 'analyzer.baseUrl',
    group: 'analyze',
    type: 'url',
    protocols: ['http:', 'https:'],
    dropTrailingSlashes: true,
    default: null,
    description:
      "with `ANALYZER=openai`: the API's base URL up to `/v1` (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` for Ollama, ...); trusted configuration, not checked by the network guard",
  },
  {
    name: 'ANALYZE_OPENAI_MODEL',
    key: 'analyzer.model',
    group: 'analyze',
    type: 'text',
    pattern: /^\S{1,200}$/,
    expected: 'a model name without spaces',
    default: null,
    description: 'with `ANALYZER=openai`: the model name (`gpt-4o-mini`, `llama3.1:8b`, ...)',
  },
  {
    name: 'ANALYZE_OPENAI_API_KEY',
    key: 'analyzer.apiKey',
    group: 'analyze',
    type: 'text',
    pattern: /^\S+$/,
    expected: 'a key without spaces',
    default: null,
    description: 'sent as `Authorization: Bearer`; unset sends none (local servers)',
  },
  {
    name: 'ANALYZE_OPENAI_OUTPUT',
    key: 'analyzer.output',
    group: 'analyze',
    type: 'choice',
    choices: ['json_schema', 'json_object', 'prompt'],
    default: 'json_schema',
    description:
      "how the answer's format is asked for: `json_schema` (structured output), `json_object` (JSON mode, schema in the prompt) or `prompt` (schema in the prompt only)",
  },
  {
    name: 'ANALYZE_OPENAI_TIMEOUT_MS',
    key: 'analyzer.timeoutMs',
    group: 'analyze',
    type: 'integer',
    min: 1000,
    max: 600_000,
    default: 90_000,
    unit: 'ms',
    description:
      'deadline of one analysis by the model, retries and the repair round included; past it, `500 ... timeout` (not billed)',
  },
  {
    name: 'ANALYZE_OPENAI_RETRIES',
    key: 'analyzer.retries',
    group: 'analyze',
    type: 'integer',
    min: 0,
    max: 10,
    default: 2,
    description: 'further attempts after a 5xx or a network error (never after a 4xx), with backoff',
  },
  {
    name: 'ANALYZE_MAX_INPUT_TOKENS',
    key: 'analyzer.maxInputTokens',
    group: 'analyze',
    type: 'integer',
    min: 100,
    max: 1_000_000,
    default: 6000,
    unit: 'tokens',
    description:
      "the page's share of the prompt, counted at 4 characters a token; the main content is cut at a paragraph to fit",
  },
  {
    name: 'ANALYZE_MAX_OUTPUT_TOKENS',
    key: 'analyzer.maxOutputTokens',
    group: 'analyze',
    type: 'integer',
    min: 100,
    max: 100_000,
    default: 1500,
    unit: 'tokens',
    description: "the answer's limit, sent as `max_tokens`...",
  },
  {
    name: 'ANALYZE_OPENAI_MAX_TOKENS_PARAM',
    key: 'analyzer.maxTokensParam',
    group: 'analyze',
    type: 'choice',
    choices: ['max_tokens', 'max_completion_tokens'],
    default: 'max_tokens',
    description: '...or as `max_completion_tokens` (newer OpenAI models take only that)',
  },
  {
    name: 'ANALYZE_OPENAI_TEMPERATURE',
    key: 'analyzer.temperature',
    group: 'analyze',
    type: 'custom',
    parse: (raw: string): number | null | undefined => {
      if (raw === 'default') return null;
      const n = Number(raw);
      return /^\d+(\.\d+)?$/.test(raw) && n >= 0 && n <= 2 ? n : undefined;
    },
    expected: 'a number from 0 to 2, or "default" to send none',
    default: 0 as number | null,
    description: 'sampling temperature; `default` sends none (some reasoning models accept no other)',
  },

  // Async jobs and webhooks
  {
    name: 'JOB_CONCURRENCY',
    key: 'jobs.concurrency',
    group: 'jobs',
    type: 'integer',
    min: 0,
    max: 256,
    default: 2,
    description:
      'async jobs this process runs at once; `0` (only with `REDIS_URL`) only submits ([docs/jobs.md](docs/jobs.md))',
  },
  {
    name: 'JOB_MAX_QUEUED',
    key: 'jobs.maxQueued',
    group: 'jobs',
    type: 'integer',
    min: 1,
    max: 1_000_000,
    default: 1000,
    description: 'queued jobs at most, across processes; past it a submission is a `503`, nothing reserved',
  },
  {
    name: 'JOB_QUEUE_TIMEOUT_MS',
    key: 'jobs.queueTimeoutMs',
    group: 'jobs',
    type: 'integer',
    min: 1000,
    max: 86_400_000,
    default: 3_600_000,
    unit: 'ms',
    description: 'longest wait in the queue; past it the job fails, unbilled',
  },
  {
    name: 'JOB_TIMEOUT_MS',
    key: 'jobs.timeoutMs',
    group: 'jobs',
    type: 'integer',
    min: 1000,
    max: 3_600_000,
    default: 120_000,
    unit: 'ms',
    description: 'longest run of one job; past it the job fails, unbilled',
  },
  {
    name: 'JOB_LEASE_MS',
    key: 'jobs.leaseMs',
    group: 'jobs',
    type: 'integer',
    min: 1000,
    max: 600_000,
    default: 30_000,
    unit: 'ms',
    description:
      "a running job's claim, renewed every third of it; a dead worker's job is taken over after it",
  },
  {
    name: 'JOB_MAX_ATTEMPTS',
    key: 'jobs.maxAttempts',
    group: 'jobs',
    type: 'integer',
    min: 1,
    max: 10,
    default: 2,
    description: 'runs of one job at most (a worker dying mid-job starts another)',
  },
  {
    name: 'JOB_RETENTION_SECONDS',
    key: 'jobs.retentionMs',
    group: 'jobs',
    type: 'integer',
    min: 60,
    max: 2_592_000,
    default: 86_400,
    unit: 'seconds',
    keyUnit: 'ms',
    description: "how long a finished job's record and result can be polled",
  },
  {
    name: 'JOB_QUEUE_NAME',
    key: 'jobs.queueName',
    group: 'jobs',
    type: 'text',
    pattern: /^[A-Za-z0-9_-]{1,64}$/,
    expected: '1 to 64 of A-Z a-z 0-9 _ -',
    default: 'webcap-jobs',
    description: "BullMQ's queue name: processes sharing one Redis and database use the same",
  },
  {
    name: 'JOB_SHUTDOWN_GRACE_MS',
    key: 'jobs.shutdownGraceMs',
    group: 'jobs',
    type: 'integer',
    min: 0,
    max: 3_600_000,
    default: 10_000,
    unit: 'ms',
    description:
      'on SIGTERM, how long a process waits for its running jobs; those still running then are handed back to the queue, their unit still held (BullMQ: another worker runs them at once; in-process: the next start), billed once by the run that completes them',
  },
  {
    name: 'WEBHOOK_TIMEOUT_MS',
    key: 'jobs.webhookTimeoutMs',
    group: 'jobs',
    type: 'integer',
    min: 100,
    max: 120_000,
    default: 10_000,
    unit: 'ms',
    description: 'deadline of one webhook delivery',
  },
  {
    name: 'WEBHOOK_RETRY_WINDOW_MS',
    key: 'jobs.webhookRetryWindowMs',
    group: 'jobs',
    type: 'integer',
    min: 0,
    max: 86_400_000,
    default: 3_600_000,
    unit: 'ms',
    description: 'failed deliveries are retried, with backoff, until this long after the job ended',
  },
  {
    name: 'WEBHOOK_BACKOFF_MS',
    key: 'jobs.webhookBackoffMs',
    group: 'jobs',
    type: 'integer',
    min: 10,
    max: 600_000,
    default: 1000,
    unit: 'ms',
    description:
      'first retry delay of a webhook, doubling with each next one; due deliveries are looked for every half of it (100 ms to 5 s)',
  },

  // Console (docs/console.md)
  {
    name: 'CONSOLE_SESSION_IDLE_MINUTES',
    key: 'console.sessionIdleMs',
    group: 'console',
    type: 'integer',
    min: 5,
    max: 43_200,
    default: 720,
    unit: 'minutes',
    keyUnit: 'ms',
    description:
      'a console session ends after this long without use ([docs/console.md](docs/console.md)); its last use is recorded at most once a minute',
  },
  {
    name: 'CONSOLE_SESSION_MAX_HOURS',
    key: 'console.sessionMaxMs',
    group: 'console',
    type: 'integer',
    min: 1,
    max: 8760,
    default: 168,
    unit: 'hours',
    keyUnit: 'ms',
    description: 'a console session ends this long after sign-in, however much it is used',
  },
  {
    name: 'CONSOLE_SIGN_IN_FAILURE_AUDIT_DAYS',
    key: 'console.signInFailureAuditMs',
    group: 'console',
    type: 'integer',
    min: 1,
    max: 3650,
    default: 90,
    unit: 'days',
    keyUnit: 'ms',
    description:
      'audit rows of failed sign-ins and of the locks they started (`session.sign_in_failed`, `session.sign_in_locked`) older than this are deleted (every `REQUEST_LOG_PRUNE_INTERVAL_MS`): anyone can add them without an account; every other audit row is kept',
  },

  // Upkeep: periodic work in every `webcap serve` and `webcap worker`.
  {
    name: 'RESERVATION_SWEEP_INTERVAL_MS',
    key: 'reservationSweepIntervalMs',
    group: 'upkeep',
    type: 'integer',
    min: 100,
    max: 3_600_000,
    default: 30_000,
    unit: 'ms',
    description:
      'how often reservations past their hold are released (or every `RESERVATION_HOLD_MS`, when shorter)',
  },
  // Crawls and batches
  {
    name: 'CRAWL_MAX_PAGES',
    key: 'crawl.maxPages',
    group: 'crawl',
    type: 'integer',
    min: 1,
    max: 1_000_000,
    default: 10_000,
    description:
      'pages one crawl may fetch at most: the ceiling of its `limit` ([docs/crawl.md](docs/crawl.md))',
  },
  {
    name: 'CRAWL_MAX_CONCURRENCY',
    key: 'crawl.maxConcurrency',
    group: 'crawl',
    type: 'integer',
    min: 1,
    max: 256,
    default: 10,
    description: 'pages of one crawl running at once, across workers: the ceiling of its `max_concurrency`',
  },
  {
    name: 'JOB_SWEEP_INTERVAL_MS',
    key: 'jobs.sweepIntervalMs',
    group: 'upkeep',
    type: 'integer',
    min: 100,
    max: 3_600_000,
    default: 30_000,
    unit: 'ms',
    description:
      'how often queued jobs are checked for expiry, runs for lapsed leases, and finished jobs for retention (or every `JOB_LEASE_MS`, when shorter)',
  },
  {
    name: 'BLOB_SWEEP_INTERVAL_MS',
    key: 'blobSweepIntervalMs',
    group: 'upkeep',
    type: 'integer',
    min: 1000,
    max: 86_400_000,
    default: 600_000,
    unit: 'ms',
    description: 'how often expired blobs (cache entries, hosted files, job results) are deleted',
  },
  {
    name: 'REQUEST_LOG_PRUNE_INTERVAL_MS',
    key: 'requestLogPruneIntervalMs',
    group: 'upkeep',
    type: 'integer',
    min: 1000,
    max: 86_400_000,
    default: 600_000,
    unit: 'ms',
    description:
      "how often request-log rows past their retention, and stats' minute totals past two hours, are deleted",
  },
  {
    name: 'REQUEST_LOG_FLUSH_INTERVAL_MS',
    key: 'requestLogFlushIntervalMs',
    group: 'upkeep',
    type: 'integer',
    min: 10,
    max: 60_000,
    default: 500,
    unit: 'ms',
    description:
      'how often the request log buffered in memory is written (and at once on 500 rows); a process killed outright loses at most this much of it',
  },
] as const satisfies readonly ConfigVar[];

type AnyConfigVar = (typeof CONFIG_VARS)[number];

/** The value a variable parses to (or defaults to). */
type ValueOf<V> = V extends { type: 'integer'; default: infer D }
  ? D extends null
    ? number | null
    : number
  : V extends { type: 'text'; default: infer D }
    ? D extends null
      ? string | null
      : string
    : V extends { type: 'url' }
      ? string | null
      : V extends { type: 'boolean' }
        ? boolean
        : V extends { type: 'choice'; choices: readonly (infer C)[] }
          ? C
          : V extends { type: 'custom'; parse: (raw: string) => infer R; default: infer D }
            ? Exclude<R, undefined> | D
            : never;

type SectionOf<Key> = Key extends `${infer Section}.${string}` ? Section : never;

/**
 * Every variable's value at its key: the properties, then one object per section. config.ts
 * reshapes a few of these (the database, blobs and analyzer sections become unions) into Config.
 */
export type TableConfig = {
  readonly [V in AnyConfigVar as V['key'] extends `${string}.${string}` ? never : V['key']]: ValueOf<V>;
} & {
  readonly [Section in SectionOf<AnyConfigVar['key']>]: {
    readonly [V in AnyConfigVar as V['key'] extends `${Section}.${infer Field}` ? Field : never]: ValueOf<V>;
  };
};
