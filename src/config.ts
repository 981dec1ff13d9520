import path from 'node:path';
import { CONFIG_VARS, type ConfigVar, KEY_UNITS, type TableConfig } from './config-vars.js';
import type { OpenAiConfig } from './engines/analyze/analyzers/openai.js';

/** Where the service keeps its rows: an embedded SQLite file, or a PostgreSQL server. */
export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly file: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

/**
 * Where blobs (cache entries, hosted files) live: a local directory, or an S3-compatible bucket
 * with the rest of the `blobs.*` settings (endpoint null for AWS itself; prefix empty, or ending in '/').
 */
export type BlobStoreConfig =
  | { readonly kind: 'fs'; readonly dir: string }
  | ({
      readonly kind: 's3';
      readonly bucket: string;
      /** Null leaves credentials to the SDK's default chain (instance role, AWS_* variables, profile). */
      readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
    } & Omit<TableConfig['blobs'], 'bucket' | 'accessKeyId' | 'secretAccessKey'>);

/** Which analyzer answers /v1/analyze (docs/analyze.md): the built-in extractive one, or a model behind an OpenAI-compatible API. */
export type AnalyzerConfig = { readonly kind: 'extractive' } | ({ readonly kind: 'openai' } & OpenAiConfig);

/** What loadConfig builds from several variables rather than taking one as it is. */
interface Assembled {
  /** WEBCAP_DATA_DIR, made absolute. */
  readonly dataDir: string;
  readonly database: DatabaseConfig;
  readonly blobs: BlobStoreConfig;
  readonly analyzer: AnalyzerConfig;
}

/**
 * The whole configuration, parsed once from the environment at start and frozen: each variable
 * of CONFIG_VARS at its key (its meaning is the entry's description), a few assembled from several.
 */
export type Config = Omit<TableConfig, keyof Assembled> & Assembled;

export type LogLevel = Config['logLevel'];
export type JobsConfig = Config['jobs'];

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
        if (!variable.protocols.includes(new URL(raw).protocol)) return undefined;
      } catch {
        return undefined;
      }
      return variable.dropTrailingSlashes ? withoutTrailingSlashes(raw) : raw;
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : undefined;
    case 'choice':
      return variable.choices.includes(raw) ? raw : undefined;
    case 'custom':
      return variable.parse(raw);
  }
}

function withoutTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A parsed or default value in the unit of the variable's key. */
function inKeyUnit(variable: ConfigVar, value: unknown): unknown {
  if (variable.type !== 'integer' || variable.keyUnit === undefined || value === null) return value;
  // UnitConversion admits only a unit that KEY_UNITS[keyUnit] lists.
  const size = (KEY_UNITS[variable.keyUnit] as Readonly<Record<string, number>>)[variable.unit];
  return (value as number) * (size as number);
}

/**
 * Every variable of CONFIG_VARS, in its order: parsed when set (an empty one is unset), else its
 * default; each at its key, sections frozen.
 */
function readVariables(env: Env): TableConfig {
  const table: Record<string, unknown> = {};
  const sections = new Map<string, Record<string, unknown>>();
  for (const variable of CONFIG_VARS as readonly ConfigVar[]) {
    const raw = env[variable.name];
    let value: unknown = variable.default;
    if (raw !== undefined && raw !== '') {
      value = parse(variable, raw.trim());
      if (value === undefined) throw new ConfigError(variable.name, expectedOf(variable), raw);
    }
    const [name, field] = variable.key.split('.') as [string, string?];
    if (field === undefined) {
      table[name] = inKeyUnit(variable, value);
      continue;
    }
    const section = sections.get(name) ?? {};
    section[field] = inKeyUnit(variable, value);
    sections.set(name, section);
  }
  for (const [name, section] of sections) table[name] = Object.freeze(section);
  // Each value was parsed by its own entry's type and placed at its key, which is what TableConfig maps.
  return table as TableConfig;
}

/** Blobs go to the bucket BLOB_S3_BUCKET names, else to `<dataDir>/blobs`; every BLOB_S3_* is checked either way. */
function blobStoreConfig(blobs: TableConfig['blobs'], dataDir: string): BlobStoreConfig {
  const { bucket, accessKeyId, secretAccessKey, prefix, ...rest } = blobs;
  if (accessKeyId === null && secretAccessKey !== null) {
    throw new ConfigError('BLOB_S3_ACCESS_KEY_ID', 'set together with BLOB_S3_SECRET_ACCESS_KEY', '');
  }
  if (accessKeyId !== null && secretAccessKey === null) {
    throw new ConfigError('BLOB_S3_SECRET_ACCESS_KEY', 'set together with BLOB_S3_ACCESS_KEY_ID', '');
  }
  if (bucket === null) return Object.freeze({ kind: 'fs', dir: path.join(dataDir, 'blobs') });
  return Object.freeze({
    kind: 's3',
    ...rest,
    bucket,
    credentials: accessKeyId === null || secretAccessKey === null ? null : { accessKeyId, secretAccessKey },
    prefix: prefix ? `${prefix.replace(/\/$/, '')}/` : '',
  });
}

function checkBrowser(browser: TableConfig['browser']): void {
  if (browser.navigationTimeoutMs >= browser.renderTimeoutMs) {
    throw new ConfigError(
      'NAVIGATION_TIMEOUT_MS',
      `below RENDER_TIMEOUT_MS (${browser.renderTimeoutMs})`,
      String(browser.navigationTimeoutMs),
    );
  }
  if (browser.launchBackoffMaxMs < browser.launchBackoffMs) {
    throw new ConfigError(
      'BROWSER_LAUNCH_BACKOFF_MAX_MS',
      `at least BROWSER_LAUNCH_BACKOFF_MS (${browser.launchBackoffMs})`,
      String(browser.launchBackoffMaxMs),
    );
  }
}

function analyzerConfig(analyzer: TableConfig['analyzer']): AnalyzerConfig {
  const { kind, baseUrl, model, ...rest } = analyzer;
  if (kind !== 'openai') return Object.freeze({ kind: 'extractive' });
  if (baseUrl === null) throw new ConfigError('ANALYZE_OPENAI_BASE_URL', 'set when ANALYZER=openai', '');
  if (model === null) throw new ConfigError('ANALYZE_OPENAI_MODEL', 'set when ANALYZER=openai', '');
  return Object.freeze({ kind, ...rest, baseUrl, model });
}

/**
 * Parses the environment into a frozen Config; throws ConfigError naming the first bad variable
 * (in CONFIG_VARS's order), then the first pair that does not fit together.
 */
export function loadConfig(env: Env): Config {
  const table = readVariables(env);
  const dataDir = path.resolve(table.dataDir);
  const database: DatabaseConfig =
    table.database.url === null
      ? { kind: 'sqlite', file: path.join(dataDir, 'webcap.sqlite') }
      : { kind: 'postgres', url: table.database.url, schema: table.database.schema };
  const blobs = blobStoreConfig(table.blobs, dataDir);
  checkBrowser(table.browser);
  const analyzer = analyzerConfig(table.analyzer);
  if (table.headersTimeoutMs > table.requestTimeoutMs) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `at most REQUEST_TIMEOUT_MS (${table.requestTimeoutMs})`,
      String(table.headersTimeoutMs),
    );
  }
  if (table.redisUrl === null && table.jobs.concurrency === 0) {
    throw new ConfigError(
      'JOB_CONCURRENCY',
      'at least 1 without REDIS_URL (nothing else would run jobs)',
      '0',
    );
  }
  return Object.freeze({
    ...table,
    dataDir,
    database: Object.freeze(database),
    blobs,
    analyzer,
  });
}

/** The process's configuration: the one place that reads process.env. */
export function configFromProcess(): Config {
  return loadConfig(process.env);
}
