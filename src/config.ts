import path from 'node:path';

/** Where the service keeps its rows: an embedded SQLite file, or a PostgreSQL server. */
export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly file: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** The whole configuration, parsed once from the environment at start and frozen. */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly database: DatabaseConfig;
  /** Bearer token of the admin HTTP API; null turns the admin API off. */
  readonly adminToken: string | null;
  readonly bootstrapQuota: number;
  readonly bootstrapKey: string | null;
  readonly logLevel: LogLevel;
  readonly bodyLimitBytes: number;
  /** Base URL the service is reached at from outside, for links it hands out; null derives it per request. */
  readonly publicBaseUrl: string | null;
  /** Redis for the shared rate-limit store; null keeps limits in process memory. */
  readonly redisUrl: string | null;
  /** How long a reserved credit is held before an unsettled reservation is released. */
  readonly reservationHoldMs: number;
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

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

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

  const config: Config = {
    host: read(env, text('HOST', '127.0.0.1')) ?? '127.0.0.1',
    port: read(env, integer('PORT', 8080, 0, 65535)),
    dataDir,
    database,
    adminToken: read(
      env,
      text('WEBCAP_ADMIN_TOKEN', null, /^\S{16,}$/, 'at least 16 characters without spaces'),
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
    publicBaseUrl: read(env, httpUrl('PUBLIC_BASE_URL', ['http:', 'https:']))?.replace(/\/+$/, '') ?? null,
    redisUrl: read(env, httpUrl('REDIS_URL', ['redis:', 'rediss:'])),
    reservationHoldMs: read(env, integer('RESERVATION_HOLD_MS', 600_000, 1000, 86_400_000)),
  };
  return Object.freeze(config);
}

/** The process's configuration: the one place that reads process.env. */
export function configFromProcess(): Config {
  return loadConfig(process.env);
}
