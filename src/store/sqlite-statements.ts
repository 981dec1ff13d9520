import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from 'kysely';

/**
 * The database as Kysely's SQLite dialect sees it, with prepared statements reused by SQL text.
 * Kysely asks for a new statement on every query, and preparing one costs more than running the
 * small queries of the request path (docs/performance.md). Kysely holds one connection behind a
 * mutex and finishes each statement (or stream) before the next starts, so a cached statement is
 * never in use twice at once. The least recently used statement goes when `capacity` is reached.
 */
export function reusingStatements(database: SqliteDatabase.Database, capacity = 256): KyselySqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      const known = statements.get(sql);
      if (known !== undefined) {
        // Re-inserting keeps the map in least-recently-used order.
        statements.delete(sql);
        statements.set(sql, known);
        return known;
      }
      const statement = database.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > capacity) {
        const oldest = statements.keys().next().value;
        if (oldest !== undefined) statements.delete(oldest);
      }
      return statement;
    },
  };
}
