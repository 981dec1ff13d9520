import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_LOG_COLUMNS } from '../src/stats/request-log.js';
import { openStore, type Store } from '../src/store/db.js';
import { insertRows } from '../src/store/row-inserts.js';
import type { RequestLogTable } from '../src/store/schema.js';
import { DIALECTS, dropDatabase, freshDatabase } from './helpers/databases.js';

function row(i: number): RequestLogTable {
  return {
    id: `req_${String(i).padStart(6, '0')}`,
    account_id: `acc_${i % 3}`,
    key_id: `key_${i % 5}`,
    engine: i % 2 === 0 ? 'capture' : 'content',
    path: '/v1/capture',
    status: 200 + (i % 4),
    duration_ms: i,
    billed: i % 2,
    created_at: new Date(Date.UTC(2026, 10, 30, 0, 0, i)).toISOString(),
    target_url: i % 7 === 0 ? null : `https://example.com/${i}?q='"%`,
    error: i % 11 === 0 ? `failed: it's "${i}"` : null,
  };
}

/*
 * Compiled multi-row inserts write exactly the rows given, each value in its column, on both
 * dialects, in every chunk shape, and inside a transaction as outside one.
 */
describe.each(DIALECTS)('row inserts on %s', (dialect) => {
  const database = freshDatabase(dialect);
  let store: Store;

  beforeAll(async () => {
    store = await openStore(database);
  });
  afterAll(async () => {
    await store?.close();
    await dropDatabase(database);
  });

  const stored = () => store.db.selectFrom('request_log').selectAll().orderBy('id').execute();

  it('writes every row of every chunk, each value in its column', async () => {
    await store.db.deleteFrom('request_log').execute();
    const rows = Array.from({ length: 75 }, (_, i) => row(i));
    await insertRows(store.db, 'request_log', REQUEST_LOG_COLUMNS, rows, 32);
    // 75 rows go in five statements (32, 32, 8, 2 and 1 rows); the second call reuses their texts.
    await insertRows(
      store.db,
      'request_log',
      REQUEST_LOG_COLUMNS,
      Array.from({ length: 75 }, (_, i) => row(i + 100)),
      32,
    );
    expect(await stored()).toEqual([...rows, ...Array.from({ length: 75 }, (_, i) => row(i + 100))]);
  });

  it('writes in the caller’s transaction, and nothing when it rolls back', async () => {
    await store.db.deleteFrom('request_log').execute();
    await store.db
      .transaction()
      .execute((trx) => insertRows(trx, 'request_log', REQUEST_LOG_COLUMNS, [row(1), row(2), row(3)], 64));
    await expect(
      store.db.transaction().execute(async (trx) => {
        await insertRows(trx, 'request_log', REQUEST_LOG_COLUMNS, [row(4)], 64);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await stored()).toEqual([row(1), row(2), row(3)]);
  });

  it('writes nothing for no rows', async () => {
    await store.db.deleteFrom('request_log').execute();
    await insertRows(store.db, 'request_log', REQUEST_LOG_COLUMNS, [], 64);
    expect(await stored()).toEqual([]);
  });
});
