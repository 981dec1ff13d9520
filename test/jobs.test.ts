import type { InjectOptions } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/billing/accounts.js';
import { createKey } from '../src/billing/keys.js';
import {
  closedPort,
  startCanary,
  startServer,
  type TestServer,
  tableResolver,
} from './helpers/net-fixtures.js';
import { newAccountKey, reservationsOf, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * Async jobs on the in-process queue, end to end through HTTP: each engine's job, polling,
 * failures, bounds, billing, ownership, expiry, the checks at submission and the OpenAPI document.
 * What the queue itself does (run once, cancel, withdraw, webhooks, idempotency, a process that
 * stops or dies) is test/job-queue-contract.test.ts, over every adapter. The pages are served by
 * the test on 127.0.0.1; the queue is the database plus this process.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read the fields of JSON answers one by one
type Json = Record<string, any>;

let offsetMs = 0;
/** The runtime's clock: real time, moved forward by the tests that need a day to pass. */
const clock = () => new Date(Date.now() + offsetMs);

describe('async jobs (in-process queue)', () => {
  let site: TestServer;
  let canary: TestServer;
  let receiver: TestServer;
  let t: TestRuntime;
  let key: string;
  let otherKey: string;
  let slowRelease: (() => void)[] = [];
  let deadPort = 0;

  beforeAll(async () => {
    site = await startServer((req, res) => {
      res.sendDate = false;
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          '<!doctype html><html><head><title>Job page</title><meta name="description" content="A page for jobs"></head><body style="margin:0;background:#2060c0"><h1>Hello jobs</h1><p>Call us at +1 415 555 0100.</p></body></html>',
        );
      }
      if (url.pathname === '/hold') {
        // Answers when the test lets it: a job that stays running as long as the test needs.
        slowRelease.push(() => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html><body>released</body></html>');
        });
        return;
      }
      if (url.pathname === '/never') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html>');
        return;
      }
      res.writeHead(404).end();
    });
    canary = await startCanary();
    deadPort = await closedPort();
    // Named only by webhook URLs that submission refuses: never reached.
    receiver = await startServer((_req, res) => res.writeHead(204).end());
    t = await startTestRuntime('sqlite', {
      clock,
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port},127.0.0.1/32:${receiver.port},127.0.0.1/32:${deadPort}`,
        FETCH_TIMEOUT_MS: '15000',
        FETCH_HEADERS_TIMEOUT_MS: '10000',
        NAVIGATION_TIMEOUT_MS: '5000',
        JOB_CONCURRENCY: '1',
        JOB_TIMEOUT_MS: '20000',
        RESERVATION_HOLD_MS: '1000',
        JOB_RETENTION_SECONDS: '3600',
      },
      resolver: tableResolver({ 'site.example': ['127.0.0.1'], 'private.example': ['10.0.0.7'] }),
    });
    key = await newAccountKey(t, 'jobs', 1000);
    otherKey = await newAccountKey(t, 'other', 1000);
  });
  afterAll(async () => {
    for (const release of slowRelease) release();
    await t?.close();
    await site?.close();
    await canary?.close();
    await receiver?.close();
  });

  const page = (path = '/page') => `http://site.example:${site.port}${path}`;
  const inject = (options: InjectOptions) => t.runtime.app.inject(options);
  const submitCrawler = (query: Record<string, string>, headers: Record<string, string> = {}) =>
    inject({
      url: '/v1/website/crawler',
      query: { is_async: 'true', ...query },
      headers: { 'x-api-key': key, ...headers },
    });

  async function poll(
    id: string,
    done = (r: Json) => r.status === 'completed' || r.status === 'failed',
    as = key,
  ) {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const res = await inject({ url: `/jobs/${id}`, headers: { 'x-api-key': as } });
      expect(res.statusCode).toBe(200);
      const record = res.json() as Json;
      if (done(record)) return record;
      if (Date.now() > deadline) throw new Error(`job ${id} stuck: ${res.body}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const value = await read();
      if (ok(value)) return value;
      if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Holds the one job slot with a job on /hold until the returned function is called. */
  async function occupy(): Promise<{ id: string; release: () => Promise<Json> }> {
    const before = slowRelease.length;
    const res = await submitCrawler({ query: page('/hold') });
    expect(res.statusCode).toBe(202);
    const id = res.json().job_id as string;
    await waitFor(
      async () => slowRelease.length,
      (n) => n > before,
    );
    return {
      id,
      release: async () => {
        const pending = slowRelease;
        slowRelease = [];
        for (const release of pending) release();
        return poll(id);
      },
    };
  }

  describe('happy', () => {
    it('the page source of the crawler is data.html in a job', async () => {
      const res = await submitCrawler({ query: page(), return_page_source: 'true' });
      const done = await poll(res.json().job_id);
      expect(done.result.data.html).toContain('<h1>Hello jobs</h1>');
      expect(done.result.data.statusCode).toBe(200);
    });

    it('capture (v1 and legacy), content and analyze jobs complete with the synchronous bodies', async () => {
      const capture = await inject({
        url: '/v1/capture',
        query: { url: page(), is_async: 'true', viewport_width: '400', viewport_height: '300' },
        headers: { 'x-api-key': key },
      });
      expect(capture.statusCode).toBe(202);
      const legacy = await inject({
        method: 'POST',
        url: '/capture',
        payload: {
          url: page(),
          access_key: key,
          is_async: true,
          width: 320,
          height: 200,
          response_type: 'base64',
        },
      });
      expect(legacy.statusCode).toBe(202);
      const content = await inject({
        url: '/v1/content',
        query: { url: page(), is_async: '1', include_markdown: 'true' },
        headers: { 'x-api-key': key },
      });
      expect(content.statusCode).toBe(202);
      const legacyContent = await inject({
        url: '/content',
        query: { url: page(), access_key: key, is_async: 'true' },
      });
      expect(legacyContent.statusCode).toBe(202);
      const analyze = await inject({
        method: 'POST',
        url: '/v1/analyze',
        headers: { 'x-api-key': key },
        payload: { url: page(), is_async: true },
      });
      expect(analyze.statusCode).toBe(202);
      const legacyAnalyze = await inject({
        url: '/analyze',
        query: { url: page(), access_key: key, is_async: 'true' },
      });
      expect(legacyAnalyze.statusCode).toBe(202);

      const shot = await poll(capture.json().job_id);
      expect(shot.status).toBe('completed');
      expect(shot.endpoint).toBe('/v1/capture');
      expect(shot.result).toMatchObject({ success: true, format: 'png', width: 400, height: 300 });
      const file = await inject({
        url: new URL(shot.result.screenshot_url).pathname + new URL(shot.result.screenshot_url).search,
      });
      expect(file.statusCode).toBe(200);
      const meta = await sharp(file.rawPayload).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 400, 300]);
      expect(file.rawPayload.length).toBe(shot.result.size);

      const small = await poll(legacy.json().job_id);
      expect(small.endpoint).toBe('/capture');
      const bytes = Buffer.from(small.result.base64, 'base64');
      expect((await sharp(bytes).metadata()).width).toBe(320);

      const text = await poll(content.json().job_id);
      expect(text.result.success).toBe(true);
      expect(text.result.data.metadata.title).toBe('Job page');
      expect(text.result.data.markdown).toContain('Hello jobs');
      const sync = await inject({
        url: '/v1/content',
        query: { url: page(), include_markdown: 'true' },
        headers: { 'x-api-key': key },
      });
      expect(text.result).toEqual(sync.json());
      expect((await poll(legacyContent.json().job_id)).result.data.metadata.description).toBe(
        'A page for jobs',
      );

      const analysis = await poll(analyze.json().job_id);
      expect(analysis.result.success).toBe(true);
      expect(analysis.result.data.phoneNumbers).toEqual(['+14155550100']);
      expect((await poll(legacyAnalyze.json().job_id)).endpoint).toBe('/analyze');
    });

    it('polling works with the legacy key too, and is free', async () => {
      const res = await submitCrawler({ query: page() });
      // A free worker starts it at once; the answer still says what the submission did.
      expect(res.json().status).toBe('queued');
      const id = res.json().job_id;
      await poll(id);
      const before = await reservationsOf(t, 'jobs');
      for (let i = 0; i < 3; i++) {
        const legacy = await inject({ url: `/jobs/${id}`, query: { access_key: key } });
        expect(legacy.statusCode).toBe(200);
        expect(legacy.json().status).toBe('completed');
      }
      expect(await reservationsOf(t, 'jobs')).toEqual(before);
    });
  });

  describe('failures', () => {
    it('a page that cannot be reached ends the job failed with the synchronous error, unbilled', async () => {
      const before = await reservationsOf(t, 'jobs');
      // An address the guard allows (so the submission is accepted) where nothing listens.
      const res = await submitCrawler({ query: `http://127.0.0.1:${deadPort}/page` });
      expect(res.statusCode).toBe(202);
      const done = await poll(res.json().job_id);
      expect(done.status).toBe('failed');
      expect(done.result).toBeNull();
      expect(done.error.status).toBe(400);
      expect(done.error.error).toMatch(/^Bad Request: page could not be loaded/);
      const after = await reservationsOf(t, 'jobs');
      expect(after.committed).toBe(before.committed);
      expect(after.released - before.released).toBe(1);
      expect(after.reserved).toBe(0);
      // The request log's rows of the submission and of the job's end say what it was about, and
      // the end why it failed.
      await t.runtime.requestLog.flush();
      const target = `http://127.0.0.1:${deadPort}/page`;
      const rows = await t.runtime.store.db
        .selectFrom('request_log')
        .select(['status', 'target_url', 'error'])
        .where('target_url', '=', target)
        .orderBy('status')
        .execute();
      expect(rows).toEqual([
        { status: 202, target_url: target, error: null },
        { status: 400, target_url: target, error: done.error.error },
      ]);
    });

    it('a job past JOB_TIMEOUT_MS fails with 500 and is not billed', async () => {
      const slow = await startTestRuntime('sqlite', {
        env: {
          WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
          FETCH_TIMEOUT_MS: '60000',
          FETCH_HEADERS_TIMEOUT_MS: '60000',
          JOB_TIMEOUT_MS: '1000',
        },
        resolver: tableResolver({ 'site.example': ['127.0.0.1'] }),
      });
      try {
        const slowKey = await newAccountKey(slow, 'slow', 10);
        const res = await slow.runtime.app.inject({
          url: '/v1/website/crawler',
          query: { is_async: 'true', query: page('/never') },
          headers: { 'x-api-key': slowKey },
        });
        expect(res.statusCode).toBe(202);
        const id = res.json().job_id;
        let record: Json = {};
        const deadline = Date.now() + HANG_MS;
        while (record.status !== 'failed' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          record = (
            await slow.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': slowKey } })
          ).json();
        }
        expect(record.error).toEqual({
          status: 500,
          error: expect.stringMatching(/^Internal Error: timeout/),
        });
        const committed = await slow.runtime.store.db
          .selectFrom('reservations')
          .select('status')
          .where('status', '!=', 'released')
          .execute();
        expect(committed).toEqual([]);
      } finally {
        await slow.close();
      }
    });
  });

  describe('bounds', () => {
    it('past JOB_MAX_QUEUED queued jobs a submission is a 503 and nothing is reserved', async () => {
      const small = await startTestRuntime('sqlite', {
        env: {
          WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
          FETCH_TIMEOUT_MS: '60000',
          FETCH_HEADERS_TIMEOUT_MS: '60000',
          JOB_CONCURRENCY: '1',
          JOB_MAX_QUEUED: '2',
          JOB_SHUTDOWN_GRACE_MS: '100',
        },
        resolver: tableResolver({ 'site.example': ['127.0.0.1'] }),
      });
      try {
        const smallKey = await newAccountKey(small, 'small', 10);
        const submit = () =>
          small.runtime.app.inject({
            url: '/v1/website/crawler',
            query: { is_async: 'true', query: page('/never') },
            headers: { 'x-api-key': smallKey },
          });
        const statuses: number[] = [];
        // One runs (on a page that never ends), two wait; the fourth finds the queue full.
        for (let i = 0; i < 3; i++) {
          statuses.push((await submit()).statusCode);
          await waitFor(
            async () => small.runtime.store.db.selectFrom('jobs').select('status').execute(),
            (rows) => rows.some((row) => row.status === 'running'),
          );
        }
        const full = await submit();
        expect(statuses).toEqual([202, 202, 202]);
        expect(full.statusCode).toBe(503);
        expect(full.json().error).toMatch(/^Service Unavailable: the job queue is full/);
        expect(full.headers['retry-after']).toBeDefined();
        const held = await small.runtime.store.db.selectFrom('reservations').select('status').execute();
        expect(held.map((row) => row.status)).toEqual(['reserved', 'reserved', 'reserved']);
      } finally {
        await small.close();
      }
    });
  });

  describe('billing', () => {
    it('a job queued longer than RESERVATION_HOLD_MS keeps its unit and is billed exactly once', async () => {
      const before = await reservationsOf(t, 'jobs');
      const holder = await occupy();
      const res = await submitCrawler({ query: page() });
      const id = res.json().job_id;
      // Three holds pass, and the reservation sweep (every hold) runs meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      const during = await reservationsOf(t, 'jobs');
      expect(during.released).toBe(before.released);
      expect(during.reserved - before.reserved).toBe(2);
      await holder.release();
      expect((await poll(id)).status).toBe('completed');
      const after = await reservationsOf(t, 'jobs');
      expect(after.committed - before.committed).toBe(2);
      expect(after.released).toBe(before.released);
    });

    it('an account without units gets 402 at submission, and nothing is stored', async () => {
      const { db } = t.runtime.store;
      await createAccount(db, { name: 'broke', slug: 'broke', monthlyQuota: 0 }, new Date());
      const brokeKey = (await createKey(db, { accountSlug: 'broke' }, new Date())).plaintext;
      const res = await inject({
        url: '/v1/website/crawler',
        query: { is_async: 'true', query: page() },
        headers: { 'x-api-key': brokeKey },
      });
      expect(res.statusCode).toBe(402);
      expect(res.json()).toEqual({
        error: 'Insufficient credits: no subscription quota, pack or credits left; add a pack or credits',
      });
      const jobs = await db
        .selectFrom('jobs')
        .innerJoin('accounts', 'accounts.id', 'jobs.account_id')
        .select('jobs.id')
        .where('accounts.slug', '=', 'broke')
        .execute();
      expect(jobs).toEqual([]);
    });
  });

  describe('ownership, expiry', () => {
    it("another account's key gets 404, as does an unknown job; a bad id is a 400", async () => {
      const res = await submitCrawler({ query: page() });
      const id = res.json().job_id;
      await poll(id);
      for (const method of ['GET', 'DELETE'] as const) {
        const other = await inject({ method, url: `/jobs/${id}`, headers: { 'x-api-key': otherKey } });
        expect(other.statusCode).toBe(404);
        expect(other.json()).toEqual({ error: 'Not Found' });
      }
      expect(
        (await inject({ url: '/jobs/job_000000000000nothing', headers: { 'x-api-key': key } })).statusCode,
      ).toBe(404);
      expect((await inject({ url: '/jobs/..%2F..%2Fetc', headers: { 'x-api-key': key } })).statusCode).toBe(
        400,
      );
      const anonymous = await inject({ url: `/jobs/${id}` });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual({ error: 'Invalid API Key' });
    });

    it('a finished job is gone (404) after its retention', async () => {
      const res = await submitCrawler({ query: page() });
      const id = res.json().job_id;
      await poll(id);
      offsetMs += 3_601_000;
      try {
        const gone = await inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } });
        expect(gone.statusCode).toBe(404);
        expect(gone.json()).toEqual({ error: 'Not Found' });
      } finally {
        offsetMs = 0;
      }
    });
  });

  describe('webhook URLs', () => {
    it('a webhook URL on a private or unlisted address is refused at submission, nothing reserved', async () => {
      const before = await reservationsOf(t, 'jobs');
      for (const url of [
        'http://10.0.0.1/hook',
        'http://169.254.169.254/latest/meta-data',
        `http://127.0.0.1:${canary.port}/hook`,
        `http://private.example:${receiver.port}/hook`,
        'ftp://example.com/hook',
      ]) {
        const res = await submitCrawler({ query: page(), webhook_url: url });
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error).toMatch(/webhook_url/);
      }
      expect(await reservationsOf(t, 'jobs')).toEqual(before);
      expect(canary.connections()).toBe(0);
    });

    it('a webhook host that does not resolve is a 400 naming webhook_url, not a page that could not be loaded', async () => {
      const before = await reservationsOf(t, 'jobs');
      const res = await submitCrawler({ query: page(), webhook_url: 'http://hooks.nowhere.test/hook' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error:
          'Bad Request: webhook_url names a host that could not be resolved (host not found (ENOTFOUND))',
      });
      expect(await reservationsOf(t, 'jobs')).toEqual(before);
    });
  });

  describe('OpenAPI', () => {
    it('documents the 202 of every async endpoint and the job routes', async () => {
      const doc = (await inject({ url: '/openapi.json' })).json();
      for (const [route, method] of [
        ['/v1/capture', 'get'],
        ['/v1/content', 'get'],
        ['/v1/analyze', 'post'],
        ['/v1/website/crawler', 'get'],
        ['/capture', 'post'],
        ['/content', 'get'],
        ['/analyze', 'get'],
      ] as const) {
        expect(doc.paths[route][method].responses['202'], `${method} ${route}`).toBeDefined();
      }
      expect(Object.keys(doc.paths['/jobs/{job_id}']).sort()).toEqual(['delete', 'get']);
      expect(Object.keys(doc.paths['/jobs/{job_id}'].get.responses).sort()).toEqual([
        '200',
        '400',
        '401',
        '403',
        '404',
        '503',
      ]);
      expect(Object.keys(doc.paths['/jobs/{job_id}'].delete.responses)).toContain('409');
    });
  });

  describe('errors and security', () => {
    it('bad async parameters are 400s naming them', async () => {
      const cases: [Record<string, string>, Record<string, string>, RegExp][] = [
        [
          { query: page(), webhook_url: `http://127.0.0.1:${receiver.port}/`, is_async: 'false' },
          {},
          /webhook_url needs is_async/,
        ],
        [{ query: page(), is_async: 'maybe' }, {}, /is_async/],
        [{ query: page(), webhook_url: 'x'.repeat(3000) }, {}, /webhook_url/],
        // Header names are case-insensitive: the schema's bounds name it as sent, lower case.
        [{ query: page() }, { 'idempotency-key': '' }, /Idempotency-Key/i],
        [{ query: page() }, { 'idempotency-key': 'k'.repeat(300) }, /Idempotency-Key/i],
        [{ query: page() }, { 'idempotency-key': 'tab\there' }, /Idempotency-Key/],
        [{ query: 'file:///etc/passwd' }, {}, /query/],
      ];
      for (const [query, headers, message] of cases) {
        const res = await inject({
          url: '/v1/website/crawler',
          query: { is_async: 'true', ...query },
          headers: { 'x-api-key': key, ...headers },
        });
        expect(res.statusCode, JSON.stringify(query)).toBe(400);
        expect(res.json().error).toMatch(message);
      }
    });

    it("a job's stored parameters do not hold the caller's S3 secret key or proxy password", async () => {
      const res = await inject({
        url: '/v1/capture',
        query: {
          url: page(),
          is_async: 'true',
          proxy: `http://user:Proxy-Pass-9f3k@127.0.0.1:${deadPort}`,
          s3_url: 'true',
          s3_access_key_id: 'AKIAEXAMPLE',
          s3_secret_key: 'S3-Secret-Value-77x',
          s3_bucket: 'bucket',
          storage_endpoint: `http://127.0.0.1:${site.port}`,
        },
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode).toBe(202);
      const row = await t.runtime.store.db
        .selectFrom('jobs')
        .selectAll()
        .where('id', '=', res.json().job_id)
        .executeTakeFirstOrThrow();
      const stored = JSON.stringify(row);
      expect(stored).not.toContain('S3-Secret-Value-77x');
      expect(stored).not.toContain('Proxy-Pass-9f3k');
      expect(stored).not.toContain('AKIAEXAMPLE');
      expect(row.params).toMatch(/^v1\./);
      await poll(res.json().job_id);
    });
  });
});
