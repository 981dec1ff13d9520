import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, updateAccount } from '../src/billing/accounts.js';
import { createKey } from '../src/billing/keys.js';
import { WebcapError } from '../src/errors.js';
import { DIALECTS } from './helpers/databases.js';
import { meteredProbe, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * Per-key quota windows, per-account caps, billing-period rollover and the request log,
 * through HTTP with a clock the test moves. The probe route goes through the real metering
 * path; `?fail=400` makes its work fail after the unit was reserved.
 */
describe.each(DIALECTS)('billing limits on %s', (dialect) => {
  let t: TestRuntime;
  let now = new Date('2026-05-13T12:00:00Z'); // a Wednesday

  beforeAll(async () => {
    t = await startTestRuntime(dialect, { clock: () => now });
    const { app } = t.runtime;
    app.get<{ Querystring: { fail?: string } }>(
      '/v1/billable',
      { config: { auth: 'v1', engine: 'probe' } },
      (request) =>
        meteredProbe(t, request, async () => {
          if (request.query.fail === '400') throw new WebcapError('bad_request', 'probe failed');
          return { ok: true };
        }),
    );
  });
  afterAll(() => t?.close());

  async function newKey(
    slug: string,
    options: {
      monthlyQuota?: number;
      anchor?: string;
      quotas?: Partial<Record<'total' | 'daily' | 'weekly' | 'monthly', number>>;
      perSecond?: number;
      perMinute?: number;
    } = {},
  ) {
    const { db } = t.runtime.store;
    await createAccount(
      db,
      {
        name: slug,
        slug,
        monthlyQuota: options.monthlyQuota ?? 1000,
        billingAnchor: options.anchor ?? '2026-01-01T00:00:00Z',
        perSecond: options.perSecond,
        perMinute: options.perMinute,
      },
      now,
    );
    return (await createKey(db, { accountSlug: slug, alias: 'k', quotas: options.quotas }, now)).plaintext;
  }
  const call = (key: string, query = '') =>
    t.runtime.app.inject({ url: `/v1/billable${query}`, headers: { 'x-api-key': key } });
  /** A refused call's status and `{"error"}` message. */
  const refusal = async (key: string, query = '') => {
    const res = await call(key, query);
    return [res.statusCode, res.json().error];
  };
  const NO_UNITS = 'Insufficient credits: no subscription quota, pack or credits left; add a pack or credits';
  const usage = async (key: string) =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json();

  async function expectRateLimited(key: string, quota: string, retryAfter: number | undefined) {
    const res = await call(key);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: `Rate limit exceeded for the API key: quota ${quota}` });
    expect(res.headers['retry-after']).toBe(retryAfter === undefined ? undefined : String(retryAfter));
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    return res;
  }

  describe('key quota windows (UTC calendar)', () => {
    it('daily: resets at the next UTC midnight', async () => {
      now = new Date('2026-05-13T22:00:00Z');
      const key = await newKey('q-daily', { quotas: { daily: 2 } });
      expect((await call(key)).statusCode).toBe(200);
      expect((await call(key)).statusCode).toBe(200);
      const res = await expectRateLimited(key, 'daily', 2 * 3600);
      expect(res.headers['x-ratelimit-limit']).toBe('2');
      expect(res.headers['x-ratelimit-reset']).toBe(String(2 * 3600));
      now = new Date('2026-05-13T23:59:59Z');
      await expectRateLimited(key, 'daily', 1);
      now = new Date('2026-05-14T00:00:00Z');
      expect((await call(key)).statusCode).toBe(200);
    });

    it('weekly: an ISO week from Monday 00:00 UTC', async () => {
      now = new Date('2026-05-13T12:00:00Z');
      const key = await newKey('q-weekly', { quotas: { weekly: 1 } });
      expect((await call(key)).statusCode).toBe(200);
      now = new Date('2026-05-17T23:00:00Z'); // Sunday, same week
      await expectRateLimited(key, 'weekly', 3600);
      now = new Date('2026-05-18T00:00:00Z'); // Monday
      expect((await call(key)).statusCode).toBe(200);
    });

    it('monthly: a calendar month, whatever the billing anchor', async () => {
      now = new Date('2026-05-31T23:00:00Z');
      const key = await newKey('q-monthly', { quotas: { monthly: 1 }, anchor: '2026-01-15T00:00:00Z' });
      expect((await call(key)).statusCode).toBe(200);
      await expectRateLimited(key, 'monthly', 3600);
      now = new Date('2026-06-01T00:00:00Z');
      expect((await call(key)).statusCode).toBe(200);
    });

    it('total: never resets, so there is no Retry-After', async () => {
      now = new Date('2026-05-13T12:00:00Z');
      const key = await newKey('q-total', { quotas: { total: 1 } });
      expect((await call(key)).statusCode).toBe(200);
      await expectRateLimited(key, 'total', undefined);
      now = new Date('2027-05-13T12:00:00Z');
      await expectRateLimited(key, 'total', undefined);
    });

    it('counts only billed calls: a failed call leaves the quota as it was', async () => {
      now = new Date('2026-05-13T12:00:00Z');
      const key = await newKey('q-failed', { quotas: { daily: 1 } });
      expect(await refusal(key, '?fail=400')).toEqual([400, 'Bad Request: probe failed']);
      expect((await call(key)).statusCode).toBe(200);
      await expectRateLimited(key, 'daily', 12 * 3600);
    });

    it('a quota hit is not billed and the call is not run', async () => {
      now = new Date('2026-05-13T12:00:00Z');
      const key = await newKey('q-unbilled', { quotas: { total: 1 } });
      await call(key);
      await expectRateLimited(key, 'total', undefined);
      expect((await usage(key)).total_used).toBe(1);
    });
  });

  describe('account caps', () => {
    it('per_second: the next call past the cap is refused until the second is over', async () => {
      now = new Date('2026-05-13T12:00:00Z');
      const key = await newKey('cap-second', { perSecond: 2 });
      expect((await call(key)).statusCode).toBe(200);
      now = new Date('2026-05-13T12:00:00.600Z');
      expect((await call(key)).statusCode).toBe(200);
      const res = await expectRateLimited(key, 'per_second', 1);
      expect(res.headers['x-ratelimit-limit']).toBe('2');
      expect(res.headers['x-ratelimit-reset']).toBe('1');
      // The window began with the first call: it is still full 999 ms later, and free at 1 s.
      now = new Date('2026-05-13T12:00:00.999Z');
      await expectRateLimited(key, 'per_second', 1);
      now = new Date('2026-05-13T12:00:01Z');
      expect((await call(key)).statusCode).toBe(200);
      expect((await usage(key)).total_used).toBe(3);
    });

    it('per_minute: refused with a Retry-After within the minute', async () => {
      const key = await newKey('cap-minute', { perMinute: 3 });
      for (let i = 0; i < 3; i++) expect((await call(key)).statusCode).toBe(200);
      const res = await call(key);
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('Rate limit exceeded for the API key: quota per_minute');
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['x-ratelimit-reset']).toBe(String(retryAfter));
    });

    it('a call that is not billed gives its slot back', async () => {
      const key = await newKey('cap-giveback', { perMinute: 1 });
      expect(await refusal(key, '?fail=400')).toEqual([400, 'Bad Request: probe failed']);
      expect((await call(key)).statusCode).toBe(200);
      expect(await refusal(key)).toEqual([401, 'Rate limit exceeded for the API key: quota per_minute']);
    });

    it('follows a cap changed by the operator at once', async () => {
      const key = await newKey('cap-change', { perMinute: 1 });
      expect((await call(key)).statusCode).toBe(200);
      expect(await refusal(key)).toEqual([401, 'Rate limit exceeded for the API key: quota per_minute']);
      await updateAccount(t.runtime.store.db, 'cap-change', { perMinute: null }, now);
      expect((await call(key)).statusCode).toBe(200);
    });
  });

  it('rolls the subscription quota over at the anchor each month', async () => {
    now = new Date('2026-05-20T08:00:00Z');
    const key = await newKey('rollover', { monthlyQuota: 2, anchor: '2026-01-15T09:30:00Z' });
    expect((await call(key)).statusCode).toBe(200);
    expect((await call(key)).statusCode).toBe(200);
    expect(await refusal(key)).toEqual([402, NO_UNITS]);
    const before = await usage(key);
    expect(before.period).toEqual({ start: '2026-05-15T09:30:00.000Z', end: '2026-06-15T09:30:00.000Z' });
    expect(before.renewal_date).toBe('2026-06-15T09:30:00.000Z');
    expect(before.remaining).toBe(0);

    now = new Date('2026-06-15T09:29:59Z');
    expect(await refusal(key)).toEqual([402, NO_UNITS]);
    now = new Date('2026-06-15T09:30:00Z');
    const after = await usage(key);
    expect(after.period).toEqual({ start: '2026-06-15T09:30:00.000Z', end: '2026-07-15T09:30:00.000Z' });
    expect(after.renewal_date).toBe('2026-07-15T09:30:00.000Z');
    expect(after.subscription).toEqual({ used: 0, total: 2, remaining: 2, percent_used: 0 });
    expect(after.total_used).toBe(0);
    expect((await call(key)).statusCode).toBe(200);
    expect((await usage(key)).remaining).toBe(1);
  });

  it('logs every authenticated call with engine, path, status and whether it was billed', async () => {
    now = new Date('2026-05-13T12:00:00Z');
    const key = await newKey('logged', { monthlyQuota: 1 });
    await call(key, '?fail=400');
    await call(key, '?x=1');
    await call(key);
    await usage(key);
    const { db } = t.runtime.store;
    const rows = await vi.waitFor(
      async () => {
        const found = await db
          .selectFrom('request_log')
          .innerJoin('accounts', 'accounts.id', 'request_log.account_id')
          .select(['engine', 'path', 'status', 'billed', 'duration_ms', 'key_id'])
          .where('accounts.slug', '=', 'logged')
          .execute();
        if (found.length < 4) throw new Error(`only ${found.length} rows so far`);
        return found;
      },
      { timeout: HANG_MS, interval: 100 },
    );
    // The clock stands still in this test, so rows are compared as a set.
    const seen = rows.map((r) => `${r.engine} ${r.path} ${r.status} billed=${Number(r.billed)}`).sort();
    expect(seen).toEqual([
      'probe /v1/billable 200 billed=1',
      'probe /v1/billable 400 billed=0',
      'probe /v1/billable 402 billed=0',
      'usage /v1/usage 200 billed=0',
    ]);
    for (const row of rows) {
      expect(row.duration_ms).toBeGreaterThanOrEqual(0);
      expect(row.key_id).toMatch(/^key_/);
    }
  });
});
