import type { CompiledQuery, Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/** Compiled statements, per dialect (its adapter) and shape. */
const compiledQueries = new WeakMap<object, Map<string, CompiledQuery>>();

/**
 * The statement `shape` names, compiled by `compile` the first time it is asked for in `db`'s
 * dialect and kept: Kysely builds and compiles a query anew on every call, which on the hot path
 * can cost more than the database's own work. `shape` must name everything the text depends on
 * but the bound values. A database and its transactions share one adapter, so a statement
 * compiled outside a transaction serves inside one too.
 */
export function compiledOnce<R>(
  db: Kysely<DatabaseSchema>,
  shape: string,
  compile: () => CompiledQuery<R>,
): CompiledQuery<R> {
  const adapter = db.getExecutor().adapter;
  let compiled = compiledQueries.get(adapter);
  if (compiled === undefined) {
    compiled = new Map();
    compiledQueries.set(adapter, compiled);
  }
  let query = compiled.get(shape) as CompiledQuery<R> | undefined;
  if (query === undefined) {
    query = compile();
    compiled.set(shape, query);
  }
  return query;
}
