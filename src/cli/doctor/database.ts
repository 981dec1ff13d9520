import type { Config } from '../../config.js';
import type { Check } from './check.js';
import { postgresCheck } from './database-postgres.js';
import { sqliteCheck } from './database-sqlite.js';

/** The configured database, SQLite or PostgreSQL: reachable, and migrated by this webcap or one before it. */
export function databaseCheck(config: Config): Check {
  const database = config.database;
  return database.kind === 'sqlite'
    ? sqliteCheck(database.file)
    : postgresCheck(database.url, database.schema);
}
