import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { migrationProvider } from './migrations.js';
import type { DatabaseSchema } from './schema.js';
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

function sqliteDialect(file: string): SqliteDialect {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new SqliteDatabase(file);
  // WAL lets the CLI write while a server reads; busy_timeout makes writers queue instead of failing.
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  return new SqliteDialect({ database: reusingStatements(database) });
}

async function postgresDialect(url: string, schema: string): Promise<PostgresDialect> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (error) {
    // Two processes starting together race on the catalog; the loser sees the schema exist.
    const code = (error as { code?: string }).code;
    if (code !== '42P06' && code !== '23505') throw error;
  } finally {
    await setup.end();
  }
  const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path="${schema}"` });
  return new PostgresDialect({ pool });
}

/** Opens the database and brings its schema up to date; the same migrations run on both dialects. */
export async function openStore(config: DatabaseConfig): Promise<Store> {
  const dialect =
    config.kind === 'sqlite' ? sqliteDialect(config.file) : await postgresDialect(config.url, config.schema);
  const db = new Kysely<DatabaseSchema>({ dialect });
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
    await db.destroy();
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
  return { db, dialect: config.kind, close: () => db.destroy() };
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
