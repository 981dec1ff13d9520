import type { ServerResponse } from 'node:http';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/billing/accounts.js';
import { addPack, grantCredits } from '../src/billing/balances.js';
import { createKey } from '../src/billing/keys.js';
import { insertJob } from '../src/jobs/job-store.js';
import { newId } from '../src/store/ids.js';
import { addUser, asBrowser, type Browser, browserOf, signIn } from './helpers/console.js';
import { DIALECTS } from './helpers/databases.js';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read as plain JSON
type Json = any;

const PASSWORD = 'correct horse battery';

/*
 * The account dashboard's routes (docs/console.md, "Account dashboard") and the playground's
 * key-id calls, on SQLite and PostgreSQL: what each role may do, that nothing of another account
 * is reachable by its ids, the audit rows each action leaves, and hostile input.
 */
describe.each(DIALECTS)('the account dashboard on %s', (dialect) => {
  let site: TestServer;
  let t: TestRuntime;
  let now = Date.now();
  let owner: Browser;
  let member: Browser;
  let otherOwner: Browser;
  let operator: Browser;
  const ids = { acmeKey: '', otherKey: '', otherUser: '', otherJob: '' };
  let acmeKey = '';
  let otherKey = '';
  /** The answers to /held the site keeps until `releaseHeld()`: a crawl page that runs as long as a test needs. */
  const held: ServerResponse[] = [];

  const inject = (options: InjectOptions) => t.runtime.app.inject(options);
  const as = (browser: Browser, options: InjectOptions) => inject(asBrowser(browser, options));
  const page = (pathname = '/page') => `http://site.example:${site.port}${pathname}`;
  const callCrawler = (browser: Browser, keyId: string, extra: Record<string, string> = {}, headers = {}) =>
    as(browser, {
      url: '/v1/website/crawler',
      query: { query: page(), ...extra },
      headers: { 'x-webcap-console-key': keyId, 'x-csrf-token': browser.csrf, ...headers },
    });
  const audit = (action: string) =>
    t.runtime.store.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();
  const flush = () => t.runtime.requestLog.flush();
  const expectError = (res: LightMyRequestResponse, status: number, error: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toEqual({ error });
  };
  /** Starts a crawl or a batch with the key, as any client would; its id. */
  const start = async (key: string, path: '/v1/crawl' | '/v1/batch', payload: object) => {
    const res = await inject({ method: 'POST', url: path, headers: { 'x-api-key': key }, payload });
    expect(res.statusCode, res.body).toBe(202);
    const body = res.json();
    return String(body.crawl_id ?? body.batch_id);
  };
  const idOf = (item: Json) => item.crawl_id ?? item.batch_id;
  /** The browser's list of crawls and batches once `done` holds of it. */
  const crawlsOnce = async (browser: Browser, done: (items: Json[]) => boolean) => {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const res = await as(browser, { url: '/console/api/crawls' });
      expect(res.statusCode, res.body).toBe(200);
      const { items } = res.json();
      if (done(items)) return items as Json[];
      if (Date.now() > deadline) throw new Error(`crawls never settled: ${res.body}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const ended = (item: Json | undefined) =>
    item !== undefined && !['queued', 'running'].includes(item.status) && item.counts.running === 0;
  const releaseHeld = () => {
    for (const res of held.splice(0)) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>Held</title></html>');
    }
  };

  beforeAll(async () => {
    site = await startServer((req, res) => {
      if (req.url === '/held') {
        held.push(res);
        return;
      }
      if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><title>Gone</title></html>');
        return;
      }
      const links = req.url === '/crawl-home' ? '<a href="/page">a page</a><a href="/missing">gone</a>' : '';
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><title>Page</title>${links}</html>`);
    });
    t = await startTestRuntime(dialect, {
      clock: () => new Date(now),
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        JOB_CONCURRENCY: '1',
        // A held page ends no crawl by itself while the test holds it, however slow the machine.
        NAVIGATION_TIMEOUT_MS: String(HANG_MS),
        RENDER_TIMEOUT_MS: String(2 * HANG_MS),
        JOB_TIMEOUT_MS: String(2 * HANG_MS),
      },
      resolver: tableResolver({ 'site.example': ['127.0.0.1'] }),
    });
    const { db } = t.runtime.store;
    const at = new Date(now);
    await createAccount(
      db,
      { name: 'Acme', slug: 'acme', monthlyQuota: 100, statsEnabled: true, perSecond: 50 },
      at,
    );
    await createAccount(db, { name: 'Other', slug: 'other', monthlyQuota: 100 }, at);
    await addPack(db, { accountSlug: 'acme', total: 20, title: 'Launch pack' }, at);
    await grantCredits(db, { accountSlug: 'acme', amount: 5 }, at);
    const made = await createKey(db, { accountSlug: 'acme', alias: 'backend' }, at);
    ids.acmeKey = made.key.id;
    acmeKey = made.plaintext;
    const otherMade = await createKey(db, { accountSlug: 'other' }, at);
    ids.otherKey = otherMade.key.id;
    otherKey = otherMade.plaintext;
    await addUser(t, {
      email: 'ana@acme.example',
      name: 'Ana',
      role: 'owner',
      accountSlug: 'acme',
      password: PASSWORD,
    });
    await addUser(t, { email: 'bo@acme.example', role: 'member', accountSlug: 'acme', password: PASSWORD });
    ids.otherUser = (
      await addUser(t, { email: 'oz@other.example', role: 'owner', accountSlug: 'other', password: PASSWORD })
    ).id;
    owner = await signIn(t, { email: 'ana@acme.example', password: PASSWORD });
    member = await signIn(t, { email: 'bo@acme.example', password: PASSWORD });
    otherOwner = await signIn(t, { email: 'oz@other.example', password: PASSWORD });
    operator = await signIn(t, { admin_token: ADMIN_TOKEN });
    const other = await db
      .selectFrom('accounts')
      .select('id')
      .where('slug', '=', 'other')
      .executeTakeFirstOrThrow();
    ids.otherJob = newId('job');
    await insertJob(db, {
      id: ids.otherJob,
      account_id: other.id,
      key_id: ids.otherKey,
      engine: 'website-crawler',
      path: '/v1/website/crawler',
      reservation_id: newId('res'),
      params: 'sealed',
      params_hash: ids.otherJob,
      idempotency_key: null,
      created_at: at.toISOString(),
      expires_at: new Date(now + 3_600_000).toISOString(),
      webhook: null,
    });
  });
  afterAll(async () => {
    releaseHeld();
    await t?.close();
    await site?.close();
  });

  describe('happy', () => {
    it('shows the usage: balances in draw order, remaining as /v1/usage counts it, the rate limits', async () => {
      const res = await as(member, { url: '/console/api/usage' });
      expect(res.statusCode, res.body).toBe(200);
      const usage = res.json();
      expect(usage).toMatchObject({
        account: { name: 'Acme', slug: 'acme', active: true, stats_enabled: true },
        remaining: 125,
        total_used: 0,
        rate_limit: { per_second: 50, per_minute: null },
      });
      expect(usage.balances).toEqual([
        { source: 'subscription', total: 100, used: 0, remaining: 100 },
        {
          source: 'pack',
          id: expect.stringMatching(/^pack_/),
          title: 'Launch pack',
          purchased_at: expect.any(String),
          total: 20,
          used: 0,
          remaining: 20,
        },
        { source: 'credit', total: 5, used: 0, remaining: 5 },
      ]);
      const v1 = await inject({ url: '/v1/usage', headers: { 'x-api-key': acmeKey } });
      expect(v1.json().remaining).toBe(usage.remaining);
      expect(usage.renewal_date).toBe(v1.json().renewal_date);
    });

    it('lets an owner create a key, shown once, and change and revoke it; the list never shows a key', async () => {
      const created = await as(owner, {
        method: 'POST',
        url: '/console/api/keys',
        payload: { alias: 'ci', category: 'production', quotas: { daily: 50 } },
      });
      expect(created.statusCode, created.body).toBe(201);
      const key = created.json();
      expect(key).toMatchObject({
        account: 'acme',
        alias: 'ci',
        category: 'production',
        active: true,
        quotas: { total: null, daily: 50, weekly: null, monthly: null },
        used: { total: 0, today: 0, this_week: 0, this_month: 0 },
        last_used_at: null,
      });
      expect(key.key).toMatch(/^wc_live_/);
      expect(key.prefix).toBe(key.key.slice(0, 12));
      // The key works at once.
      expect((await inject({ url: '/v1/usage', headers: { 'x-api-key': key.key } })).statusCode).toBe(200);

      const list = await as(member, { url: '/console/api/keys' });
      expect(list.statusCode).toBe(200);
      expect(list.json().next).toBeNull();
      expect(
        list
          .json()
          .items.map((k: Json) => k.alias)
          .sort(),
      ).toEqual(['backend', 'ci']);
      expect(list.body).not.toContain(key.key);

      const changed = await as(owner, {
        method: 'PATCH',
        url: `/console/api/keys/${key.id}`,
        payload: { alias: 'ci-2', expires: '2099-01-01', quotas: { daily: null, monthly: 10 } },
      });
      expect(changed.json()).toMatchObject({
        alias: 'ci-2',
        expires_at: '2099-01-01T00:00:00.000Z',
        quotas: { daily: null, monthly: 10 },
      });
      const revoked = await as(owner, { method: 'POST', url: `/console/api/keys/${key.id}/revoke` });
      expect(revoked.json()).toMatchObject({ active: false, revoked_at: expect.any(String) });
      expectError(
        await inject({ url: '/v1/usage', headers: { 'x-api-key': key.key } }),
        401,
        'Invalid API Key: key is inactive',
      );
      const again = await as(owner, {
        method: 'PATCH',
        url: `/console/api/keys/${key.id}`,
        payload: { active: true },
      });
      expect(again.statusCode).toBe(409);

      const rows = [
        ...(await audit('key.create')),
        ...(await audit('key.update')),
        ...(await audit('key.revoke')),
      ];
      const byAna = rows.filter((row) => row.actor_email === 'ana@acme.example');
      expect(byAna.map((row) => row.action).sort()).toEqual(['key.create', 'key.revoke', 'key.update']);
      expect(byAna.every((row) => row.actor_kind === 'user' && row.target === key.id)).toBe(true);
      expect(JSON.stringify(rows)).not.toContain(key.key);
    });

    it('runs a playground call as the key: billed once, one request-log row, as a call with the key', async () => {
      const before = (await as(member, { url: '/console/api/usage' })).json();
      const res = await callCrawler(member, ids.acmeKey);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ success: true, data: { statusCode: 200 } });
      await flush();
      const after = (await as(member, { url: '/console/api/usage' })).json();
      expect(after.total_used).toBe(before.total_used + 1);
      expect(after.remaining).toBe(before.remaining - 1);
      const rows = await t.runtime.store.db
        .selectFrom('request_log')
        .selectAll()
        .where('key_id', '=', ids.acmeKey)
        .where('engine', '=', 'website-crawler')
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        engine: 'website-crawler',
        path: '/v1/website/crawler',
        status: 200,
        billed: 1,
      });

      const requests = await as(member, { url: '/console/api/requests' });
      expect(requests.json().items[0]).toEqual({
        id: rows[0]?.id,
        created_at: rows[0]?.created_at,
        engine: 'website-crawler',
        path: '/v1/website/crawler',
        status: 200,
        duration_ms: expect.any(Number),
        billed: true,
        key: { id: ids.acmeKey, alias: 'backend', prefix: acmeKey.slice(0, 12) },
        target_url: page(),
        error: null,
      });
      const keys = (await as(member, { url: '/console/api/keys' })).json().items;
      expect(keys.find((k: Json) => k.id === ids.acmeKey)).toMatchObject({
        used: { total: 1, today: 1, this_week: 1, this_month: 1 },
        last_used_at: rows[0]?.created_at,
      });
      const daily = (await as(member, { url: '/console/api/usage/daily?days=3' })).json().days;
      expect(daily).toHaveLength(3);
      expect(daily.map((d: Json) => d.date)).toEqual(
        [2, 1, 0].map((n) => new Date(now - n * 86_400_000).toISOString().slice(0, 10)),
      );
      expect(daily[0]).toEqual({ date: daily[0].date, calls: 0, billed: 0, by_engine: {}, by_status: {} });
      // The usage reads of the tests before count too (free, unbilled), as every authenticated call does.
      expect(daily[2]).toMatchObject({
        calls: 3,
        billed: 1,
        by_engine: { 'website-crawler': 1, usage: 2 },
        by_status: { '2xx': 3 },
      });
      expect((await as(member, { url: '/console/api/usage/daily' })).json().days).toHaveLength(30);
    });

    it('refuses playground calls without the CSRF token, from another origin, for another account or a revoked key, or without a session; none is billed or logged', async () => {
      const count = async () =>
        Number(
          (
            await t.runtime.store.db
              .selectFrom('request_log')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      await flush();
      const before = await count();
      const usage = (await as(member, { url: '/console/api/usage' })).json().total_used;
      const noCsrf = await inject({
        url: '/v1/website/crawler',
        query: { query: page() },
        headers: { cookie: member.cookie, 'x-webcap-console-key': ids.acmeKey },
      });
      expectError(noCsrf, 403, 'Forbidden: CSRF token missing or wrong');
      expectError(
        await callCrawler(member, ids.acmeKey, {}, { 'x-csrf-token': owner.csrf }),
        403,
        'Forbidden: CSRF token missing or wrong',
      );
      expectError(
        await callCrawler(member, ids.acmeKey, {}, { origin: 'https://evil.example' }),
        403,
        'Forbidden: cross-origin request refused',
      );
      expectError(await callCrawler(member, ids.otherKey), 401, 'Invalid API Key');
      expectError(await callCrawler(member, 'key_nonexistent'), 401, 'Invalid API Key');
      expectError(await callCrawler(member, 'x'.repeat(500)), 401, 'Invalid API Key');
      expectError(await callCrawler(operator, ids.acmeKey), 401, 'Invalid API Key');
      expectError(
        await inject({
          url: '/v1/website/crawler',
          query: { query: page() },
          headers: { 'x-webcap-console-key': ids.acmeKey },
        }),
        401,
        'Unauthorized: sign in',
      );
      const revoked = (
        await as(owner, { method: 'POST', url: '/console/api/keys', payload: { alias: 'gone' } })
      ).json();
      await as(owner, { method: 'POST', url: `/console/api/keys/${revoked.id}/revoke` });
      expectError(await callCrawler(member, revoked.id), 401, 'Invalid API Key: key is inactive');
      const off = (
        await as(owner, { method: 'POST', url: '/console/api/keys', payload: { alias: 'off' } })
      ).json();
      await as(owner, {
        method: 'PATCH',
        url: `/console/api/keys/${off.id}`,
        payload: { expires: '2001-01-01' },
      });
      expectError(await callCrawler(member, off.id), 401, 'Invalid API Key: key has expired');
      // Legacy and job routes take the same check.
      expectError(
        await as(member, {
          url: '/jobs/job_x',
          headers: { 'x-webcap-console-key': ids.otherKey, 'x-csrf-token': member.csrf },
        }),
        401,
        'Invalid API Key',
      );
      await flush();
      expect(await count()).toBe(before);
      expect((await as(member, { url: '/console/api/usage' })).json().total_used).toBe(usage);
    });

    it('filters and pages the request log: engine, status code or class, key, time; another account sees none of it', async () => {
      await callCrawler(member, ids.acmeKey, { bogus: '1' });
      await inject({ url: '/v1/usage', headers: { 'x-api-key': acmeKey } });
      await flush();
      const list = async (query: string, browser = member) => {
        const res = await as(browser, { url: `/console/api/requests?${query}` });
        expect(res.statusCode, res.body).toBe(200);
        return res.json();
      };
      expect((await list('status=4xx')).items.map((r: Json) => r.status)).toEqual([400]);
      expect((await list('status=400')).items).toHaveLength(1);
      expect((await list('status=2xx')).items.every((r: Json) => r.status === 200)).toBe(true);
      expect((await list('engine=usage')).items.map((r: Json) => r.path)).toEqual([
        '/v1/usage',
        '/v1/usage',
        '/v1/usage',
      ]);
      const ofKey = await t.runtime.store.db
        .selectFrom('request_log')
        .select('id')
        .where('key_id', '=', ids.acmeKey)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      expect((await list(`key_id=${ids.acmeKey}`)).items.map((r: Json) => r.id)).toEqual(
        ofKey.map((r) => r.id),
      );
      expect((await list(`key_id=${ids.otherKey}`)).items).toEqual([]);
      const future = new Date(now + 3_600_000).toISOString();
      expect((await list(`since=${future}`)).items).toEqual([]);
      expect((await list(`until=${future}&limit=200`)).items.length).toBe(
        (await list('limit=200')).items.length,
      );
      const paged: string[] = [];
      let next: string | null = null;
      do {
        const body = await list(`limit=2${next === null ? '' : `&before=${next}`}`);
        expect(body.items.length).toBeLessThanOrEqual(2);
        paged.push(...body.items.map((r: Json) => r.id));
        next = body.next;
      } while (next !== null);
      expect(paged).toEqual((await list('limit=200')).items.map((r: Json) => r.id));
      expect((await list('limit=200', otherOwner)).items).toEqual([]);
    });

    it("shows each call's target URL without its secrets, and a failed call's error", async () => {
      const target = `http://ana:hunter2@site.example:1/p?q=shoes&token=tok123&X-Amz-Signature=sig456#access_token=at789`;
      const refused = await callCrawler(member, ids.acmeKey, { query: target });
      const error =
        'Bad Request: blocked by the network policy: site.example resolves to an address allowed by WEBCAP_ALLOW_PRIVATE but not on port 1; add that address with :1';
      expectError(refused, 400, error);
      const invalid = await callCrawler(member, ids.acmeKey, { bogus: '1' });
      expect(invalid.statusCode).toBe(400);
      await flush();
      // Both calls may be logged within one millisecond, so their order is not asserted.
      const items: Json[] = (await as(member, { url: '/console/api/requests?status=400&limit=2' })).json()
        .items;
      const blocked = items.find((r) => r.error === error);
      const bogus = items.find((r) => r.error !== error);
      expect(blocked).toMatchObject({
        path: '/v1/website/crawler',
        status: 400,
        target_url: 'http://site.example:1/p?q=shoes&token=***&X-Amz-Signature=***#access_token=***',
        error,
      });
      expect(bogus).toMatchObject({
        target_url: page(),
        error: 'Bad Request: bogus is not a known parameter',
      });
      const stored = JSON.stringify(
        await t.runtime.store.db.selectFrom('request_log').selectAll().where('status', '=', 400).execute(),
      );
      for (const secret of ['ana', 'hunter2', 'tok123', 'sig456', 'at789'])
        expect(stored).not.toContain(secret);
      // A call without a target (usage) and a success have neither.
      expect(
        (await as(member, { url: '/console/api/requests?engine=usage&limit=1' })).json().items[0],
      ).toMatchObject({
        target_url: null,
        error: null,
      });
    });

    it('lists jobs, shows one with its result, and cancels a queued one (409 once it is not)', async () => {
      const submitted = await callCrawler(member, ids.acmeKey, { is_async: 'true' });
      expect(submitted.statusCode, submitted.body).toBe(202);
      const jobId = submitted.json().job_id;
      let record: Json;
      for (let i = 0; i < 600; i += 1) {
        const res = await as(member, { url: `/console/api/jobs/${jobId}` });
        expect(res.statusCode).toBe(200);
        record = res.json();
        if (record.status === 'completed' || record.status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(record).toMatchObject({ job_id: jobId, status: 'completed', result: { success: true } });
      const list = await as(member, { url: '/console/api/jobs' });
      expect(list.json().items[0]).toEqual({
        job_id: jobId,
        status: 'completed',
        engine: 'website-crawler',
        endpoint: '/v1/website/crawler',
        key: { id: ids.acmeKey, alias: 'backend', prefix: acmeKey.slice(0, 12) },
        created_at: expect.any(String),
        started_at: expect.any(String),
        finished_at: expect.any(String),
        attempts: 1,
        error: null,
        webhook: null,
      });
      expect((await as(member, { url: '/console/api/jobs?status=queued' })).json().items).toEqual([]);

      const acme = await t.runtime.store.db
        .selectFrom('accounts')
        .select('id')
        .where('slug', '=', 'acme')
        .executeTakeFirstOrThrow();
      const queued = newId('job');
      await insertJob(t.runtime.store.db, {
        id: queued,
        account_id: acme.id,
        key_id: ids.acmeKey,
        engine: 'website-crawler',
        path: '/v1/website/crawler',
        reservation_id: newId('res'),
        params: 'sealed',
        params_hash: queued,
        idempotency_key: null,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + 3_600_000).toISOString(),
        webhook: null,
      });
      const cancelled = await as(member, { method: 'DELETE', url: `/console/api/jobs/${queued}` });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      expect(cancelled.json()).toMatchObject({ job_id: queued, status: 'failed', error: { status: 409 } });
      expectError(
        await as(member, { method: 'DELETE', url: `/console/api/jobs/${queued}` }),
        409,
        'Conflict: the job is failed and can no longer be cancelled',
      );
      const rows = await audit('job.cancel');
      expect(rows.map((row) => [row.target, row.actor_email])).toEqual([[queued, 'bo@acme.example']]);
    });

    it('lists crawls and batches newest first with their counts, and cancels a live one (409 once it is not)', async () => {
      const crawl = { sitemap: 'skip', respect_robots: '0' };
      now += 1000;
      const crawlId = await start(acmeKey, '/v1/crawl', { url: page('/crawl-home'), ...crawl });
      now += 1000;
      const batchId = await start(acmeKey, '/v1/batch', {
        engine: 'content',
        urls: [page(), page('/page?b'), 'http://10.0.0.1/'],
      });
      const items = await crawlsOnce(member, (items) =>
        [crawlId, batchId].every((id) => ended(items.find((item) => idOf(item) === id))),
      );
      expect(items.map(idOf)).toEqual([batchId, crawlId]);
      expect(items[0]).toEqual({
        kind: 'batch',
        batch_id: batchId,
        engine: 'content',
        status: 'completed',
        stop_reason: null,
        created_at: new Date(now).toISOString(),
        finished_at: expect.any(String),
        expires_at: expect.any(String),
        counts: { total: 3, completed: 2, failed: 1, credits_used: 2, running: 0 },
      });
      expect(items[1]).toEqual({
        kind: 'crawl',
        crawl_id: crawlId,
        status: 'completed',
        stop_reason: null,
        url: page('/crawl-home'),
        formats: ['markdown', 'metadata'],
        created_at: new Date(now - 1000).toISOString(),
        finished_at: expect.any(String),
        expires_at: expect.any(String),
        counts: { discovered: 3, completed: 2, failed: 1, skipped: 0, credits_used: 2, running: 0 },
      });
      // The list is the records' heads: what GET /v1/crawl/{id} says of the crawl, pages aside.
      const record = await inject({ url: `/v1/crawl/${crawlId}`, headers: { 'x-api-key': acmeKey } });
      const { success: _success, pages: _pages, next: _next, cursor: _cursor, ...head } = record.json();
      expect(items[1]).toEqual({ kind: 'crawl', ...head });
      const first = await as(member, { url: '/console/api/crawls?limit=1' });
      expect(first.json().items.map(idOf)).toEqual([batchId]);
      const second = await as(member, {
        url: `/console/api/crawls?limit=1&before=${first.json().next}`,
      });
      expect(second.json().items.map(idOf)).toEqual([crawlId]);

      // A crawl whose start page the site holds runs until the test lets it go.
      now += 1000;
      const liveId = await start(acmeKey, '/v1/crawl', { url: page('/held'), ...crawl });
      await crawlsOnce(member, (items) => items[0]?.counts.running === 1);
      // Cancelled once its page is being fetched: one cancelled before then never fetches it.
      const deadline = Date.now() + HANG_MS;
      while (held.length === 0) {
        if (Date.now() > deadline) throw new Error('the crawl never asked for /held');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const cancelled = await as(member, { method: 'DELETE', url: `/console/api/crawls/${liveId}` });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      expect(cancelled.json()).toMatchObject({
        kind: 'crawl',
        crawl_id: liveId,
        status: 'cancelled',
        finished_at: new Date(now).toISOString(),
        counts: { discovered: 1, completed: 0, running: 1 },
      });
      expectError(
        await as(member, { method: 'DELETE', url: `/console/api/crawls/${liveId}` }),
        409,
        'Conflict: the crawl is cancelled and can no longer be cancelled',
      );
      // The page running when it was cancelled finishes, and is billed.
      releaseHeld();
      const after = await crawlsOnce(member, (items) => items[0]?.counts.running === 0);
      expect(after[0]).toMatchObject({
        crawl_id: liveId,
        status: 'cancelled',
        counts: { discovered: 1, completed: 1, credits_used: 1, running: 0 },
      });
      const rows = await audit('crawl.cancel');
      expect(rows.map((row) => [row.target, row.actor_email])).toEqual([[liveId, 'bo@acme.example']]);
    });

    it("shows and rotates the webhook secret to owners, and each engine's health when the account has stats", async () => {
      const shown = await as(owner, { url: '/console/api/webhook-secret' });
      expect(shown.json().secret).toMatch(/^whsec_/);
      const rotated = await as(owner, { method: 'POST', url: '/console/api/webhook-secret/rotate' });
      expect(rotated.json().secret).toMatch(/^whsec_/);
      expect(rotated.json().secret).not.toBe(shown.json().secret);
      const rows = [...(await audit('webhook_secret.show')), ...(await audit('webhook_secret.rotate'))];
      expect(rows.map((row) => row.actor_email)).toEqual(['ana@acme.example', 'ana@acme.example']);
      expect(JSON.stringify(rows)).not.toContain('whsec_');

      const stats = await as(member, { url: '/console/api/stats' });
      expect(stats.statusCode).toBe(200);
      expect(Object.keys(stats.json().engines)).toEqual([
        'capture',
        'content',
        'analyze',
        'extract',
        'map',
        'crawl',
        'website-crawler',
      ]);
      expect(stats.json().engines['website-crawler']).toMatchObject({
        engine: 'website-crawler',
        path: null,
        window: '1h',
      });
      expectError(
        await as(otherOwner, { url: '/console/api/stats' }),
        403,
        'Forbidden: stats is not enabled for this account',
      );
    });

    it('lets an owner invite people (a one-time link), change and remove them; the last owner stays', async () => {
      const users = await as(owner, { url: '/console/api/users' });
      expect(
        users
          .json()
          .items.map((u: Json) => u.email)
          .sort(),
      ).toEqual(['ana@acme.example', 'bo@acme.example']);
      const invited = await as(owner, {
        method: 'POST',
        url: '/console/api/invites',
        headers: { host: 'attacker.example' },
        payload: { email: 'Cy@Acme.example', role: 'member' },
      });
      expect(invited.statusCode, invited.body).toBe(201);
      const { invite_url: url, ...rest } = invited.json();
      expect(rest).toEqual({
        email: 'cy@acme.example',
        role: 'member',
        expires_at: new Date(now + 7 * 86_400_000).toISOString(),
      });
      // Without PUBLIC_BASE_URL, a path: never the Host the request named.
      expect(url).toMatch(/^\/console\/invite\/[A-Za-z0-9_-]{43}$/);
      const token = url.split('/').pop();
      const shown = await inject({ url: `/console/api/invites/${token}` });
      expect(shown.json()).toEqual({ ...rest, account: { name: 'Acme', slug: 'acme' } });
      const accepted = await inject({
        method: 'POST',
        url: `/console/api/invites/${token}/accept`,
        payload: { name: 'Cy', password: 'cy password 123' },
      });
      const cy = browserOf(accepted);
      expect(cy.session.user).toMatchObject({
        email: 'cy@acme.example',
        name: 'Cy',
        role: 'member',
        account: { slug: 'acme' },
      });
      expectError(
        await inject({
          method: 'POST',
          url: `/console/api/invites/${token}/accept`,
          payload: { name: 'X', password: 'another password' },
        }),
        404,
        'Not Found: this invitation is unknown, used or expired',
      );
      expect((await inject({ url: `/console/api/invites/${token}` })).statusCode).toBe(404);
      // An email that has a user is invited like any other (a 409 told whether anyone had one);
      // accepting it is what fails, and creates no user.
      const existing = await as(owner, {
        method: 'POST',
        url: '/console/api/invites',
        payload: { email: 'bo@acme.example', role: 'owner' },
      });
      expect(existing.statusCode, existing.body).toBe(201);
      const existingToken = existing.json().invite_url.split('/').pop();
      expect((await inject({ url: `/console/api/invites/${existingToken}` })).json()).toMatchObject({
        email: 'bo@acme.example',
      });
      expectError(
        await inject({
          method: 'POST',
          url: `/console/api/invites/${existingToken}/accept`,
          payload: { name: 'Bo again', password: 'bo password 123' },
        }),
        409,
        'Conflict: this invitation cannot be accepted; an email that already has a console user signs in with it',
      );
      // Out of the way of the next test's list and audit rows.
      await t.runtime.store.db
        .deleteFrom('console_invitations')
        .where('email', '=', 'bo@acme.example')
        .execute();
      // The owner alone: not demoted, deactivated or removed.
      const anaId = owner.session.user.id;
      for (const payload of [{ role: 'member' }, { active: false }]) {
        expectError(
          await as(owner, { method: 'PATCH', url: `/console/api/users/${anaId}`, payload }),
          409,
          'Conflict: the account would be left without an active owner',
        );
      }
      const cyId = cy.session.user.id;
      const promoted = await as(owner, {
        method: 'PATCH',
        url: `/console/api/users/${cyId}`,
        payload: { role: 'owner' },
      });
      expect(promoted.json()).toMatchObject({ id: cyId, role: 'owner', active: true });
      // Cy is an owner now, in the session she already has.
      expect((await as(cy, { url: '/console/api/users' })).statusCode).toBe(200);
      const off = await as(owner, {
        method: 'PATCH',
        url: `/console/api/users/${cyId}`,
        payload: { active: false },
      });
      expect(off.json().active).toBe(false);
      expect((await as(cy, { url: '/console/api/session' })).statusCode).toBe(401);
      expect((await as(owner, { method: 'DELETE', url: `/console/api/users/${cyId}` })).statusCode).toBe(204);
      const actions = (await as(owner, { url: '/console/api/audit?limit=200' }))
        .json()
        .items.map((e: Json) => e.action);
      expect(actions).toEqual(
        expect.arrayContaining(['invite.create', 'invite.accept', 'user.update', 'user.delete']),
      );
    });

    it('lists the pending invitations to owners (never a token) and withdraws one: its link stops working', async () => {
      const invite = async (email: string, role: string) => {
        const res = await as(owner, {
          method: 'POST',
          url: '/console/api/invites',
          payload: { email, role },
        });
        expect(res.statusCode, res.body).toBe(201);
        return res.json().invite_url.split('/').pop() as string;
      };
      const deeToken = await invite('dee@acme.example', 'member');
      now += 1000;
      const eveToken = await invite('eve@acme.example', 'owner');
      const listed = await as(owner, { url: '/console/api/invites' });
      expect(listed.statusCode, listed.body).toBe(200);
      for (const token of [deeToken, eveToken]) expect(listed.body).not.toContain(token);
      const anaId = owner.session.user.id;
      expect(listed.json()).toEqual({
        items: [
          {
            id: expect.stringMatching(/^inv_/),
            email: 'eve@acme.example',
            role: 'owner',
            created_at: new Date(now).toISOString(),
            expires_at: new Date(now + 7 * 86_400_000).toISOString(),
            invited_by: { id: anaId, email: 'ana@acme.example', name: 'Ana' },
          },
          {
            id: expect.stringMatching(/^inv_/),
            email: 'dee@acme.example',
            role: 'member',
            created_at: new Date(now - 1000).toISOString(),
            expires_at: new Date(now - 1000 + 7 * 86_400_000).toISOString(),
            invited_by: { id: anaId, email: 'ana@acme.example', name: 'Ana' },
          },
        ],
        next: null,
      });
      const [eve, dee] = listed.json().items;
      // Another account's owner sees none of them, and cannot withdraw one.
      expect((await as(otherOwner, { url: '/console/api/invites' })).json().items).toEqual([]);
      for (const [browser, id] of [
        [otherOwner, dee.id],
        [owner, 'inv_unknown'],
      ] as const) {
        expectError(
          await as(browser, { method: 'DELETE', url: `/console/api/invites/${id}` }),
          404,
          `Not Found: no pending invitation ${id}`,
        );
      }
      expect((await inject({ url: `/console/api/invites/${deeToken}` })).statusCode).toBe(200);

      const withdrawn = await as(owner, { method: 'DELETE', url: `/console/api/invites/${dee.id}` });
      expect(withdrawn.statusCode, withdrawn.body).toBe(204);
      expectError(
        await inject({ url: `/console/api/invites/${deeToken}` }),
        404,
        'Not Found: this invitation is unknown, used or expired',
      );
      expectError(
        await inject({
          method: 'POST',
          url: `/console/api/invites/${deeToken}/accept`,
          payload: { name: 'Dee', password: 'dee password 123' },
        }),
        404,
        'Not Found: this invitation is unknown, used or expired',
      );
      expect((await as(owner, { url: '/console/api/invites' })).json().items.map((i: Json) => i.id)).toEqual([
        eve.id,
      ]);
      expect((await as(owner, { method: 'DELETE', url: `/console/api/invites/${dee.id}` })).statusCode).toBe(
        404,
      );
      const rows = await audit('invite.withdraw');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        actor_kind: 'user',
        actor_id: anaId,
        actor_email: 'ana@acme.example',
        target: dee.id,
        ip: '127.0.0.1',
      });
      expect(JSON.parse(rows[0]?.detail ?? '{}')).toEqual({ email: 'dee@acme.example', role: 'member' });
      // An invitation used is no longer pending, and cannot be withdrawn.
      browserOf(
        await inject({
          method: 'POST',
          url: `/console/api/invites/${eveToken}/accept`,
          payload: { name: 'Eve', password: 'eve password 123' },
        }),
      );
      expect((await as(owner, { url: '/console/api/invites' })).json().items).toEqual([]);
      expect((await as(owner, { method: 'DELETE', url: `/console/api/invites/${eve.id}` })).statusCode).toBe(
        404,
      );
    });

    it("shows an owner their account's audit log, newest first and paged, and nothing of another account", async () => {
      const res = await as(owner, { url: '/console/api/audit?limit=5' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.items).toHaveLength(5);
      expect(body.next).toEqual(expect.any(String));
      const times = body.items.map((e: Json) => e.at);
      expect([...times].sort().reverse()).toEqual(times);
      for (const entry of body.items) expect(entry.account).toBe('acme');
      const theirs = (await as(otherOwner, { url: '/console/api/audit?limit=200' })).json().items;
      expect(theirs.every((e: Json) => e.account === 'other')).toBe(true);
    });
  });

  describe('security', () => {
    it('refuses a member the owner routes (403), and an operator the account routes', async () => {
      const ownerOnly: InjectOptions[] = [
        { method: 'POST', url: '/console/api/keys', payload: {} },
        { method: 'PATCH', url: `/console/api/keys/${ids.acmeKey}`, payload: { alias: 'x' } },
        { method: 'POST', url: `/console/api/keys/${ids.acmeKey}/revoke` },
        { url: '/console/api/webhook-secret' },
        { method: 'POST', url: '/console/api/webhook-secret/rotate' },
        { url: '/console/api/users' },
        { method: 'POST', url: '/console/api/invites', payload: { email: 'x@acme.example', role: 'owner' } },
        { url: '/console/api/invites' },
        { method: 'DELETE', url: '/console/api/invites/inv_any' },
        { method: 'PATCH', url: `/console/api/users/${ids.otherUser}`, payload: { role: 'owner' } },
        { method: 'DELETE', url: `/console/api/users/${ids.otherUser}` },
        { url: '/console/api/audit' },
      ];
      for (const request of ownerOnly) {
        expectError(await as(member, request), 403, "Forbidden: only the account's owners may do this");
      }
      for (const url of [
        '/console/api/usage',
        '/console/api/keys',
        '/console/api/requests',
        '/console/api/jobs',
        '/console/api/crawls',
      ]) {
        expectError(
          await as(operator, { url }),
          403,
          "Forbidden: this is an account's view; the operator's are under /console/api/operator",
        );
      }
      // Nothing was changed by the refused requests.
      const key = (await as(owner, { url: '/console/api/keys' }))
        .json()
        .items.find((k: Json) => k.id === ids.acmeKey);
      expect(key).toMatchObject({ alias: 'backend', active: true });
    });

    it('reaches nothing of another account by its ids: keys, jobs, users (404)', async () => {
      const tries: InjectOptions[] = [
        { method: 'PATCH', url: `/console/api/keys/${ids.otherKey}`, payload: { alias: 'mine now' } },
        { method: 'POST', url: `/console/api/keys/${ids.otherKey}/revoke` },
        { url: `/console/api/jobs/${ids.otherJob}` },
        { method: 'DELETE', url: `/console/api/jobs/${ids.otherJob}` },
        { method: 'PATCH', url: `/console/api/users/${ids.otherUser}`, payload: { role: 'member' } },
        { method: 'DELETE', url: `/console/api/users/${ids.otherUser}` },
      ];
      for (const request of tries) {
        const res = await as(owner, request);
        expect(res.statusCode, `${request.method} ${request.url}: ${res.body}`).toBe(404);
      }
      const theirs = await as(otherOwner, { url: '/console/api/keys' });
      expect(theirs.json().items.map((k: Json) => k.id)).toEqual([ids.otherKey]);
      expect(theirs.json().items[0].active).toBe(true);
      expect((await as(otherOwner, { url: `/console/api/jobs/${ids.otherJob}` })).json().status).toBe(
        'queued',
      );
      expect((await as(otherOwner, { url: '/console/api/users' })).json().items[0]).toMatchObject({
        role: 'owner',
        active: true,
      });
    });

    it("never lists another account's crawl or batch, and cancelling one is a 404", async () => {
      const theirs = await start(otherKey, '/v1/crawl', {
        url: page(),
        sitemap: 'skip',
        respect_robots: '0',
      });
      now += 1000;
      const theirBatch = await start(otherKey, '/v1/batch', { engine: 'content', urls: [page()] });
      for (const id of [theirs, theirBatch]) {
        const res = await as(owner, { method: 'DELETE', url: `/console/api/crawls/${id}` });
        expect(res.statusCode, res.body).toBe(404);
      }
      const listed = await crawlsOnce(otherOwner, (items) =>
        [theirs, theirBatch].every((id) => ended(items.find((item) => idOf(item) === id))),
      );
      // Not cancelled by the refused requests: both ran to their end.
      expect(listed.map((item) => [idOf(item), item.status])).toEqual([
        [theirBatch, 'completed'],
        [theirs, 'completed'],
      ]);
      const ours = (await as(owner, { url: '/console/api/crawls?limit=200' })).json().items.map(idOf);
      expect(ours).not.toContain(theirs);
      expect(ours).not.toContain(theirBatch);
      expect(await audit('batch.cancel')).toEqual([]);
    });

    it('answers hostile input with a 400 naming the parameter, never a 500', async () => {
      const cases: [Browser, InjectOptions, string][] = [
        [member, { url: '/console/api/usage/daily?days=0' }, 'days'],
        [member, { url: '/console/api/usage/daily?days=91' }, 'days'],
        [member, { url: '/console/api/usage/daily?days=1e400' }, 'days'],
        [member, { url: '/console/api/usage/daily?days=Infinity' }, 'days'],
        [member, { url: '/console/api/usage/daily?days=NaN' }, 'days'],
        [member, { url: '/console/api/usage/daily?days=-1' }, 'days'],
        [member, { url: '/console/api/usage/daily?days=3&day=3' }, 'day'],
        [member, { url: '/console/api/requests?limit=0' }, 'limit'],
        [member, { url: '/console/api/requests?limit=201' }, 'limit'],
        [member, { url: '/console/api/requests?limit=2.5' }, 'limit'],
        [member, { url: '/console/api/requests?status=600' }, 'status'],
        [member, { url: '/console/api/requests?status=2XX' }, 'status'],
        [member, { url: '/console/api/requests?status=ok' }, 'status'],
        [member, { url: '/console/api/requests?since=yesterday' }, 'since'],
        [member, { url: '/console/api/requests?until=2026-13-45' }, 'until'],
        [member, { url: `/console/api/requests?since=${'9'.repeat(100)}` }, 'since'],
        [member, { url: '/console/api/requests?before=bm90IGEgY3Vyc29y' }, 'before'],
        [member, { url: `/console/api/requests?before=${'x'.repeat(300)}` }, 'before'],
        [member, { url: '/console/api/requests?key_id=../../etc' }, 'key_id'],
        [member, { url: `/console/api/requests?engine=${'e'.repeat(100)}` }, 'engine'],
        [member, { url: '/console/api/jobs?status=done' }, 'status'],
        [member, { url: '/console/api/jobs?before=%00' }, 'before'],
        [member, { url: '/console/api/jobs/a%20b' }, 'id'],
        [member, { url: `/console/api/jobs/${'j'.repeat(65)}` }, 'id'],
        [member, { url: '/console/api/crawls?limit=201' }, 'limit'],
        [member, { url: '/console/api/crawls?before=bm90IGEgY3Vyc29y' }, 'before'],
        [member, { url: '/console/api/crawls?status=running' }, 'status'],
        [member, { method: 'DELETE', url: '/console/api/crawls/a%20b' }, 'id'],
        [member, { method: 'DELETE', url: `/console/api/crawls/${'c'.repeat(65)}` }, 'id'],
        [owner, { method: 'DELETE', url: '/console/api/invites/a%20b' }, 'id'],
        [owner, { method: 'DELETE', url: `/console/api/invites/${'i'.repeat(65)}` }, 'id'],
        [owner, { method: 'POST', url: '/console/api/keys', payload: { alias: 'x'.repeat(201) } }, 'alias'],
        [owner, { method: 'POST', url: '/console/api/keys', payload: { category: 'Not Valid' } }, 'category'],
        [owner, { method: 'POST', url: '/console/api/keys', payload: { expires: 'soon' } }, 'expires'],
        [
          owner,
          { method: 'POST', url: '/console/api/keys', payload: { quotas: { daily: -1 } } },
          'quotas.daily',
        ],
        [
          owner,
          { method: 'POST', url: '/console/api/keys', payload: { quotas: { daily: 1e20 } } },
          'quotas.daily',
        ],
        [owner, { method: 'POST', url: '/console/api/keys', payload: { quotas: { hourly: 1 } } }, 'hourly'],
        [owner, { method: 'POST', url: '/console/api/keys', payload: { key: 'wc_live_mine' } }, 'key'],
        [
          owner,
          { method: 'PATCH', url: `/console/api/keys/${ids.acmeKey}`, payload: { active: 'maybe' } },
          'active',
        ],
        [owner, { method: 'PATCH', url: '/console/api/keys/%E0%A4%A', payload: { alias: 'x' } }, 'path'],
        [
          owner,
          { method: 'POST', url: '/console/api/invites', payload: { email: 'not-an-email', role: 'member' } },
          'email',
        ],
        [
          owner,
          {
            method: 'POST',
            url: '/console/api/invites',
            payload: { email: 'x@acme.example', role: 'operator' },
          },
          'role',
        ],
        [
          owner,
          { method: 'POST', url: '/console/api/invites', payload: { email: 'x@acme.example' } },
          'role',
        ],
        [
          owner,
          { method: 'PATCH', url: `/console/api/users/${ids.otherUser}`, payload: { name: 'x' } },
          'name',
        ],
        [
          owner,
          { method: 'PATCH', url: `/console/api/users/${ids.otherUser}`, payload: { role: 'operator' } },
          'role',
        ],
        [owner, { url: '/console/api/audit?limit=-5' }, 'limit'],
        [
          owner,
          {
            method: 'POST',
            url: '/console/api/keys',
            headers: { 'content-type': 'text/plain' },
            payload: '{}',
          },
          'Content-Type',
        ],
        [
          owner,
          {
            method: 'POST',
            url: '/console/api/keys',
            headers: { 'content-type': 'application/json' },
            payload: '{"alias":',
          },
          'body',
        ],
        [
          owner,
          {
            method: 'POST',
            url: '/console/api/keys',
            headers: { 'content-type': 'application/json' },
            payload: `${'['.repeat(100)}${']'.repeat(100)}`,
          },
          'body',
        ],
      ];
      for (const [browser, request, param] of cases) {
        const res = await as(browser, request);
        const what = `${request.method ?? 'GET'} ${request.url} ${JSON.stringify(request.payload ?? '')}`;
        expect(res.statusCode, `${what}: ${res.body}`).toBe(400);
        expect(res.json().error, what).toMatch(
          new RegExp(`^Bad Request: .*${param.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
        );
      }
      const huge = await as(owner, {
        method: 'POST',
        url: '/console/api/keys',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ alias: 'x'.repeat(2_000_000) }),
      });
      expect(huge.statusCode).toBe(413);
    });
  });

  // Last: it moves the clock a week on, past every session's idle end.
  describe('time', () => {
    it('ends an invitation after 7 days', async () => {
      const invited = (
        await as(owner, {
          method: 'POST',
          url: '/console/api/invites',
          payload: { email: 'late@acme.example', role: 'member' },
        })
      ).json();
      const token = invited.invite_url.split('/').pop();
      now += 7 * 86_400_000 + 1000;
      owner = await signIn(t, { email: 'ana@acme.example', password: PASSWORD });
      expect((await inject({ url: `/console/api/invites/${token}` })).statusCode).toBe(404);
      // Expired: no longer pending, and nothing to withdraw.
      expect((await as(owner, { url: '/console/api/invites' })).json().items).toEqual([]);
      const row = await t.runtime.store.db
        .selectFrom('console_invitations')
        .select('id')
        .where('email', '=', 'late@acme.example')
        .executeTakeFirstOrThrow();
      expect((await as(owner, { method: 'DELETE', url: `/console/api/invites/${row.id}` })).statusCode).toBe(
        404,
      );
    });
  });
});
