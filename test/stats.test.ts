import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/billing/accounts.js';
import { createKey } from '../src/billing/keys.js';
import { RequestLog, type RequestLogEntry } from '../src/stats/request-log.js';
import { pruneRequestLog } from '../src/stats/snapshot.js';
import { DIALECTS } from './helpers/databases.js';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * GET /v1/stats against a controlled request log, on SQLite and PostgreSQL: rows are written
 * through the service's own RequestLog (as every call writes them), at times the test chooses,
 * and the snapshot is read through HTTP with a clock the test holds still.
 */

const NOW = new Date('2026-11-23T12:30:30.000Z');

describe.each(DIALECTS)('GET /v1/stats on %s', (dialect) => {
  let t: TestRuntime;
  let withStats: string;
  let withStats2: string;
  let withoutStats: string;

  /** Writes rows as every call does, through a RequestLog on the service's database. */
  const log = async (entries: readonly Partial<RequestLogEntry>[]) => {
    const writer = new RequestLog(t.runtime.store.db, t.runtime.logger);
    for (const entry of entries) {
      writer.record({
        account_id: 'acct_other',
        key_id: 'key_other',
        engine: 'capture',
        path: '/v1/capture',
        status: 200,
        duration_ms: 1000,
        billed: 1,
        created_at: new Date(NOW.getTime() - 60_000).toISOString(),
        target_url: null,
        error: null,
        ...entry,
      });
    }
    await writer.close();
  };
  const times = (n: number, entry: Partial<RequestLogEntry>) => Array.from({ length: n }, () => entry);
  const stats = (query: string, key = withStats) =>
    t.runtime.app.inject({ url: `/v1/stats?${query}`, headers: { 'x-api-key': key } });

  beforeAll(async () => {
    t = await startTestRuntime(dialect, { clock: () => new Date(NOW) });
    const { db } = t.runtime.store;
    await createAccount(db, { name: 'a', slug: 'a', monthlyQuota: 10, statsEnabled: true }, NOW);
    await createAccount(db, { name: 'b', slug: 'b', monthlyQuota: 10, statsEnabled: true }, NOW);
    await createAccount(db, { name: 'c', slug: 'c', monthlyQuota: 10 }, NOW);
    withStats = (await createKey(db, { accountSlug: 'a' }, NOW)).plaintext;
    withStats2 = (await createKey(db, { accountSlug: 'b' }, NOW)).plaintext;
    withoutStats = (await createKey(db, { accountSlug: 'c' }, NOW)).plaintext;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('with no traffic: operational, 100 % by the smoothing, 0 ms', async () => {
    const res = await stats('engine=content');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      engine: 'content',
      path: null,
      health: 'operational',
      success_rate: 100,
      avg_response_time_ms: 0,
      window: '1h',
    });
  });

  it('classifies health at the spec thresholds, with the smoothing, per path and per engine', async () => {
    await log([
      // /v1/capture: 90 calls, 10 failures: (80 + 10) / (90 + 10) = 90 % exactly.
      ...times(80, { path: '/v1/capture' }),
      ...times(10, { path: '/v1/capture', status: 500 }),
      // /capture: 11 failures: 89 %.
      ...times(79, { path: '/capture' }),
      ...times(11, { path: '/capture', status: 503 }),
      // /v1/content: 50 % exactly; /content: 49 %.
      ...times(40, { engine: 'content', path: '/v1/content' }),
      ...times(50, { engine: 'content', path: '/v1/content', status: 500 }),
      ...times(39, { engine: 'content', path: '/content' }),
      ...times(51, { engine: 'content', path: '/content', status: 504 }),
    ]);
    const expectations: [string, string, number][] = [
      ['path=/v1/capture', 'operational', 90],
      ['path=/capture', 'degraded', 89],
      ['path=/v1/content', 'degraded', 50],
      ['path=/content', 'down', 49],
      // Both capture paths: (159 + 10) / (180 + 10) = 88.947...
      ['engine=capture', 'degraded', 88.95],
    ];
    for (const [query, health, rate] of expectations) {
      const res = await stats(query);
      expect(res.statusCode, query).toBe(200);
      expect(res.json(), query).toMatchObject({ health, success_rate: rate });
    }
    expect((await stats('engine=capture&path=/capture')).json()).toEqual({
      engine: 'capture',
      path: '/capture',
      health: 'degraded',
      success_rate: 89,
      avg_response_time_ms: 1000,
      window: '1h',
    });
  });

  it('counts only 5xx as failures; one failure in a quiet hour is smoothed', async () => {
    await log([
      ...[400, 401, 402, 403, 404, 413, 429].map((status) => ({
        engine: 'analyze',
        path: '/v1/analyze',
        status,
      })),
      { engine: 'analyze', path: '/analyze', status: 500 },
    ]);
    expect((await stats('path=/v1/analyze')).json()).toMatchObject({
      health: 'operational',
      success_rate: 100,
    });
    // (0 + 10) / (1 + 10)
    expect((await stats('path=/analyze')).json()).toMatchObject({
      health: 'operational',
      success_rate: 90.91,
    });
  });

  it('averages durations up to 60 s and leaves longer ones out', async () => {
    await log(
      [1000, 3000, 60_000, 60_001, 600_000].map((duration_ms) => ({
        engine: 'website-crawler',
        path: '/v1/website/crawler',
        duration_ms,
      })),
    );
    expect((await stats('engine=website-crawler')).json()).toMatchObject({ avg_response_time_ms: 21_333 });
  });

  it('reads the last hour only: the 60 one-minute buckets up to now', async () => {
    await log([
      ...times(100, {
        engine: 'usage',
        path: '/v1/usage',
        status: 500,
        created_at: '2026-11-23T11:30:59.999Z',
      }),
      { engine: 'usage', path: '/v1/usage', created_at: '2026-11-23T11:31:00.000Z' },
      ...times(5, {
        engine: 'usage',
        path: '/v1/usage',
        status: 500,
        created_at: '2026-11-23T12:31:00.000Z',
      }),
    ]);
    // Neither the hundred failures before the window nor the future ones count.
    expect((await stats('engine=usage')).json()).toMatchObject({ health: 'operational', success_rate: 100 });
  });

  it('normalizes the path: case, query, trailing slash, job ids', async () => {
    const res = await stats(`path=${encodeURIComponent('/V1/Capture/?url=x#y')}`);
    expect(res.json()).toMatchObject({ engine: 'capture', path: '/v1/capture' });
    const job = await stats('engine=jobs&path=/jobs/job_01HXYZ');
    expect(job.statusCode).toBe(200);
    expect(job.json()).toMatchObject({ engine: 'jobs', path: '/jobs/{job_id}' });
  });

  it('is the same snapshot for every caller, with no volume, count or account data', async () => {
    const a = await stats('engine=capture', withStats);
    const b = await stats('engine=capture', withStats2);
    expect(b.json()).toEqual(a.json());
    expect(Object.keys(a.json()).sort()).toEqual([
      'avg_response_time_ms',
      'engine',
      'health',
      'path',
      'success_rate',
      'window',
    ]);
  });

  it.each([
    ['', 400, 'engine or path is required'],
    ['engine=', 400, 'engine is not an engine slug'],
    ['engine=Capture!', 400, 'engine is not an engine slug'],
    [`engine=${'a'.repeat(101)}`, 400, 'engine'],
    ['engine=screenshots', 404, 'Not Found'],
    ['path=v1/capture', 400, 'path is not an endpoint of the API'],
    ['path=/v1/nothing', 400, 'path is not an endpoint of the API'],
    [`path=/${'a'.repeat(300)}`, 400, 'path is not an endpoint of the API'],
    ['engine=capture&path=/v1/content', 400, 'path does not belong to engine capture'],
    ['engine=capture&engine=content', 400, 'engine'],
    ['engine=capture&window=24h', 400, 'window'],
  ])('GET /v1/stats?%s is %i', async (query, status, message) => {
    const res = await stats(query);
    expect(res.statusCode).toBe(status);
    expect(Object.keys(res.json())).toEqual(['error']);
    expect(res.json().error).toContain(message);
  });

  it('is 403 for an account without the feature, 401 without a valid key, free for everyone', async () => {
    const forbidden = await stats('engine=capture', withoutStats);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({ error: 'Forbidden: stats is not enabled for this account' });
    const unauthorized = await stats('engine=capture', 'wc_test_nope');
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.json()).toEqual({ error: 'Invalid API Key' });
    const usage = await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': withStats } });
    expect(usage.json().total_used).toBe(0);
  });

  it('prunes request-log rows past their retention and minute totals past two hours', async () => {
    const { db } = t.runtime.store;
    await log([
      { engine: 'stats', path: '/v1/stats', created_at: '2026-10-01T00:00:00.000Z' },
      { engine: 'stats', path: '/v1/stats', created_at: '2026-11-23T10:29:00.000Z' },
    ]);
    const pruned = await pruneRequestLog(db, NOW, 30 * 86_400_000);
    expect(pruned.log).toBe(1);
    expect(pruned.totals).toBeGreaterThanOrEqual(2);
    const oldest = await db
      .selectFrom('request_stats')
      .select((eb) => eb.fn.min('minute').as('m'))
      .executeTakeFirst();
    expect(String(oldest?.m) >= '2026-11-23T10:30').toBe(true);
  });

  it('adds up batches that several writers flush at once', async () => {
    const { db } = t.runtime.store;
    const minute = '2026-11-23T12:28';
    const writers = Array.from({ length: 4 }, () => new RequestLog(db, t.runtime.logger));
    for (const writer of writers) {
      for (let i = 0; i < 50; i++) {
        for (const path of ['/v1/content', '/content']) {
          writer.record({
            account_id: 'acct_other',
            key_id: 'key_other',
            engine: 'content',
            path,
            status: i % 10 === 0 ? 500 : 200,
            duration_ms: 10,
            billed: 1,
            created_at: `${minute}:${String(i % 60).padStart(2, '0')}.000Z`,
            target_url: null,
            error: null,
          });
        }
      }
    }
    await Promise.all(writers.map((writer) => writer.close()));
    const rows = await db
      .selectFrom('request_stats')
      .select(['path', 'requests', 'failures', 'duration_sum_ms', 'duration_count'])
      .where('minute', '=', minute)
      .orderBy('path')
      .execute();
    expect(rows.map((row) => ({ ...row, duration_sum_ms: Number(row.duration_sum_ms) }))).toEqual([
      { path: '/content', requests: 200, failures: 20, duration_sum_ms: 2000, duration_count: 200 },
      { path: '/v1/content', requests: 200, failures: 20, duration_sum_ms: 2000, duration_count: 200 },
    ]);
  });

  it('is 503 when the status data cannot be read', async () => {
    await t.runtime.store.db.schema.dropTable('request_stats').execute();
    const res = await stats('engine=capture');
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toContain('Service Unavailable');
  });
});
