import { type RawBuilder, sql } from 'kysely';
import { invalidParam } from '../errors.js';

/** Which page of a list, newest first: at most `limit` rows older than the `before` cursor. */
export interface PageRequest {
  readonly limit: number;
  /** The `next` of the previous page; absent for the first. */
  readonly before?: string;
}

/** A page of a list, newest first, and the cursor of the next one (null on the last). */
export interface Page<T> {
  readonly items: T[];
  readonly next: string | null;
}

/** Where a page ends: the time and id of its last row (ids break ties between rows of one instant). */
interface Cursor {
  readonly at: string;
  readonly id: string;
}

const SEPARATOR = '\n';

function encode(cursor: Cursor): string {
  return Buffer.from(`${cursor.at}${SEPARATOR}${cursor.id}`).toString('base64url');
}

/** The cursor a caller sent back, or a 400 naming `before` when it is not one of ours. */
function decode(raw: string): Cursor {
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const [at, id, ...rest] = text.split(SEPARATOR);
  if (at === undefined || id === undefined || rest.length > 0 || Number.isNaN(Date.parse(at)) || id === '') {
    throw invalidParam('before', 'is not the next of a page of this list');
  }
  return { at, id };
}

/**
 * The condition "older than the page's cursor" on a time column and an id column, for keyset
 * paging (`order by at desc, id desc`): no offset, so a page costs the same however deep it is.
 */
export function olderThan(atColumn: string, idColumn: string, before: string): RawBuilder<boolean> {
  const { at, id } = decode(before);
  const atRef = sql.ref(atColumn);
  return sql<boolean>`(${atRef} < ${at} or (${atRef} = ${at} and ${sql.ref(idColumn)} < ${id}))`;
}

/**
 * The page of rows read with `limit + 1`: the extra row, when there is one, says that a next page
 * exists; the cursor is the last row kept.
 */
export function pageOf<R, T>(
  rows: readonly R[],
  limit: number,
  position: (row: R) => Cursor,
  item: (row: R) => T,
): Page<T> {
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return {
    items: kept.map(item),
    next: rows.length > limit && last !== undefined ? encode(position(last)) : null,
  };
}
