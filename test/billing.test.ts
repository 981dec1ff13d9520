import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/billing/accounts.js';
import { addPack, grantCredits } from '../src/billing/balances.js';
import { createKey } from '../src/billing/keys.js';
import { WebcapError } from '../src/errors.js';
import { DIALECTS } from './helpers/databases.js';
import { meteredProbe, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * Billing through HTTP. A probe route stands in for an engine and goes through the real
 * metering path; `?fail=400|500` makes its work fail after the unit was reserved.
 */
describe.each(DIALECTS)('billing on %s', (dialect) => {
  let t: TestRuntime;
  const now = new Date('2026-05-10T12:00:00Z');

  beforeAll(async () => {
    t = await startTestRuntime(dialect, { clock: () => now });
    const { app } = t.runtime;
    app.get<{ Querystring: { fail?: string } }>(
      '/v1/billable',
      { config: { auth: 'v1', engine: 'probe' } },
      (request) =>
        meteredProbe(t, request, async () => {
          if (request.query.fail === '400') throw new WebcapError('bad_request', 'probe failed');
          if (request.query.fail === '500') throw new Error('engine crashed');
          return { ok: true };
        }),
    );
  });
  afterAll(() => t?.close());

  async function newKey(slug: string, monthlyQuota: number | null) {
    const { db } = t.runtime.store;
    await createAccount(db, { name: slug, slug, monthlyQuota, billingAnchor: '2026-01-01T00:00:00Z' }, now);
    return (await createKey(db, { accountSlug: slug, alias: 'k' }, now)).plaintext;
  }
  const call = (key: string, query = '') =>
    t.runtime.app.inject({ url: `/v1/billable${query}`, headers: { 'x-api-key': key } });
  const usage = async (key: string) =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json();

  it('draws subscription → pack 1 → pack 2 → credits, then answers 402', async () => {
    const { db } = t.runtime.store;
    const key = await newKey('draw', 2);
    const p1 = await addPack(
      db,
      { accountSlug: 'draw', total: 2, title: 'first', purchasedAt: '2026-02-01' },
      now,
    );
    const p2 = await addPack(
      db,
      { accountSlug: 'draw', total: 1, title: 'second', purchasedAt: '2026-03-01' },
      now,
    );
    await grantCredits(db, { accountSlug: 'draw', amount: 1 }, now);

    const pack = (p: typeof p1, used: number) => ({
      id: p.id,
      title: p.title,
      purchased_at: p.purchasedAt,
      total: p.total,
      used,
      remaining: p.total - used,
      percent_used: Math.round((used / p.total) * 10000) / 100,
      exhausted: used >= p.total,
    });
    const expected = (sub: number, u1: number, u2: number, credits: number) => {
      const items = [pack(p1, u1), pack(p2, u2)];
      const current = items.findIndex((p) => !p.exhausted);
      const used = sub + u1 + u2;
      return {
        remaining: 2 + 3 - used + (1 - credits),
        total_used: used + credits,
        renewal_date: '2026-06-01T00:00:00.000Z',
        period: { start: '2026-05-01T00:00:00.000Z', end: '2026-06-01T00:00:00.000Z' },
        subscription: { used, total: 5, remaining: 5 - used, percent_used: (used / 5) * 100 },
        credits: { given: 1, consumed: credits, remaining: 1 - credits, percent_used: credits * 100 },
        rate_limit: { per_minute: null, per_second: null },
        account: { name: 'draw', slug: 'draw' },
        api_key: {
          alias: 'k',
          active: true,
          category: 'development',
          expires: null,
          quotas: { total: null, daily: null, weekly: null, monthly: null },
        },
        packs: {
          count: 2,
          exhausted_count: items.filter((p) => p.exhausted).length,
          all_exhausted: current === -1,
          total: 3,
          used: u1 + u2,
          remaining: 3 - u1 - u2,
          percent_used: Math.round(((u1 + u2) / 3) * 10000) / 100,
          current_index: current,
          current: current === -1 ? null : items[current],
          items,
        },
      };
    };

    expect(await usage(key)).toEqual(expected(0, 0, 0, 0));
    const steps: [number, number, number, number][] = [
      [1, 0, 0, 0],
      [2, 0, 0, 0],
      [2, 1, 0, 0],
      [2, 2, 0, 0],
      [2, 2, 1, 0],
      [2, 2, 1, 1],
    ];
    for (const step of steps) {
      const res = await call(key);
      expect(res.statusCode).toBe(200);
      expect(await usage(key)).toEqual(expected(...step));
    }
    const refused = await call(key);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error).toMatch(/^Insufficient credits: /);
    expect(await usage(key)).toEqual(expected(2, 2, 1, 1));
  });

  it('reports packs as null without packs, and a pack-only account as the sum of its packs', async () => {
    const { db } = t.runtime.store;
    const plain = await newKey('plain', 10);
    expect((await usage(plain)).packs).toBeNull();

    const packOnly = await newKey('packonly', null);
    await addPack(db, { accountSlug: 'packonly', total: 3 }, now);
    await addPack(db, { accountSlug: 'packonly', total: 4 }, now);
    await call(packOnly);
    const record = await usage(packOnly);
    expect(record.subscription).toEqual({ used: 1, total: 7, remaining: 6, percent_used: 14.29 });
    expect(record.remaining).toBe(6);
  });

  it('never bills a failing call (400 or 500)', async () => {
    const key = await newKey('fails', 1);
    const bad = await call(key, '?fail=400');
    expect(bad.statusCode).toBe(400);
    const crash = await call(key, '?fail=500');
    expect(crash.statusCode).toBe(500);
    expect(crash.json()).toEqual({ error: 'Internal Error' });
    expect((await usage(key)).remaining).toBe(1);
    expect((await call(key)).statusCode).toBe(200);
    expect((await usage(key)).remaining).toBe(0);
  });

  it('100 concurrent calls against a balance of 10: exactly 10 succeed, 90 get 402', async () => {
    const key = await newKey('race', 4);
    await addPack(t.runtime.store.db, { accountSlug: 'race', total: 3 }, now);
    await grantCredits(t.runtime.store.db, { accountSlug: 'race', amount: 3 }, now);
    const results = await Promise.all(Array.from({ length: 100 }, () => call(key)));
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(90);
    const record = await usage(key);
    expect(record.remaining).toBe(0);
    expect(record.total_used).toBe(10);
    const committed = await t.runtime.store.db
      .selectFrom('reservations')
      .innerJoin('accounts', 'accounts.id', 'reservations.account_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('accounts.slug', '=', 'race')
      .where('reservations.status', '=', 'committed')
      .executeTakeFirstOrThrow();
    expect(Number(committed.n)).toBe(10);
  });
});
