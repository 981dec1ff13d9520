import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  sql,
} from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { DatabaseConfig } from '../config.js';
import { WebcapError } from '../errors.js';
import { migrationProvider } from './migrations.js';
import { MigrationDialect } from './one-schema-introspector.js';
import { makePrivateSqliteFile } from './private-files.js';
import type { DatabaseSchema } from './schema.js';
import { WaitingSqliteDialect } from './sqlite-busy.js';
import { reusingStatements } from './sqlite-statements.js';

export type Db = Kysely<DatabaseSchema>;

/** A handle on the database plus what callers need to know about its dialect. */
export interface Store {
  readonly db: Db;
  readonly dialect: DatabaseConfig['kind'];
  close(): Promise<void>;
}

// Counts from PostgreSQL (SUM, COUNT, int8) arrive as strings; they always fit a JS number here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

function sqliteDialect(file: string, busyTimeoutMs: number): WaitingSqliteDialect {
  makePrivateSqliteFile(file);
  const database = new SqliteDatabase(file);
  // WAL lets the CLI write while a server reads. A writer that finds the lock taken by another
  // process waits for it in WaitingSqliteDialect, off the event loop: sqlite3's own busy wait
  // (busy_timeout) would block the whole process meanwhile.
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 0');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  return new WaitingSqliteDialect({ database: reusingStatements(database) }, busyTimeoutMs);
}

/** How long PostgreSQL calls may wait, and where lost connections are reported. */
export interface StoreOptions {
  /** Longest wait for a connection: opening one, or a free one from the pool. */
  readonly connectTimeoutMs?: number;
  /** Longest wait for the answer to one query (migrations excepted). */
  readonly queryTimeoutMs?: number;
  /** SQLite: longest wait of a statement for a write lock another process holds; past it, 503. */
  readonly sqliteBusyTimeoutMs?: number;
  readonly logger?: Pick<Logger, 'warn'>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;
/** What a caller is told to wait before retrying a call the database could not serve. */
const UNREACHABLE_RETRY_AFTER_SECONDS = 5;

type PostgresStoreConfig = Extract<DatabaseConfig, { kind: 'postgres' }>;

function postgresPool(config: PostgresStoreConfig, options: StoreOptions, extra: pg.PoolConfig): pg.Pool {
  return new pg.Pool({
    connectionString: config.url,
    options: `-c search_path="${config.schema}"`,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...extra,
  });
}

async function createSchema(config: PostgresStoreConfig, options: StoreOptions): Promise<void> {
  const setup = new pg.Client({
    connectionString: config.url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  });
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS "${config.schema}"`);
  } catch (error) {
    // Two processes starting together race on the catalog; the loser sees the schema exist.
    const code = (error as { code?: string }).code;
    if (code !== '42P06' && code !== '23505') throw error;
  } finally {
    await setup.end();
  }
}

/** Brings the schema up to date; the same migrations run on both dialects. */
async function migrate(db: Db, config: DatabaseConfig): Promise<void> {
  // Name the schema: otherwise Kysely looks its bookkeeping tables up in every schema, and a
  // fresh schema beside an older one would be taken as already set up.
  const migrationTableSchema = config.kind === 'postgres' ? config.schema : undefined;
  const { error, results } = await new Migrator({
    db,
    provider: migrationProvider,
    migrationTableSchema,
  }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}

/**
 * Opens the database and brings its schema up to date. On PostgreSQL, every call waits at most
 * `connectTimeoutMs` for a connection and `queryTimeoutMs` for each answer, and a database that
 * cannot be reached is `503 Service Unavailable: database unreachable` (GuardedPool). Migrations
 * run first on a connection of their own without the query timeout: on a large table they may
 * rightly take minutes.
 */
export async function openStore(config: DatabaseConfig, options: StoreOptions = {}): Promise<Store> {
  if (config.kind === 'postgres') {
    await createSchema(config, options);
    const migrating = new Kysely<DatabaseSchema>({
      dialect: new MigrationDialect({ pool: postgresPool(config, options, { max: 1 }) }, config.schema),
    });
    try {
      await migrate(migrating, config);
    } finally {
      await migrating.destroy();
    }
  }
  const dialect =
    config.kind === 'sqlite'
      ? sqliteDialect(config.file, options.sqliteBusyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS)
      : new PostgresDialect({
          pool: new GuardedPool(
            postgresPool(config, options, {
              max: 10,
              query_timeout: options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
            }),
            options.logger,
          ),
        });
  const db = new Kysely<DatabaseSchema>({ dialect });
  if (config.kind === 'sqlite') {
    try {
      await migrate(db, config);
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }
  return { db, dialect: config.kind, close: () => db.destroy() };
}

/**
 * True when a failed query means the database cannot serve us right now rather than that the
 * query was wrong: the server refused for want of resources or because it is shutting down
 * (SQLSTATE class 08 connection exception, 53 insufficient resources, 57P01-57P03), or no answer
 * came at all (a socket error, a connection closed under it, the query timeout). Errors from
 * turning values into parameters or rows (TypeError, RangeError, SyntaxError) are bugs, not outages.
 */
function isOutage(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) {
    const code = error.code ?? '';
    return code.startsWith('08') || code.startsWith('53') || /^57P0[123]$/.test(code);
  }
  return (
    error instanceof Error &&
    !(error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError)
  );
}

function unreachable(cause: unknown): WebcapError {
  return new WebcapError('unavailable', 'database unreachable', {
    retryAfterSeconds: UNREACHABLE_RETRY_AFTER_SECONDS,
    cause,
  });
}

/**
 * pg's pool as Kysely uses it, made safe to lose the database under: this is the one place where
 * PostgreSQL's outages become `unavailable` (503 with Retry-After), whatever code path runs into
 * them. A connection whose query failed that way is closed at once (so that the rollback queued
 * behind a timed-out query fails now, not one timeout later) and never goes back to the pool. A
 * connection that dies while idle is dropped by pg and logged here: without a listener its
 * `error` event would end the process.
 */
class GuardedPool implements PostgresPool {
  private readonly guarded = new WeakMap<pg.PoolClient, GuardedClient>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Pick<Logger, 'warn'> | undefined,
  ) {
    pool.on('error', (error) => this.logger?.warn({ err: error }, 'idle database connection lost'));
  }

  async connect(): Promise<PostgresPoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      this.logger?.warn({ err: error }, 'database unreachable');
      throw unreachable(error);
    }
    let guarded = this.guarded.get(client);
    if (guarded === undefined) {
      guarded = new GuardedClient(client, this.logger);
      this.guarded.set(client, guarded);
    }
    return guarded;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

class GuardedClient implements PostgresPoolClient {
  /** Why this connection must not be reused; cleared when it is handed back. */
  private failure: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly logger: Pick<Logger, 'warn'> | undefined,
  ) {
    // A connection lost during a query fails that query, which reports it; the event is a duplicate.
    client.on('error', () => undefined);
  }

  // Kysely only passes a cursor when its dialect is given a cursor class, which this one is not.
  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query(cursor: never): never;
  async query<R>(sql: string, parameters: ReadonlyArray<unknown> = []): Promise<PostgresQueryResult<R>> {
    try {
      return (await this.client.query(sql, parameters as unknown[])) as unknown as PostgresQueryResult<R>;
    } catch (error) {
      if (!isOutage(error)) throw error;
      this.failure = error as Error;
      this.client.connection.stream.destroy();
      this.logger?.warn({ err: error }, 'database unreachable');
      throw unreachable(error);
    }
  }

  release(): void {
    const failure = this.failure;
    this.failure = undefined;
    this.client.release(failure);
  }
}

/** True when a write failed on a unique constraint (PostgreSQL 23505, SQLite's UNIQUE and PRIMARY KEY). */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Runs a write of a value that must be unique (an account's slug, a key's hash): when another
 * writer stored the same value first, the write's unique violation is `conflict` (409) with
 * `detail`. The one place that turns a unique violation into a conflict: a check before the write
 * cannot, since two creates can both pass it.
 */
export async function unlessTaken<T>(write: () => Promise<T>, detail: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new WebcapError('conflict', detail, { cause: error });
    throw error;
  }
}

/** True when the database answers a trivial query. */
export async function isReachable(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
