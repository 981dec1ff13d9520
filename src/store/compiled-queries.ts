import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/** What is kept per dialect (its adapter) and shape: a compiled statement, and how to bind it. */
const compiledQueries = new WeakMap<object, Map<string, unknown>>();

function kept<T>(db: Kysely<DatabaseSchema>, shape: string, make: () => T): T {
  const adapter = db.getExecutor().adapter;
  let byShape = compiledQueries.get(adapter);
  if (byShape === undefined) {
    byShape = new Map();
    compiledQueries.set(adapter, byShape);
  }
  if (!byShape.has(shape)) byShape.set(shape, make());
  return byShape.get(shape) as T;
}

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
  return kept(db, shape, compile);
}

/** A compiled statement, and for each of its parameters the argument bound there (-1: a constant of the text). */
interface Bound<R> {
  readonly query: CompiledQuery<R>;
  readonly slots: readonly number[];
}

/**
 * A query that `build` makes from its arguments, compiled once per dialect (compiledOnce) and
 * then run with each call's arguments bound in their places. `build` must make the same text
 * whatever the arguments: an argument may be a value only, never choose a clause or a list's
 * length. It is built once with a placeholder for each argument, and a placeholder missing from
 * the compiled parameters (the value turned into text) is an error.
 */
export function reusableQuery<A extends readonly unknown[], R>(
  shape: string,
  build: (db: Kysely<DatabaseSchema>, ...args: A) => Compilable<R>,
): (db: Kysely<DatabaseSchema>, ...args: A) => Promise<QueryResult<R>> {
  return async (db, ...args) => {
    const { query, slots } = kept(db, shape, (): Bound<R> => {
      const placeholders = args.map((_, i) => `\u0000${shape}\u0000${i}`);
      const query = build(db, ...(placeholders as unknown as A)).compile();
      const slots = query.parameters.map((parameter) => placeholders.indexOf(parameter as string));
      if (placeholders.some((_, i) => !slots.includes(i))) {
        throw new Error(`every argument of the query "${shape}" must be a bound parameter`);
      }
      return { query, slots };
    });
    const parameters = query.parameters.map((constant, i) => {
      const slot = slots[i] as number;
      return slot === -1 ? constant : args[slot];
    });
    return db.executeQuery<R>({ ...query, parameters });
  };
}
