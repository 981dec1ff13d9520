import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/billing/accounts.js';
import { addPack, grantCredits } from '../src/billing/balances.js';
import { createKey } from '../src/billing/keys.js';
import {
  type ReserveRequest,
  releaseUnit,
  reserveLinked,
  type Trx,
  writeBatch,
} from '../src/billing/ledger.js';
import { openStore, type Store } from '../src/store/db.js';
import { DIALECTS, dropDatabase, freshDatabase } from './helpers/databases.js';

/*
 * The ledger's batch operations on a real database: several calls reserved in one transaction
 * draw exactly what the same calls would draw one at a time, across every boundary of the draw
 * order and of the key quotas, and commits of a batch bill each reservation once.
 */
describe.each(DIALECTS)('ledger batches on %s', (dialect) => {
  const database = freshDatabase(dialect);
  let store: Store;
  const now = new Date('2026-05-13T12:00:00Z');
  const HOLD_MS = 60_000;

  beforeAll(async () => {
    store = await openStore(database);
  });
  const reserve = async (requests: ReserveRequest[]) =>
    (await writeBatch(store.db, { commits: [], reserves: requests }, now, HOLD_MS)).reserved;
  const commit = async (ids: string[]) =>
    (await writeBatch(store.db, { commits: ids, reserves: [] }, now, HOLD_MS)).committed;
  afterAll(async () => {
    await store?.close();
    await dropDatabase(database);
  });

  async function account(slug: string, monthlyQuota: number | null) {
    const created = await createAccount(
      store.db,
      { name: slug, slug, monthlyQuota, billingAnchor: '2026-01-01T00:00:00Z' },
      now,
    );
    return created.id;
  }

  async function balances(accountId: string) {
    const { db } = store;
    const sub = await db
      .selectFrom('subscription_usage')
      .select('used')
      .where('account_id', '=', accountId)
      .execute();
    const packs = await db
      .selectFrom('packs')
      .select('used')
      .where('account_id', '=', accountId)
      .orderBy('purchased_at')
      .execute();
    const credits = await db
      .selectFrom('accounts')
      .select('credits_used')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const rows = await db
      .selectFrom('reservations')
      .select(['source', 'status'])
      .where('account_id', '=', accountId)
      .execute();
    return {
      subscription: sub.reduce((n, r) => n + r.used, 0),
      packs: packs.map((p) => p.used),
      credits: credits.credits_used,
      reserved: rows.filter((r) => r.status === 'reserved').length,
    };
  }

  it('draws subscription → pack 1 → pack 2 → credits within one batch, then refuses', async () => {
    const accountId = await account('batch-draw', 2);
    await addPack(store.db, { accountSlug: 'batch-draw', total: 2, purchasedAt: '2026-02-01' }, now);
    await addPack(store.db, { accountSlug: 'batch-draw', total: 1, purchasedAt: '2026-03-01' }, now);
    await grantCredits(store.db, { accountSlug: 'batch-draw', amount: 1 }, now);
    const { key } = await createKey(store.db, { accountSlug: 'batch-draw' }, now);
    const request: ReserveRequest = { accountId, keyId: key.id, engine: 'probe' };

    const results = await reserve(Array(8).fill(request));
    expect(results.map((r) => (r.ok ? r.reservation.source : r.reason))).toEqual([
      'subscription',
      'subscription',
      'pack',
      'pack',
      'pack',
      'credit',
      'insufficient',
      'insufficient',
    ]);
    expect(await balances(accountId)).toEqual({ subscription: 2, packs: [2, 1], credits: 1, reserved: 6 });
  });

  it('applies each key’s quotas per call, across keys and accounts in one batch', async () => {
    const first = await account('batch-a', 100);
    const second = await account('batch-b', 1);
    const tight = await createKey(store.db, { accountSlug: 'batch-a', quotas: { daily: 2 } }, now);
    const loose = await createKey(store.db, { accountSlug: 'batch-a' }, now);
    const other = await createKey(store.db, { accountSlug: 'batch-b' }, now);
    const a = (keyId: string): ReserveRequest => ({ accountId: first, keyId, engine: 'probe' });
    const b: ReserveRequest = { accountId: second, keyId: other.key.id, engine: 'probe' };

    const results = await reserve([
      a(tight.key.id),
      b,
      a(loose.key.id),
      a(tight.key.id),
      b,
      a(tight.key.id),
      a(loose.key.id),
    ]);
    const outcome = results.map((r) => (r.ok ? 'ok' : r.reason === 'quota' ? `quota ${r.quota}` : r.reason));
    expect(outcome).toEqual(['ok', 'ok', 'ok', 'ok', 'insufficient', 'quota daily', 'ok']);
    expect(results[5]).toMatchObject({ limit: 2, resetsAt: new Date('2026-05-14T00:00:00Z') });
    const used = await store.db
      .selectFrom('key_usage')
      .select(['key_id', 'window_kind', 'used'])
      .where('key_id', 'in', [tight.key.id, loose.key.id, other.key.id])
      .where('window_kind', '=', 'daily')
      .execute();
    expect(Object.fromEntries(used.map((u) => [u.key_id, u.used]))).toEqual({
      [tight.key.id]: 2,
      [loose.key.id]: 2,
      [other.key.id]: 1,
    });
    expect((await balances(first)).subscription).toBe(4);
    expect((await balances(second)).subscription).toBe(1);
  });

  it('commits earlier reservations and reserves new ones in one batch', async () => {
    const accountId = await account('batch-mixed', 2);
    const { key } = await createKey(store.db, { accountSlug: 'batch-mixed' }, now);
    const request: ReserveRequest = { accountId, keyId: key.id, engine: 'probe' };
    const [held] = await reserve([request]);
    if (!held?.ok) throw new Error('expected a reservation');
    const { committed, reserved } = await writeBatch(
      store.db,
      { commits: [held.reservation.id], reserves: [request, request] },
      now,
      HOLD_MS,
    );
    expect(committed).toEqual([true]);
    expect(reserved.map((r) => (r.ok ? r.reservation.source : r.reason))).toEqual([
      'subscription',
      'insufficient',
    ]);
    expect(await balances(accountId)).toMatchObject({ subscription: 2, reserved: 1 });
  });

  it('reserves a linked unit and writes its link in one transaction: neither without the other', async () => {
    const accountId = await account('batch-linked', 1);
    const { key } = await createKey(store.db, { accountSlug: 'batch-linked' }, now);
    const request: ReserveRequest = { accountId, keyId: key.id, engine: 'probe' };
    // A settings row stands in for the crawl page that notes its unit.
    const link = (write: boolean) => async (trx: Trx, id: string) => {
      if (!write) return false;
      await trx
        .insertInto('settings')
        .values({ key: `linked ${id}`, value: id })
        .execute();
      return true;
    };
    const links = async () =>
      (await store.db.selectFrom('settings').select('value').where('key', 'like', 'linked %').execute()).map(
        (row) => row.value,
      );

    // The link finds nothing to write: nothing is reserved.
    expect(await reserveLinked(store.db, request, link(false), now, HOLD_MS)).toEqual({
      ok: false,
      reason: 'unlinked',
    });
    expect(await balances(accountId)).toMatchObject({ subscription: 0, reserved: 0 });

    // Both are written, under the same id.
    const held = await reserveLinked(store.db, request, link(true), now, HOLD_MS);
    if (!held.ok) throw new Error('expected a reservation');
    expect(await links()).toEqual([held.reservation.id]);
    expect(await balances(accountId)).toMatchObject({ subscription: 1, reserved: 1 });

    // The balance is spent: the refusal rolls the link back.
    expect(await reserveLinked(store.db, request, link(true), now, HOLD_MS)).toEqual({
      ok: false,
      reason: 'insufficient',
    });
    expect(await links()).toEqual([held.reservation.id]);
    expect(await balances(accountId)).toMatchObject({ subscription: 1, reserved: 1 });
  });

  it('reserves units with links to new rows in one batch: each written with its unit, or neither', async () => {
    const accountId = await account('batch-links', 1);
    await addPack(store.db, { accountSlug: 'batch-links', total: 1, purchasedAt: '2026-02-01' }, now);
    const { key } = await createKey(store.db, { accountSlug: 'batch-links' }, now);
    // A settings row stands in for the job row that a submission writes with its unit.
    const request = (write: boolean | 'throw'): ReserveRequest => ({
      accountId,
      keyId: key.id,
      engine: 'probe',
      link: async (trx, id) => {
        if (write === 'throw') throw new Error('the row cannot be written');
        if (!write) return false;
        await trx
          .insertInto('settings')
          .values({ key: `batch-link ${id}`, value: id })
          .execute();
        return true;
      },
    });
    const links = async () =>
      (
        await store.db.selectFrom('settings').select('value').where('key', 'like', 'batch-link %').execute()
      ).map((row) => row.value);

    // A link that throws fails the whole batch: nothing of it is written.
    await expect(reserve([request(true), request('throw')])).rejects.toThrow('the row cannot be written');
    expect(await links()).toEqual([]);
    expect(await balances(accountId)).toMatchObject({ subscription: 0, packs: [0], reserved: 0 });

    // The unit a link that wrote nothing would have drawn goes to the next request; a refused
    // request writes no link.
    const results = await reserve([request(true), request(false), request(true), request(true)]);
    expect(results.map((r) => (r.ok ? r.reservation.source : r.reason))).toEqual([
      'subscription',
      'unlinked',
      'pack',
      'insufficient',
    ]);
    const ids = results.flatMap((r) => (r.ok ? [r.reservation.id] : []));
    expect((await links()).sort()).toEqual(ids.sort());
    expect(await balances(accountId)).toEqual({ subscription: 1, packs: [1], credits: 0, reserved: 2 });
  });

  it('bills a settled request at once: no reservation is left held, and a commit of it bills nothing more', async () => {
    const accountId = await account('batch-settled', 1);
    const { key } = await createKey(store.db, { accountSlug: 'batch-settled' }, now);
    const request: ReserveRequest = { accountId, keyId: key.id, engine: 'probe', settled: true };
    const [charged, refused] = await reserve([request, request]);
    if (!charged?.ok) throw new Error('expected a charge');
    expect(refused).toEqual({ ok: false, reason: 'insufficient' });
    const row = await store.db
      .selectFrom('reservations')
      .select(['status', 'settled_at'])
      .where('id', '=', charged.reservation.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'committed', settled_at: now.toISOString() });
    expect(await commit([charged.reservation.id])).toEqual([false]);
    expect(await balances(accountId)).toEqual({ subscription: 1, packs: [], credits: 0, reserved: 0 });
  });

  it('commits each reservation of a batch once; a released one is not billed', async () => {
    const accountId = await account('batch-commit', 10);
    const { key } = await createKey(store.db, { accountSlug: 'batch-commit' }, now);
    const request: ReserveRequest = { accountId, keyId: key.id, engine: 'probe' };
    const [r1, r2, r3] = await reserve([request, request, request]);
    if (!r1?.ok || !r2?.ok || !r3?.ok) throw new Error('expected three reservations');
    const [id1, id2, id3] = [r1.reservation.id, r2.reservation.id, r3.reservation.id];
    expect(await releaseUnit(store.db, id3, now)).toBe(true);
    expect(await commit([id1, id2, id1, id3])).toEqual([true, true, false, false]);
    expect(await commit([id2])).toEqual([false]);
    const statuses = await store.db
      .selectFrom('reservations')
      .select(['id', 'status'])
      .where('account_id', '=', accountId)
      .execute();
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.status]))).toEqual({
      [id1]: 'committed',
      [id2]: 'committed',
      [id3]: 'released',
    });
    expect((await balances(accountId)).subscription).toBe(2);
  });
});
