import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reusableQuery } from '../src/store/compiled-queries.js';
import { openStore, type Store } from '../src/store/db.js';
import { DIALECTS, dropDatabase, freshDatabase } from './helpers/databases.js';

/*
 * A reusable query, compiled once per dialect, runs with each call's own arguments in their
 * places (one argument bound twice, the text's constants kept), inside a transaction as outside
 * one; a builder that puts an argument into the text is refused.
 */
describe.each(DIALECTS)('reusable queries on %s', (dialect) => {
  const MINUTE = '2026-11-30T10:00:00Z';
  const counts = { path: '/v1/capture', failures: 0, duration_sum_ms: 0, duration_count: 0 };
  const database = freshDatabase(dialect);
  let store: Store;

  beforeAll(async () => {
    store = await openStore(database);
    await store.db
      .insertInto('request_stats')
      .values([
        { ...counts, minute: MINUTE, engine: 'capture', requests: 3 },
        { ...counts, minute: '2026-11-30T10:01:00Z', engine: 'capture', requests: 7 },
        { ...counts, minute: MINUTE, engine: 'content', requests: 5 },
      ])
      .execute();
  });
  afterAll(async () => {
    await store?.close();
    await dropDatabase(database);
  });

  const addUse = reusableQuery('test: add use', (db, engine: string, delta: number) =>
    db
      .insertInto('request_stats')
      .values({ ...counts, minute: MINUTE, engine, requests: delta })
      .onConflict((oc) =>
        oc
          .columns(['minute', 'engine', 'path'])
          .doUpdateSet((eb) => ({ requests: eb('request_stats.requests', '+', delta) })),
      ),
  );
  const minuteUse = reusableQuery('test: use in the minute', (db, engine: string) =>
    db
      .selectFrom('request_stats')
      .select(['engine', 'requests'])
      .where('engine', '=', engine)
      .where('minute', '=', MINUTE),
  );

  it('binds each call’s arguments, and keeps the constants of the text', async () => {
    expect((await minuteUse(store.db, 'capture')).rows).toEqual([{ engine: 'capture', requests: 3 }]);
    expect((await minuteUse(store.db, 'content')).rows).toEqual([{ engine: 'content', requests: 5 }]);
    expect((await minuteUse(store.db, 'map')).rows).toEqual([]);
    await addUse(store.db, 'capture', 4);
    await addUse(store.db, 'map', 2);
    expect((await minuteUse(store.db, 'capture')).rows).toEqual([{ engine: 'capture', requests: 7 }]);
    expect((await minuteUse(store.db, 'map')).rows).toEqual([{ engine: 'map', requests: 2 }]);
    const later = await store.db
      .selectFrom('request_stats')
      .select('requests')
      .where('minute', '=', '2026-11-30T10:01:00Z')
      .executeTakeFirst();
    expect(later).toEqual({ requests: 7 });
  });

  it('runs in the caller’s transaction, and writes nothing when it rolls back', async () => {
    await expect(
      store.db.transaction().execute(async (trx) => {
        await addUse(trx, 'content', 10);
        expect((await minuteUse(trx, 'content')).rows).toEqual([{ engine: 'content', requests: 15 }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await minuteUse(store.db, 'content')).rows).toEqual([{ engine: 'content', requests: 5 }]);
  });

  it('refuses a builder that puts an argument into the text', async () => {
    const inText = reusableQuery('test: argument in the text', (db, column: string) =>
      db.selectFrom('request_stats').select(sql.ref(column).as('value')),
    );
    await expect(inText(store.db, 'requests')).rejects.toThrow(/must be a bound parameter/);
  });
});
