import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Redis } from 'ioredis';
import { DEFAULT_MIGRATION_TABLE } from 'kysely';
import pg from 'pg';
import { DEFAULT_CHROMIUM_PATH } from '../browser/chromium-args.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config.js';
import { Closers } from '../lifecycle.js';
import { S3BlobStore } from '../store/blobs-s3.js';
import { migrationProvider } from '../store/migrations.js';
import { dataDirModesCheck } from './doctor-data-dir.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One check's verdict; `fix` says what to run or set, and is null when the check passed. */
export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
  readonly fix: string | null;
}

/** What a check runs with: its time bound, and where it registers what it opens (closed when it ends or times out). */
export interface CheckContext {
  readonly timeoutMs: number;
  readonly closers: Closers;
}

/**
 * A check of the machine or of a configured service. `run` changes nothing it looks at (it never
 * migrates or creates); the one write is the S3 probe object, deleted at once.
 */
export interface Check {
  readonly name: string;
  run(context: CheckContext): Promise<CheckResult>;
}

const ok = (name: string, detail: string): CheckResult => ({ name, status: 'ok', detail, fix: null });
const warn = (name: string, detail: string, fix: string): CheckResult => ({
  name,
  status: 'warn',
  detail,
  fix,
});
const fail = (name: string, detail: string, fix: string): CheckResult => ({
  name,
  status: 'fail',
  detail,
  fix,
});

/** Past a check's own bound, the time it has to report, and then to close what it opened. */
const GRACE_MS = 1000;

const INSTALL_DEPS = 'or scripts/install-system-deps.sh for everything webcap needs';

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A URL as it may be printed: as given, but for its password. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** What `within` rejects with when its time is up. */
class NoAnswer extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'NoAnswer';
  }
}

/** The promise's value, or a NoAnswer once `timeoutMs` has passed without one. */
async function within<T>(timeoutMs: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a program with a deadline (killed past it) and resolves with its stdout; bounded output. */
function run(file: string, args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1_048_576, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error === null) return resolve(stdout);
        if (error.killed) return reject(new Error(`no answer within ${timeoutMs} ms`));
        // The first line of what it printed says why (a shared library missing, a bad option).
        const said = stderr.trim().split('\n')[0];
        reject(Object.assign(new Error(said || error.message), { code: error.code }));
      },
    );
  });
}

/** The nearest directory at or above `target` that exists (the root at the latest). */
async function nearestExisting(target: string): Promise<string> {
  let dir = path.resolve(target);
  while (true) {
    try {
      await fs.stat(dir);
      return dir;
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return dir;
      dir = parent;
    }
  }
}

/** Null when `target` exists and this user may write in it, or it does not exist and can be created; else why not. */
async function writableOrCreatable(target: string): Promise<string | null> {
  const existing = await nearestExisting(target);
  try {
    await fs.access(existing, fs.constants.W_OK);
    return null;
  } catch (error) {
    const code = errorCode(error) ?? 'not writable';
    return existing === path.resolve(target)
      ? `${existing} is not writable by this user (${code})`
      : `${target} does not exist and ${existing} is not writable by this user (${code})`;
  }
}

// Chromium

function chromiumCheck(config: Config): Check {
  const name = 'chromium';
  const file = config.browser.executablePath;
  const fix =
    file === DEFAULT_CHROMIUM_PATH
      ? `apt-get install chromium-headless-shell, ${INSTALL_DEPS}`
      : `point CHROMIUM_PATH at a Chromium binary, or unset it for ${DEFAULT_CHROMIUM_PATH} (apt-get install chromium-headless-shell)`;
  return {
    name,
    async run({ timeoutMs }) {
      try {
        await fs.access(file, fs.constants.X_OK);
      } catch (error) {
        const why = errorCode(error) === 'ENOENT' ? 'not found' : 'not executable by this user';
        return fail(name, `${file} ${why}`, fix);
      }
      try {
        const version = (await run(file, ['--version'], timeoutMs)).trim().split('\n')[0];
        return ok(name, `${version} at ${file}`);
      } catch (error) {
        return fail(name, `${file} --version failed: ${messageOf(error)}`, fix);
      }
    },
  };
}

// Fonts: Chromium finds them through fontconfig; a script without a font renders as empty boxes.

interface FontNeed {
  readonly name: string;
  /** fontconfig patterns that must each match a font. */
  readonly patterns: readonly { readonly pattern: string; readonly what: string }[];
  readonly missing: CheckStatus;
  readonly fix: string;
}

const FONT_NEEDS: readonly FontNeed[] = [
  {
    name: 'fonts latin',
    patterns: [{ pattern: ':lang=en', what: 'Latin' }],
    // No text at all renders without one: every page would be blank of words.
    missing: 'fail',
    fix: `apt-get install fonts-liberation, ${INSTALL_DEPS}`,
  },
  {
    name: 'fonts cjk',
    patterns: [
      { pattern: ':lang=ja', what: 'Japanese' },
      { pattern: ':lang=zh-cn', what: 'Chinese' },
      { pattern: ':lang=ko', what: 'Korean' },
    ],
    missing: 'warn',
    fix: `apt-get install fonts-noto-cjk, ${INSTALL_DEPS}`,
  },
  {
    name: 'fonts emoji',
    // A colour font with U+1F600: monochrome fonts such as DejaVu cover some emoji as outlines.
    patterns: [{ pattern: ':charset=1f600:color=true', what: 'colour emoji' }],
    missing: 'warn',
    fix: `apt-get install fonts-noto-color-emoji, ${INSTALL_DEPS}`,
  },
];

/** The families fontconfig has for a pattern, a few of them. */
async function fontFamilies(pattern: string, timeoutMs: number): Promise<string[]> {
  const out = await run('fc-list', [pattern, 'family'], timeoutMs);
  const families = new Set(
    out
      .split('\n')
      .map((line) => line.split(',')[0]?.trim() ?? '')
      .filter((family) => family !== ''),
  );
  return [...families].sort().slice(0, 3);
}

function fontCheck(need: FontNeed): Check {
  return {
    name: need.name,
    async run({ timeoutMs }) {
      const covered: string[] = [];
      const families = new Set<string>();
      const missing: string[] = [];
      for (const { pattern, what } of need.patterns) {
        let found: string[];
        try {
          found = await fontFamilies(pattern, timeoutMs);
        } catch (error) {
          if (errorCode(error) === 'ENOENT') {
            return fail(
              need.name,
              'fc-list not found: fontconfig is not installed',
              'apt-get install fontconfig',
            );
          }
          return fail(
            need.name,
            `fc-list failed: ${messageOf(error)}`,
            'apt-get install --reinstall fontconfig',
          );
        }
        if (found.length === 0) missing.push(what);
        else covered.push(what);
        for (const family of found) families.add(family);
      }
      if (missing.length === 0) {
        return ok(need.name, `${covered.join(', ')} (${[...families].slice(0, 3).join(', ')})`);
      }
      const detail = `no font for ${missing.join(', ')}: such text renders as empty boxes`;
      return need.missing === 'fail' ? fail(need.name, detail, need.fix) : warn(need.name, detail, need.fix);
    },
  };
}

// Database

/** The migrations this webcap knows, in the order they run. */
async function knownMigrations(): Promise<string[]> {
  return Object.keys(await migrationProvider.getMigrations()).sort();
}

/** The verdict on a database whose applied migrations are `applied` (null: none of our tables yet). */
async function migrationVerdict(name: string, where: string, applied: string[] | null): Promise<CheckResult> {
  const known = await knownMigrations();
  if (applied === null) {
    return ok(name, `${where}: empty; \`webcap serve\` creates the tables at first start`);
  }
  const unknown = applied.filter((migration) => !known.includes(migration));
  if (unknown.length > 0) {
    return fail(
      name,
      `${where}: migrated by a newer webcap (${unknown.join(', ')} unknown to this one)`,
      'run the webcap version that migrated it, or upgrade this one',
    );
  }
  const pending = known.filter((migration) => !applied.includes(migration));
  if (pending.length > 0) {
    return warn(
      name,
      `${where}: ${pending.length} migration${pending.length === 1 ? '' : 's'} pending (${pending.join(', ')})`,
      '`webcap serve` (or any `webcap admin` command) applies them at start: back the database up first',
    );
  }
  return ok(name, `${where}: reachable, all ${known.length} migrations applied`);
}

function sqliteCheck(file: string): Check {
  const name = 'database';
  return {
    name,
    async run({ closers }) {
      try {
        await fs.access(file);
      } catch {
        const why = await writableOrCreatable(path.dirname(file));
        if (why !== null) {
          return fail(
            name,
            `SQLite file ${file} cannot be created: ${why}`,
            'set WEBCAP_DATA_DIR to a directory this user may write in',
          );
        }
        return migrationVerdict(name, `SQLite ${file}`, null);
      }
      try {
        await fs.access(file, fs.constants.W_OK);
      } catch (error) {
        return fail(
          name,
          `SQLite ${file} is not writable by this user (${errorCode(error)})`,
          'run webcap as the user that owns it, or chown it (and its -wal and -shm files)',
        );
      }
      let applied: string[] | null;
      try {
        // Read-only: the doctor reads the migrations table and changes nothing.
        const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
        closers.add('sqlite', () => db.close());
        const table = db
          .prepare("select name from sqlite_master where type = 'table' and name = ?")
          .get(DEFAULT_MIGRATION_TABLE);
        applied =
          table === undefined
            ? null
            : db
                .prepare(`select name from "${DEFAULT_MIGRATION_TABLE}"`)
                .all()
                .map((row) => (row as { name: string }).name);
      } catch (error) {
        return fail(
          name,
          `SQLite ${file} cannot be read: ${messageOf(error)}`,
          'move the file aside (webcap then starts with an empty database) or restore it from a backup',
        );
      }
      return migrationVerdict(name, `SQLite ${file}`, applied);
    },
  };
}

/** What to do about a PostgreSQL connection that failed, by its error. */
function postgresFailure(error: unknown, where: string, timeoutMs: number): CheckResult {
  const name = 'database';
  const code = errorCode(error);
  const reach = 'start PostgreSQL there, or unset DATABASE_URL to use the embedded SQLite file';
  switch (code) {
    case 'ECONNREFUSED':
      return fail(name, `${where}: connection refused (nothing listens there)`, reach);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return fail(name, `${where}: host name not found (${code})`, 'correct the host in DATABASE_URL');
    case '28P01':
    case '28000':
      return fail(name, `${where}: ${messageOf(error)}`, 'correct the user and password in DATABASE_URL');
    case '3D000':
      return fail(
        name,
        `${where}: ${messageOf(error)}`,
        'create it (createdb NAME, with -h, -p and -U as in DATABASE_URL), or name an existing one in DATABASE_URL',
      );
  }
  if (/timeout|timed out/i.test(messageOf(error))) {
    return fail(
      name,
      `${where}: no answer within ${timeoutMs} ms`,
      'check that DATABASE_URL names a PostgreSQL server reachable from this machine (address, port, firewall)',
    );
  }
  return fail(name, `${where}: ${messageOf(error)}`, reach);
}

function postgresCheck(url: string, schema: string): Check {
  const name = 'database';
  const where = `PostgreSQL ${redactUrl(url)}, schema ${schema}`;
  return {
    name,
    async run({ timeoutMs, closers }) {
      const client = new pg.Client({
        connectionString: url,
        connectionTimeoutMillis: timeoutMs,
        query_timeout: timeoutMs,
      });
      // A connection lost after connecting fails the query under way, which reports it.
      client.on('error', () => undefined);
      closers.add('postgres', () => client.end());
      try {
        await client.connect();
      } catch (error) {
        return postgresFailure(error, where, timeoutMs);
      }
      try {
        const version = (await client.query<{ server_version: string }>('show server_version')).rows[0]
          ?.server_version;
        const table = await client.query(
          `select 1 from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where n.nspname = $1 and c.relname = $2`,
          [schema, DEFAULT_MIGRATION_TABLE],
        );
        const applied =
          table.rowCount === 0
            ? null
            : (
                await client.query<{ name: string }>(
                  `select name from "${schema}"."${DEFAULT_MIGRATION_TABLE}"`,
                )
              ).rows.map((row) => row.name);
        return migrationVerdict(name, `${where} (server ${version?.split(' ')[0] ?? 'unknown'})`, applied);
      } catch (error) {
        return postgresFailure(error, where, timeoutMs);
      }
    },
  };
}

// Redis

/** BullMQ refuses older servers (bullmq's RedisConnection.minimumVersion). */
const REDIS_MIN_VERSION = [5, 0, 0] as const;

function versionBelow(version: string, minimum: readonly number[]): boolean {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < minimum.length; i++) {
    const have = parts[i] ?? 0;
    const need = minimum[i] ?? 0;
    if (have !== need) return have < need;
  }
  return false;
}

function infoField(info: string, field: string): string | undefined {
  return new RegExp(`^${field}:(\\S+)`, 'm').exec(info)?.[1];
}

function redisCheck(url: string | null): Check {
  const name = 'redis';
  return {
    name,
    async run({ timeoutMs, closers }) {
      if (url === null) {
        return ok(name, 'REDIS_URL unset: rate caps are counted per process, async jobs run in this process');
      }
      const where = redactUrl(url);
      const redis = new Redis(url, {
        lazyConnect: true,
        connectTimeout: timeoutMs,
        commandTimeout: timeoutMs,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        // One attempt: a doctor reports, it does not wait for Redis to come back.
        retryStrategy: () => null,
        // Its INFO would not be bounded by commandTimeout; the INFO below is.
        enableReadyCheck: false,
      });
      // The connection's own error (refused, unknown host) says more than the "Connection is
      // closed" that the connect under way then rejects with.
      let connectionError: unknown;
      redis.on('error', (error) => {
        connectionError ??= error;
      });
      closers.add('redis', () => redis.disconnect());
      let info: string;
      try {
        // One bound for both: ioredis's own timeouts apply to each step apart.
        info = await within(
          timeoutMs,
          redis.connect().then(() => redis.info()),
        );
      } catch (error) {
        const message = messageOf(connectionError ?? error);
        if (/NOAUTH|WRONGPASS|invalid password|invalid username/i.test(message)) {
          return fail(
            name,
            `${where}: ${message}`,
            'put the user and password in REDIS_URL (redis://user:password@host:port)',
          );
        }
        if (error instanceof NoAnswer || /timeout|timed out/i.test(message)) {
          return fail(
            name,
            `${where}: no answer within ${timeoutMs} ms`,
            'check that REDIS_URL names a Redis server reachable from this machine (address, port, firewall)',
          );
        }
        return fail(
          name,
          `${where}: ${message}`,
          'start Redis there, correct REDIS_URL, or unset it to keep caps and jobs in this process',
        );
      }
      const version = infoField(info, 'valkey_version') ?? infoField(info, 'redis_version') ?? 'unknown';
      if (version !== 'unknown' && versionBelow(version, REDIS_MIN_VERSION)) {
        return fail(
          name,
          `${where}: Redis ${version}; the job queue (BullMQ) needs 5.0 or later`,
          'upgrade Redis to 6.2 or later',
        );
      }
      const policy = infoField(info, 'maxmemory_policy');
      if (policy !== undefined && policy !== 'noeviction') {
        return warn(
          name,
          `${where}: Redis ${version} evicts keys under memory pressure (maxmemory-policy ${policy}): queued jobs could vanish`,
          'redis-cli -u "$REDIS_URL" config set maxmemory-policy noeviction, and set it in redis.conf',
        );
      }
      return ok(name, `${where}: Redis ${version}`);
    },
  };
}

// Blobs

const PROBE_BYTES = Buffer.from('webcap doctor\n');

function s3Failure(error: unknown, where: string, bucket: string, timeoutMs: number): CheckResult {
  const name = 'blobs';
  const kind = (error as { name?: unknown } | null)?.name;
  const message = messageOf(error);
  switch (kind) {
    case 'NoSuchBucket':
      return fail(
        name,
        `${where}: the bucket does not exist`,
        `create it (aws s3 mb s3://${bucket}, with --endpoint-url for BLOB_S3_ENDPOINT)`,
      );
    case 'CredentialsProviderError':
      return fail(
        name,
        `${where}: no credentials`,
        'set BLOB_S3_ACCESS_KEY_ID and BLOB_S3_SECRET_ACCESS_KEY, or give the machine an IAM role with access to the bucket',
      );
    case 'AccessDenied':
    case 'InvalidAccessKeyId':
    case 'SignatureDoesNotMatch':
      return fail(
        name,
        `${where}: ${kind}: ${message}`,
        'set BLOB_S3_ACCESS_KEY_ID and BLOB_S3_SECRET_ACCESS_KEY to a key allowed s3:PutObject, s3:GetObject, s3:DeleteObject and s3:ListBucket on the bucket',
      );
    case 'TimeoutError':
    case 'RequestTimeout':
      return fail(
        name,
        `${where}: no answer within ${timeoutMs} ms`,
        'check that BLOB_S3_ENDPOINT is reachable from this machine (address, port, firewall)',
      );
  }
  if (errorCode(error) === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) {
    return fail(
      name,
      `${where}: connection refused (nothing listens there)`,
      'start the S3 service there, or correct BLOB_S3_ENDPOINT',
    );
  }
  if (/timeout|timed out/i.test(message)) {
    return fail(
      name,
      `${where}: no answer within ${timeoutMs} ms`,
      'check that BLOB_S3_ENDPOINT is reachable from this machine (address, port, firewall)',
    );
  }
  return fail(name, `${where}: ${message}`, 'check BLOB_S3_ENDPOINT, BLOB_S3_REGION and BLOB_S3_BUCKET');
}

function blobsCheck(config: Config): Check {
  const name = 'blobs';
  const blobs = config.blobs;
  return {
    name,
    async run({ timeoutMs, closers }) {
      if (blobs.kind === 'fs') {
        const why = await writableOrCreatable(blobs.dir);
        if (why !== null) {
          return fail(name, why, 'set WEBCAP_DATA_DIR to a directory this user may write in, or chown it');
        }
        return ok(name, `local directory ${blobs.dir} is writable`);
      }
      const at = blobs.endpoint === null ? `AWS ${blobs.region}` : redactUrl(blobs.endpoint);
      const prefix = blobs.prefix === '' ? '' : ` (prefix ${blobs.prefix})`;
      const where = `bucket ${blobs.bucket}${prefix} at ${at}`;
      // One attempt each, within the doctor's bound: a stalled bucket is a failed check, not a wait.
      const store = new S3BlobStore({ ...blobs, timeoutMs, maxAttempts: 1 }, systemClock);
      closers.add('s3', () => store.close());
      const key = `webcap-doctor/${randomUUID()}`;
      try {
        await store.put(key, PROBE_BYTES, {
          contentType: 'text/plain',
          // Swept like any expired blob should the delete below not happen.
          expiresAt: new Date(Date.now() + 60_000),
        });
        const read = await store.get(key);
        await store.delete(key);
        if (read === null || !read.bytes.equals(PROBE_BYTES)) {
          return fail(
            name,
            `${where}: an object written could not be read back`,
            "check the bucket's read permission (s3:GetObject)",
          );
        }
      } catch (error) {
        return s3Failure(error, where, blobs.bucket, timeoutMs);
      }
      return ok(name, `${where}: write, read and delete work`);
    },
  };
}

// Secrets and tokens

/** Loopback hosts: a service listening there is reached from this machine only. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return net.isIPv4(host) && host.startsWith('127.');
}

/**
 * Why this configuration looks like production (reached from elsewhere, or several processes
 * sharing a database), or null for a single process on this machine. Config has no production
 * flag; these are what a deployment sets and a newcomer's first start does not.
 */
function productionSigns(config: Config): string | null {
  const signs = [
    isLoopback(config.host) ? null : `HOST=${config.host}`,
    config.database.kind === 'postgres' ? 'DATABASE_URL' : null,
    config.redisUrl === null ? null : 'REDIS_URL',
    config.publicBaseUrl === null ? null : 'PUBLIC_BASE_URL',
  ].filter((sign) => sign !== null);
  return signs.length === 0 ? null : signs.join(', ');
}

function signingSecretCheck(config: Config): Check {
  const name = 'signing secret';
  return {
    name,
    async run() {
      if (config.signingSecret !== null) return ok(name, 'WEBCAP_SIGNING_SECRET is set');
      const signs = productionSigns(config);
      const generated = 'unset: one is generated once and kept in the database';
      if (signs === null) return ok(name, `${generated} (enough for one process on this machine)`);
      return warn(
        name,
        `${generated}, and ${signs} say this is a deployment: a copy of the database then holds the key to hosted links and sealed job parameters`,
        'set WEBCAP_SIGNING_SECRET=$(openssl rand -hex 32), the same on every process sharing the database (links handed out before stop working)',
      );
    },
  };
}

function tokenChecks(config: Config): Check[] {
  const admin = config.adminToken;
  const metrics = config.metricsToken;
  return [
    {
      name: 'admin token',
      async run() {
        if (admin === null) {
          return ok(
            'admin token',
            'WEBCAP_ADMIN_TOKEN unset: the admin API (/admin/v1) is off; `webcap admin` works without it',
          );
        }
        if (admin === metrics) {
          return warn(
            'admin token',
            'WEBCAP_ADMIN_TOKEN equals METRICS_TOKEN: whatever scrapes /metrics can manage accounts and keys',
            'give METRICS_TOKEN a value of its own (openssl rand -hex 32)',
          );
        }
        return ok('admin token', 'WEBCAP_ADMIN_TOKEN set: the admin API (/admin/v1) is on');
      },
    },
    {
      name: 'metrics token',
      async run() {
        return metrics === null
          ? ok('metrics token', 'METRICS_TOKEN unset: GET /metrics is off (404)')
          : ok('metrics token', 'METRICS_TOKEN set: GET /metrics is on behind it');
      },
    },
  ];
}

// Port

/** Null when the address can be listened on now, else the listen error's code. */
function listenError(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (error) => resolve(errorCode(error) ?? messageOf(error)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** True when whatever listens at host:port answers GET /healthz as webcap does. */
async function answersLikeWebcap(host: string, port: number, timeoutMs: number): Promise<boolean> {
  // A wildcard address is reached on loopback; an IPv6 literal goes in brackets.
  const target = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const authority = net.isIPv6(target) ? `[${target}]:${port}` : `${target}:${port}`;
  try {
    const response = await fetch(`http://${authority}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.json()) as { status?: unknown };
    return response.status === 200 && body.status === 'ok';
  } catch {
    return false;
  }
}

function portCheck(config: Config): Check {
  const name = 'port';
  const { host, port } = config;
  const address = `${host}:${port}`;
  return {
    name,
    async run({ timeoutMs }) {
      if (port === 0) return ok(name, `PORT=0: \`webcap serve\` listens on any free port of ${host}`);
      const code = await listenError(host, port);
      if (code === null) return ok(name, `${address} is free`);
      if (code === 'EADDRINUSE') {
        if (await answersLikeWebcap(host, port, timeoutMs)) {
          return ok(name, `${address} is taken by a running webcap (GET /healthz answers)`);
        }
        return fail(
          name,
          `${address} is taken by another program`,
          `stop it (ss -ltnp 'sport = :${port}' names it) or set PORT to a free port`,
        );
      }
      if (code === 'EACCES') {
        return fail(
          name,
          `${address}: this user may not listen on port ${port} (EACCES)`,
          'set PORT to 1024 or above',
        );
      }
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
        return fail(
          name,
          `${address}: ${host} is not an address of this machine (${code})`,
          'set HOST to an address of this machine: 127.0.0.1 for this machine only, 0.0.0.0 for every interface',
        );
      }
      return fail(
        name,
        `${address}: cannot listen (${code})`,
        'set HOST and PORT to an address this user may listen on',
      );
    },
  };
}

/** The checks that need no configuration: they run even when the environment does not parse. */
export function machineChecks(): Check[] {
  return FONT_NEEDS.map(fontCheck);
}

/** Every check of a configuration, in the order they are reported. */
export function configuredChecks(config: Config): Check[] {
  const database = config.database;
  return [
    chromiumCheck(config),
    ...machineChecks(),
    database.kind === 'sqlite' ? sqliteCheck(database.file) : postgresCheck(database.url, database.schema),
    redisCheck(config.redisUrl),
    blobsCheck(config),
    dataDirModesCheck(config),
    signingSecretCheck(config),
    ...tokenChecks(config),
    portCheck(config),
  ];
}

/**
 * Runs one check within its bound (plus a grace to report): a check that has not answered by then
 * fails. What it opened is closed either way (a close that hangs is let go after the grace), so
 * that nothing it left open keeps the process alive.
 */
async function runCheck(check: Check, timeoutMs: number): Promise<CheckResult> {
  const closers = new Closers();
  try {
    return await within(timeoutMs + GRACE_MS, check.run({ timeoutMs, closers })).catch(
      (error: unknown): CheckResult =>
        error instanceof NoAnswer
          ? fail(
              check.name,
              `no verdict within ${timeoutMs} ms`,
              'see why it stalls; --timeout-ms gives every check longer',
            )
          : fail(
              check.name,
              `the check itself failed: ${messageOf(error)}`,
              'report it as a bug of webcap doctor, with this line',
            ),
    );
  } finally {
    await within(GRACE_MS, closers.close()).catch(() => undefined);
  }
}

/** Runs the checks side by side, each within `timeoutMs`; their verdicts in the checks' order. */
export function runChecks(checks: readonly Check[], timeoutMs: number): Promise<CheckResult[]> {
  return Promise.all(checks.map((check) => runCheck(check, timeoutMs)));
}
