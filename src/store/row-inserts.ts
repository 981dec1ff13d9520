import type { Insertable, Kysely } from 'kysely';
import { compiledOnce } from './compiled-queries.js';
import type { DatabaseSchema } from './schema.js';
import { powerOfTwoChunks } from './statement-chunks.js';

type Table = keyof DatabaseSchema & string;

/** A table's columns, each named once: the object's keys, so the compiler checks that none is missing. */
export function columnsOf<Row>(
  columns: { readonly [C in keyof Row]-?: true },
): readonly (keyof Row & string)[] {
  return Object.keys(columns) as (keyof Row & string)[];
}

/** The multi-row insert of `rows` rows into `table`'s `columns`, each value a bound parameter. */
function compiledInsert(db: Kysely<DatabaseSchema>, table: Table, columns: readonly string[], rows: number) {
  return compiledOnce(db, `insert ${table}(${columns.join(',')})*${rows}`, () => {
    const blank = Object.fromEntries(columns.map((column) => [column, null]));
    const query = db
      .insertInto(table)
      .values(Array.from({ length: rows }, () => blank) as never)
      .compile();
    if (query.parameters.length !== rows * columns.length) {
      throw new Error(`the insert into ${table} must take one parameter per value`);
    }
    return query;
  });
}

/**
 * Inserts rows in multi-row statements of power-of-two sizes up to `maxPerStatement`, each
 * statement's text compiled once per dialect: built anew on every call, it cost the request log's
 * batches about as much as SQLite's own work on them (docs/performance.md). The values are bound
 * in `columns`' order, missing ones as null.
 */
export async function insertRows<T extends Table>(
  db: Kysely<DatabaseSchema>,
  table: T,
  columns: readonly (keyof Insertable<DatabaseSchema[T]> & string)[],
  rows: readonly Insertable<DatabaseSchema[T]>[],
  maxPerStatement: number,
): Promise<void> {
  for (const chunk of powerOfTwoChunks(rows, maxPerStatement)) {
    const query = compiledInsert(db, table, columns, chunk.length);
    const parameters: unknown[] = [];
    for (const row of chunk) {
      for (const column of columns) parameters.push((row as Record<string, unknown>)[column] ?? null);
    }
    await db.executeQuery({ ...query, parameters });
  }
}
