import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { withConfigDocs } from './config-docs.js';
import { CONFIG_VARS, type ConfigVar } from './config-vars.js';

describe('loadConfig', () => {
  it('has embedded defaults: SQLite under ./data, 127.0.0.1:8080, admin API off', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: path.resolve('data'),
      database: { kind: 'sqlite', file: path.resolve('data/webcap.sqlite') },
      adminToken: null,
      bootstrapQuota: 1000,
      bootstrapKey: null,
      logLevel: 'info',
      bodyLimitBytes: 1_048_576,
      publicBaseUrl: null,
      allowPrivate: [],
      fetchMaxBytes: 10_485_760,
      fetchHeadersTimeoutMs: 15_000,
      fetchTimeoutMs: 30_000,
      keyCacheTtlMs: 1000,
      blobMemoryCacheBytes: 64 * 1_048_576,
      databaseConnectTimeoutMs: 5000,
      databaseQueryTimeoutMs: 10_000,
      sqliteBusyTimeoutMs: 5000,
      redisCommandTimeoutMs: 1000,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(loadConfig({ SQLITE_BUSY_TIMEOUT_MS: '0' }).sqliteBusyTimeoutMs).toBe(0);
    expect(() => loadConfig({ SQLITE_BUSY_TIMEOUT_MS: '600001' })).toThrow(/SQLITE_BUSY_TIMEOUT_MS/);
    expect(loadConfig({ KEY_CACHE_TTL_MS: '0' }).keyCacheTtlMs).toBe(0);
  });

  it('reads the analyzer: extractive by default, openai with its endpoint and model', () => {
    expect(loadConfig({}).analyzer).toEqual({ kind: 'extractive' });
    expect(
      loadConfig({
        ANALYZER: 'openai',
        ANALYZE_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1/',
        ANALYZE_OPENAI_MODEL: 'llama3.1:8b',
      }).analyzer,
    ).toEqual({
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: null,
      model: 'llama3.1:8b',
      output: 'json_schema',
      timeoutMs: 90_000,
      retries: 2,
      maxInputTokens: 6000,
      maxOutputTokens: 1500,
      temperature: 0,
      maxTokensParam: 'max_tokens',
    });
    const openai = {
      ANALYZER: 'openai',
      ANALYZE_OPENAI_BASE_URL: 'https://api.openai.com/v1',
      ANALYZE_OPENAI_MODEL: 'm',
    };
    expect(loadConfig({ ...openai, ANALYZE_OPENAI_TEMPERATURE: 'default' }).analyzer).toMatchObject({
      temperature: null,
    });
    expect(() => loadConfig({ ANALYZER: 'openai', ANALYZE_OPENAI_MODEL: 'm' })).toThrow(
      /ANALYZE_OPENAI_BASE_URL must be set when ANALYZER=openai/,
    );
    expect(() => loadConfig({ ...openai, ANALYZE_OPENAI_MODEL: '' })).toThrow(/ANALYZE_OPENAI_MODEL/);
    expect(() => loadConfig({ ANALYZER: 'llama' })).toThrow(/ANALYZER must be extractive or openai/);
    expect(() => loadConfig({ ANALYZE_OPENAI_BASE_URL: 'file:///etc/passwd' })).toThrow(ConfigError);
    expect(() => loadConfig({ ANALYZE_OPENAI_TEMPERATURE: '3' })).toThrow(/ANALYZE_OPENAI_TEMPERATURE/);
    expect(() => loadConfig({ ANALYZE_OPENAI_OUTPUT: 'xml' })).toThrow(/ANALYZE_OPENAI_OUTPUT/);
  });

  it('switches to PostgreSQL with DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/webcap', DATABASE_SCHEMA: 'tenant_a' });
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@db:5432/webcap',
      schema: 'tenant_a',
    });
  });

  it('reads the network guard settings', () => {
    const config = loadConfig({
      WEBCAP_ALLOW_PRIVATE: '127.0.0.1/32:8081, 10.0.0.0/8,[::1]/128:8080',
      FETCH_MAX_BYTES: '2048',
      FETCH_HEADERS_TIMEOUT_MS: '500',
      FETCH_TIMEOUT_MS: '1500',
    });
    expect(config.allowPrivate.map((rule) => rule.port)).toEqual([8081, null, 8080]);
    expect(config).toMatchObject({ fetchMaxBytes: 2048, fetchHeadersTimeoutMs: 500, fetchTimeoutMs: 1500 });
  });

  it('reads the deadlines for receiving a request and the per-client connection cap (off by default)', () => {
    expect(loadConfig({})).toMatchObject({
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      maxConnectionsPerClient: 0,
    });
    expect(
      loadConfig({
        REQUEST_TIMEOUT_MS: '5000',
        HEADERS_TIMEOUT_MS: '2000',
        MAX_CONNECTIONS_PER_CLIENT: '64',
      }),
    ).toMatchObject({ requestTimeoutMs: 5000, headersTimeoutMs: 2000, maxConnectionsPerClient: 64 });
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' })).toThrow(
      'HEADERS_TIMEOUT_MS must be at most REQUEST_TIMEOUT_MS (5000) (got "6000")',
    );
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '3600000' })).toThrow(ConfigError);
  });

  it('reads the browser settings, with defaults that keep a small machine responsive', () => {
    expect(loadConfig({}).browser).toEqual({
      executablePath: '/usr/lib/chromium/chromium-headless-shell',
      sandbox: 'auto',
      concurrency: 2,
      maxQueueDepth: 32,
      renderTimeoutMs: 60_000,
      navigationTimeoutMs: 30_000,
      textSettleMaxMs: 3000,
      recycleAfterRenders: 500,
      maxMemoryBytes: 2048 * 1024 * 1024,
      maxFullPageHeightPx: 20_000,
      prewarm: true,
      launchBackoffMs: 1000,
      launchBackoffMaxMs: 30_000,
    });
    const tuned = loadConfig({
      BROWSER_CONCURRENCY: '4',
      BROWSER_MAX_MEMORY_MB: '512',
      BROWSER_PREWARM: 'false',
    });
    expect(tuned.browser).toMatchObject({
      concurrency: 4,
      maxMemoryBytes: 512 * 1024 * 1024,
      prewarm: false,
    });
    expect(() => loadConfig({ RENDER_TIMEOUT_MS: '5000', NAVIGATION_TIMEOUT_MS: '5000' })).toThrow(
      'NAVIGATION_TIMEOUT_MS must be below RENDER_TIMEOUT_MS (5000) (got "5000")',
    );
    expect(
      loadConfig({ BROWSER_LAUNCH_BACKOFF_MS: '500', BROWSER_LAUNCH_BACKOFF_MAX_MS: '4000' }).browser,
    ).toMatchObject({ launchBackoffMs: 500, launchBackoffMaxMs: 4000 });
    expect(() =>
      loadConfig({ BROWSER_LAUNCH_BACKOFF_MS: '5000', BROWSER_LAUNCH_BACKOFF_MAX_MS: '4000' }),
    ).toThrow('BROWSER_LAUNCH_BACKOFF_MAX_MS must be at least BROWSER_LAUNCH_BACKOFF_MS (5000) (got "4000")');
  });
  it('takes the sandbox as auto, on or off, and refuses anything else naming CHROMIUM_SANDBOX', () => {
    expect(loadConfig({ CHROMIUM_SANDBOX: 'off' }).browser.sandbox).toBe('off');
    expect(loadConfig({ CHROMIUM_SANDBOX: 'on' }).browser.sandbox).toBe('on');
    expect(() => loadConfig({ CHROMIUM_SANDBOX: 'no' })).toThrow(/CHROMIUM_SANDBOX/);
  });

  it('reads the async job settings: jobs run in this process by default', () => {
    expect(loadConfig({}).jobs).toEqual({
      concurrency: 2,
      maxQueued: 1000,
      queueTimeoutMs: 3_600_000,
      timeoutMs: 120_000,
      leaseMs: 30_000,
      maxAttempts: 2,
      retentionMs: 86_400_000,
      webhookTimeoutMs: 10_000,
      webhookRetryWindowMs: 3_600_000,
      webhookBackoffMs: 1000,
      queueName: 'webcap-jobs',
      shutdownGraceMs: 10_000,
      sweepIntervalMs: 30_000,
    });
    // Only an API process in front of BullMQ workers may run no jobs itself.
    expect(() => loadConfig({ JOB_CONCURRENCY: '0' })).toThrow(
      'JOB_CONCURRENCY must be at least 1 without REDIS_URL (nothing else would run jobs) (got "0")',
    );
    expect(loadConfig({ JOB_CONCURRENCY: '0', REDIS_URL: 'redis://127.0.0.1:6379' }).jobs.concurrency).toBe(
      0,
    );
    expect(() => loadConfig({ JOB_QUEUE_NAME: 'a:b' })).toThrow(ConfigError);
    expect(() => loadConfig({ JOB_RETENTION_SECONDS: '10' })).toThrow(ConfigError);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', WEBCAP_ADMIN_TOKEN: '' })).toMatchObject({ port: 8080, adminToken: null });
  });

  it.each([
    ['PORT', '80x', 'PORT must be an integer from 0 to 65535 (got "80x")'],
    ['PORT', '70000', 'PORT must be an integer from 0 to 65535 (got "70000")'],
    [
      'LOG_LEVEL',
      'loud',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ],
    [
      'DATABASE_URL',
      'mysql://x',
      'DATABASE_URL must be a URL with scheme postgres: or postgresql: (got "mysql://x")',
    ],
    [
      'DATABASE_SCHEMA',
      'Robert; drop',
      'DATABASE_SCHEMA must be a lower-case SQL identifier (got "Robert; drop")',
    ],
    [
      'WEBCAP_ADMIN_TOKEN',
      'short',
      'WEBCAP_ADMIN_TOKEN must be at least 16 characters without spaces (got "short")',
    ],
    [
      'WEBCAP_BOOTSTRAP_QUOTA',
      '-1',
      'WEBCAP_BOOTSTRAP_QUOTA must be an integer from 0 to 1000000000 (got "-1")',
    ],
    [
      'PUBLIC_BASE_URL',
      'ftp://x',
      'PUBLIC_BASE_URL must be a URL with scheme http: or https: (got "ftp://x")',
    ],
    [
      'WEBCAP_ALLOW_PRIVATE',
      '127.0.0.1:8081,localhost',
      'WEBCAP_ALLOW_PRIVATE must be a comma-separated list of cidr[:port], IPv6 in brackets (127.0.0.1/32:8081,10.0.0.0/8,[::1]/128:8080) (got "127.0.0.1:8081,localhost")',
    ],
    ['FETCH_MAX_BYTES', '10MB', 'FETCH_MAX_BYTES must be an integer from 1024 to 1073741824 (got "10MB")'],
  ])('refuses %s=%s naming the variable', (variable, value, message) => {
    const attempt = () => loadConfig({ [variable]: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
  });
});

describe('loadConfig: blobs and hosted files', () => {
  it('keeps blobs under <data dir>/blobs, links valid a day, and the signing secret in the database by default', () => {
    const config = loadConfig({ WEBCAP_DATA_DIR: '/srv/webcap' });
    expect(config.blobs).toEqual({ kind: 'fs', dir: '/srv/webcap/blobs' });
    expect(config.fileUrlTtlSeconds).toBe(86_400);
    expect(config.signingSecret).toBeNull();
    expect(config.s3UploadTimeoutMs).toBe(30_000);
  });

  it('switches blobs to S3 with BLOB_S3_BUCKET', () => {
    const config = loadConfig({
      BLOB_S3_BUCKET: 'webcap-blobs',
      BLOB_S3_ENDPOINT: 'http://127.0.0.1:9000/',
      BLOB_S3_REGION: 'eu-west-3',
      BLOB_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      BLOB_S3_SECRET_ACCESS_KEY: 'secret',
      BLOB_S3_PREFIX: 'prod/webcap',
      BLOB_S3_TIMEOUT_MS: '3000',
      BLOB_S3_MAX_ATTEMPTS: '4',
      FILE_URL_TTL_SECONDS: '3600',
      WEBCAP_SIGNING_SECRET: 's'.repeat(32),
    });
    expect(config.blobs).toEqual({
      kind: 's3',
      bucket: 'webcap-blobs',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-3',
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' },
      prefix: 'prod/webcap/',
      timeoutMs: 3000,
      maxAttempts: 4,
    });
    expect(config.fileUrlTtlSeconds).toBe(3600);
    expect(config.signingSecret).toBe('s'.repeat(32));
    // A bucket's round trip is worth a copy in memory; local files are in the page cache already.
    expect(config.blobMemoryCacheBytes).toBe(64 * 1_048_576);
    expect(loadConfig({ BLOB_MEMORY_CACHE_MB: '8' }).blobMemoryCacheBytes).toBe(8 * 1_048_576);
  });

  it('leaves S3 credentials to the SDK default chain when none are set, on AWS itself without an endpoint', () => {
    expect(loadConfig({ BLOB_S3_BUCKET: 'webcap-blobs' }).blobs).toEqual({
      kind: 's3',
      bucket: 'webcap-blobs',
      endpoint: null,
      region: 'us-east-1',
      credentials: null,
      prefix: '',
      timeoutMs: 10_000,
      maxAttempts: 2,
    });
  });

  it.each([
    ['BLOB_S3_BUCKET', 'Bad_Bucket', 'BLOB_S3_BUCKET must be an S3 bucket name'],
    ['BLOB_S3_ENDPOINT', 'ftp://x', 'BLOB_S3_ENDPOINT must be a URL with scheme http: or https:'],
    ['BLOB_S3_REGION', 'EU West', 'BLOB_S3_REGION must be a region name such as us-east-1'],
    ['BLOB_S3_PREFIX', '/abs', 'BLOB_S3_PREFIX must be path segments'],
    ['BLOB_S3_PREFIX', 'a/../b', 'BLOB_S3_PREFIX must be path segments'],
    [
      'BLOB_S3_ACCESS_KEY_ID',
      'AKIA',
      'BLOB_S3_SECRET_ACCESS_KEY must be set together with BLOB_S3_ACCESS_KEY_ID',
    ],
    [
      'BLOB_S3_SECRET_ACCESS_KEY',
      's',
      'BLOB_S3_ACCESS_KEY_ID must be set together with BLOB_S3_SECRET_ACCESS_KEY',
    ],
    ['FILE_URL_TTL_SECONDS', '59', 'FILE_URL_TTL_SECONDS must be an integer from 60 to 604800'],
    ['FILE_URL_TTL_SECONDS', '604801', 'FILE_URL_TTL_SECONDS must be an integer from 60 to 604800'],
    ['S3_UPLOAD_TIMEOUT_MS', '999', 'S3_UPLOAD_TIMEOUT_MS must be an integer from 1000 to 600000'],
    ['BLOB_S3_TIMEOUT_MS', '99', 'BLOB_S3_TIMEOUT_MS must be an integer from 100 to 600000'],
    ['BLOB_S3_MAX_ATTEMPTS', '0', 'BLOB_S3_MAX_ATTEMPTS must be an integer from 1 to 10'],
    ['BLOB_S3_MAX_ATTEMPTS', '11', 'BLOB_S3_MAX_ATTEMPTS must be an integer from 1 to 10'],
    [
      'WEBCAP_SIGNING_SECRET',
      'too-short',
      'WEBCAP_SIGNING_SECRET must be at least 32 characters without spaces',
    ],
    [
      'WEBCAP_ALLOW_PRIVATE',
      '127.0.0.1:8081,localhost',
      'WEBCAP_ALLOW_PRIVATE must be a comma-separated list of cidr[:port], IPv6 in brackets (127.0.0.1/32:8081,10.0.0.0/8,[::1]/128:8080) (got "127.0.0.1:8081,localhost")',
    ],
    ['FETCH_MAX_BYTES', '10MB', 'FETCH_MAX_BYTES must be an integer from 1024 to 1073741824 (got "10MB")'],
  ])('refuses %s=%s naming the variable', (variable, value, message) => {
    const attempt = () => loadConfig({ [variable]: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
  });
});

describe('the configuration table', () => {
  const variables: readonly ConfigVar[] = CONFIG_VARS;

  it('is what the README documents (npm run docs:config regenerates it)', () => {
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toBe(withConfigDocs(readme));
  });

  it('names each variable once, and each unit in the name', () => {
    const names = variables.map((variable) => variable.name);
    expect(new Set(names).size).toBe(names.length);
    const suffixes = {
      ms: '_MS',
      seconds: '_SECONDS',
      minutes: '_MINUTES',
      hours: '_HOURS',
      days: '_DAYS',
      bytes: '_BYTES',
      MB: '_MB',
      px: '_PX',
    };
    for (const variable of variables) {
      const unit = variable.type === 'integer' ? variable.unit : undefined;
      for (const [name, suffix] of Object.entries(suffixes)) {
        expect(variable.name.endsWith(suffix), variable.name).toBe(unit === name);
      }
    }
  });

  it('places each variable at a key of its own, which ends in the unit of its value', () => {
    const keys = variables.map((variable) => variable.key);
    expect(new Set(keys).size).toBe(keys.length);
    const suffixes = {
      ms: 'Ms',
      seconds: 'Seconds',
      minutes: 'Minutes',
      hours: 'Hours',
      days: 'Days',
      bytes: 'Bytes',
      MB: 'Mb',
      px: 'Px',
      characters: 'Chars',
      tokens: 'Tokens',
    };
    for (const variable of variables) {
      const unit = variable.type === 'integer' ? (variable.keyUnit ?? variable.unit) : undefined;
      for (const [name, suffix] of Object.entries(suffixes)) {
        expect(variable.key.endsWith(suffix), variable.key).toBe(unit === name);
      }
    }
    // A variable in other units arrives converted: seconds to milliseconds, megabytes to bytes.
    expect(loadConfig({ JOB_RETENTION_SECONDS: '90' }).jobs.retentionMs).toBe(90_000);
    expect(
      loadConfig({
        CONSOLE_SESSION_IDLE_MINUTES: '5',
        CONSOLE_SESSION_MAX_HOURS: '2',
        CONSOLE_SIGN_IN_FAILURE_AUDIT_DAYS: '3',
      }).console,
    ).toEqual({
      sessionIdleMs: 300_000,
      sessionMaxMs: 7_200_000,
      signInFailureAuditMs: 259_200_000,
    });
    expect(loadConfig({ REQUEST_LOG_RETENTION_DAYS: '2' }).requestLogRetentionMs).toBe(172_800_000);
  });

  it('has defaults each variable accepts when set to them', () => {
    for (const variable of variables) {
      const value = variable.default;
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
      if (value === '') continue;
      expect(() => loadConfig({ [variable.name]: String(value) }), variable.name).not.toThrow();
    }
  });

  it('reads the upkeep intervals, with the periods the service always had', () => {
    expect(loadConfig({})).toMatchObject({
      reservationSweepIntervalMs: 30_000,
      blobSweepIntervalMs: 600_000,
      requestLogPruneIntervalMs: 600_000,
      requestLogFlushIntervalMs: 500,
    });
    expect(loadConfig({ BLOB_SWEEP_INTERVAL_MS: '60000' }).blobSweepIntervalMs).toBe(60_000);
    expect(() => loadConfig({ REQUEST_LOG_FLUSH_INTERVAL_MS: '0' })).toThrow(
      'REQUEST_LOG_FLUSH_INTERVAL_MS must be an integer from 10 to 60000 (got "0")',
    );
  });
});
