import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookSecret } from '../src/jobs/webhook-secret.js';
import { type CrawlSite, isPage, ORPHANS, startCrawlSite } from './helpers/crawl-site.js';
import { dropDatabase } from './helpers/databases.js';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, reservationsOf, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * POST /v1/crawl end to end on SQLite with the in-process queue (real Chromium, the fixture site
 * of test/helpers/crawl-site.ts): what a crawl fetches, what it bills, and how it ends.
 */

interface CrawlPage {
  url: string;
  final_url?: string;
  status: 'completed' | 'failed' | 'skipped';
  status_code: number | null;
  depth: number;
  error?: string;
  markdown?: string;
  links?: string[];
  metadata?: { title: string };
}

interface CrawlRecordJson {
  status: string;
  stop_reason: string | null;
  counts: {
    discovered: number;
    completed: number;
    failed: number;
    skipped: number;
    credits_used: number;
    running: number;
  };
  pages: CrawlPage[];
  next: string | null;
  cursor: string | null;
}

describe('crawl: whole sites on the job queue', () => {
  let site: CrawlSite;
  let t: TestRuntime;
  let receiver: TestServer;
  /** What the webhook receiver got, in order. */
  const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

  beforeAll(async () => {
    site = await startCrawlSite();
    receiver = await startServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port},127.0.0.1/32:${receiver.port}`,
        WEBHOOK_BACKOFF_MS: '200',
        BROWSER_CONCURRENCY: '2',
        JOB_CONCURRENCY: '4',
        NAVIGATION_TIMEOUT_MS: '5000',
        CRAWL_MAX_PAGES: '500',
      },
      resolver: site.resolver,
    });
  });

  afterAll(async () => {
    await t?.close();
    await site?.close();
    await receiver?.close();
  });

  async function start(
    key: string,
    body: object,
  ): Promise<{ status: number; json: { crawl_id: string; error?: string } }> {
    const res = await t.runtime.app.inject({
      method: 'POST',
      url: '/v1/crawl',
      headers: { 'x-api-key': key },
      payload: body,
    });
    return { status: res.statusCode, json: res.json() };
  }

  async function read(key: string, id: string, cursor?: string): Promise<CrawlRecordJson> {
    const query = cursor === undefined ? '' : `?cursor=${cursor}&limit=100`;
    const res = await t.runtime.app.inject({
      method: 'GET',
      url: `/v1/crawl/${id}${query === '' ? '?limit=100' : query}`,
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as CrawlRecordJson;
  }

  /** Polls until the crawl has ended and its last pages have finished; a hang fails at HANG_MS. */
  async function ended(key: string, id: string): Promise<CrawlRecordJson> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const record = await read(key, id);
      if (!['queued', 'running'].includes(record.status) && record.counts.running === 0) return record;
      if (Date.now() > deadline) throw new Error(`crawl ${id} still ${record.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Every page of the crawl, following `next` cursors. */
  async function allPages(key: string, id: string): Promise<CrawlPage[]> {
    const pages: CrawlPage[] = [];
    let cursor: string | undefined;
    for (;;) {
      const record = await read(key, id, cursor);
      pages.push(...record.pages);
      if (record.next === null || record.pages.length === 0) return pages;
      cursor = record.cursor ?? undefined;
    }
  }

  describe('happy', () => {
    it('crawls within depth and limit, each page once, billing what completed', async () => {
      const key = await newAccountKey(t, 'crawl-happy', 1000);
      const from = site.log.length;
      const { status, json } = await start(key, {
        url: `${site.origin()}/`,
        limit: 40,
        max_depth: 2,
        sitemap: 'skip',
        formats: ['markdown', 'links', 'metadata'],
      });
      expect(status).toBe(202);
      const record = await ended(key, json.crawl_id);
      expect(record.status).toBe('completed');
      const pages = await allPages(key, json.crawl_id);
      expect(pages.length).toBe(record.counts.completed + record.counts.failed + record.counts.skipped);
      const byUrl = new Map(pages.map((page) => [page.url, page]));
      expect(byUrl.size).toBe(pages.length);
      const o = site.origin();
      expect(byUrl.get(`${o}/`)?.status).toBe('completed');
      expect(byUrl.get(`${o}/`)?.metadata?.title).toBe('Home');
      expect(byUrl.get(`${o}/`)?.markdown).toContain('This is Home');
      expect(byUrl.get(`${o}/missing`)).toMatchObject({ status: 'failed', status_code: 404 });
      // A page that never answers fails alone, at the navigation timeout.
      expect(byUrl.get(`${o}/stall`)).toMatchObject({ status: 'failed', status_code: null });
      // A redirect is a link to its target: recorded, not followed, its target crawled once.
      expect(byUrl.get(`${o}/moved`)).toMatchObject({
        status: 'skipped',
        status_code: 302,
        final_url: `${o}/docs/1`,
      });
      expect(byUrl.get(`${o}/docs/1`)?.status).toBe('completed');
      expect(byUrl.get(`${o}/away`)).toMatchObject({
        status: 'skipped',
        final_url: `${site.origin('other.test')}/landing`,
      });
      expect(site.hits.get('other.test/landing')).toBeUndefined();
      // Not on the site (no allow_subdomains, no allow_external), disallowed, or not a page.
      for (const url of pages.map((page) => page.url)) {
        expect(url.startsWith(`${o}/`)).toBe(true);
        expect(url).not.toContain('/private');
        expect(url).not.toContain('utm_source');
      }
      // Depth: the home page is 0; nothing is deeper than 2.
      expect(Math.max(...pages.map((page) => page.depth))).toBe(2);
      expect(pages.length).toBeLessThanOrEqual(40);
      // Each page fetched once at most, and robots.txt once for the host.
      const counts = new Map<string, number>();
      for (const hit of site.log.slice(from)) counts.set(hit.key, (counts.get(hit.key) ?? 0) + 1);
      for (const [path, count] of counts) {
        if (isPage(path)) expect({ path, count }).toEqual({ path, count: 1 });
      }
      expect(counts.get('site.test/robots.txt')).toBe(1);
      expect(counts.get('site.test/private/secret')).toBeUndefined();
      // Billed: exactly the completed pages, nothing left held.
      expect(record.counts.credits_used).toBe(record.counts.completed);
      expect(await reservationsOf(t, 'crawl-happy')).toEqual({
        reserved: 0,
        committed: record.counts.completed,
        released: expect.any(Number),
      });
      // Each page's request-log row names the page, and a failed page why it failed.
      await t.runtime.requestLog.flush();
      const logged = await t.runtime.store.db
        .selectFrom('request_log')
        .innerJoin('accounts', 'accounts.id', 'request_log.account_id')
        .select(['request_log.status', 'target_url', 'error'])
        .where('accounts.slug', '=', 'crawl-happy')
        .where('target_url', 'in', [`${o}/`, `${o}/missing`])
        .orderBy('target_url')
        .orderBy('request_log.status', 'desc')
        .execute();
      expect(logged).toEqual([
        // The submission, then the start page.
        { status: 202, target_url: `${o}/`, error: null },
        { status: 200, target_url: `${o}/`, error: null },
        { status: 200, target_url: `${o}/missing`, error: 'the page answered 404' },
      ]);
    });
  });

  describe('scope', () => {
    it('takes only the sitemap with sitemap=only: its nested, gzipped files, none of the links', async () => {
      const key = await newAccountKey(t, 'crawl-sitemap', 1000);
      const { json } = await start(key, { url: `${site.origin()}/`, sitemap: 'only', limit: 100 });
      const record = await ended(key, json.crawl_id);
      expect(record.status).toBe('completed');
      const urls = (await allPages(key, json.crawl_id)).map((page) => page.url).sort();
      const o = site.origin();
      const expected = [
        ...Array.from({ length: 10 }, (_, i) => `${o}/docs/${i}`),
        ...Array.from({ length: ORPHANS }, (_, i) => `${o}/orphans/${i}`),
      ].sort();
      expect(urls).toEqual(expected);
      expect(record.counts.credits_used).toBe(expected.length);
    });

    it('matches include_paths and exclude_paths against the path, and stays on the host', async () => {
      const key = await newAccountKey(t, 'crawl-paths', 1000);
      const { json } = await start(key, {
        url: `${site.origin()}/`,
        sitemap: 'skip',
        limit: 25,
        max_depth: 5,
        include_paths: ['/docs/*'],
        exclude_paths: ['/docs/2*'],
      });
      await ended(key, json.crawl_id);
      const paths = (await allPages(key, json.crawl_id)).map((page) => new URL(page.url).pathname);
      expect(paths).toContain('/');
      for (const path of paths.filter((p) => p !== '/')) {
        expect(path.startsWith('/docs/')).toBe(true);
        expect(path.startsWith('/docs/2')).toBe(false);
      }
      expect(paths.length).toBeGreaterThan(5);
    });

    it('follows subdomains and other sites only when asked; a host that hangs fails its page alone', async () => {
      const key = await newAccountKey(t, 'crawl-hosts', 1000);
      const o = site.origin();
      const narrow = await start(key, { url: `${o}/`, sitemap: 'skip', max_depth: 1, limit: 100 });
      const narrowUrls = (
        await (async () => {
          await ended(key, narrow.json.crawl_id);
          return allPages(key, narrow.json.crawl_id);
        })()
      ).map((page) => page.url);
      expect(narrowUrls).not.toContain(`${site.origin('docs.site.test')}/`);
      const wide = await start(key, {
        url: `${o}/`,
        sitemap: 'skip',
        max_depth: 1,
        limit: 100,
        allow_subdomains: true,
        allow_external: true,
      });
      const record = await ended(key, wide.json.crawl_id);
      expect(record.status).toBe('completed');
      const pages = await allPages(key, wide.json.crawl_id);
      const byUrl = new Map(pages.map((page) => [page.url, page]));
      expect(byUrl.get(`${site.origin('docs.site.test')}/`)?.status).toBe('completed');
      expect(byUrl.get(`${site.origin('other.test')}/`)?.status).toBe('completed');
      // Its robots.txt never answers either: RFC 9309 §2.3.1.4 takes the site as disallowed.
      expect(byUrl.get(`${site.origin('hang.test')}/`)).toMatchObject({
        status: 'skipped',
        error: 'disallowed by robots.txt',
      });
    });

    it("sends the caller's headers and cookies to the start page's origin only", async () => {
      const key = await newAccountKey(t, 'crawl-secrets', 1000);
      const from = site.log.length;
      const { json } = await start(key, {
        url: `${site.origin()}/`,
        sitemap: 'skip',
        max_depth: 1,
        limit: 100,
        allow_subdomains: true,
        allow_external: true,
        headers: { 'X-Secret': 's3cret' },
        cookies: 'sid=abc123',
      });
      await ended(key, json.crawl_id);
      const pages = site.log.slice(from).filter((hit) => isPage(hit.key) && !hit.key.startsWith('hang.test'));
      const own = pages.filter((hit) => hit.key.startsWith('site.test/'));
      const others = pages.filter((hit) => !hit.key.startsWith('site.test/'));
      expect(own.length).toBeGreaterThan(3);
      expect(others.length).toBeGreaterThan(0);
      for (const hit of own) expect(hit).toMatchObject({ secret: 's3cret', cookie: 'sid=abc123' });
      for (const hit of others)
        expect({ key: hit.key, secret: hit.secret, cookie: hit.cookie }).toEqual({ key: hit.key });
    });

    it('bounds a calendar that never ends by depth', async () => {
      const key = await newAccountKey(t, 'crawl-trap', 1000);
      const { json } = await start(key, {
        url: `${site.origin()}/cal/2026/1`,
        sitemap: 'skip',
        max_depth: 15,
        limit: 500,
      });
      const record = await ended(key, json.crawl_id);
      expect(record.status).toBe('completed');
      expect(record.counts.completed).toBe(16);
    });
  });

  describe('politeness', () => {
    it("spaces a host's pages by its Crawl-delay, across the crawl's concurrency", async () => {
      const key = await newAccountKey(t, 'crawl-polite', 1000);
      site.crawlDelaySeconds = 1;
      try {
        const { json } = await start(key, {
          url: `${site.origin()}/blog/0`,
          sitemap: 'skip',
          max_depth: 3,
          limit: 4,
          max_concurrency: 4,
        });
        const from = site.log.length;
        await ended(key, json.crawl_id);
        // Each page ran in its own slot of the host (not_before), slots a Crawl-delay apart.
        const rows = await t.runtime.store.db
          .selectFrom('crawl_pages')
          .select(['url', 'not_before'])
          .where('crawl_id', '=', json.crawl_id)
          .where('kind', '=', 'page')
          .orderBy('not_before')
          .execute();
        expect(rows.length).toBe(4);
        const slots = rows.map((row) => Date.parse(row.not_before ?? ''));
        // The first page runs before robots.txt is read; every later slot keeps the delay.
        for (let i = 2; i < slots.length; i++) {
          expect((slots[i] as number) - (slots[i - 1] as number)).toBeGreaterThanOrEqual(1000);
        }
        const arrivals = site.log.slice(from).filter((hit) => isPage(hit.key));
        for (const [i, row] of rows.entries()) {
          const key = row.url.replace(/^http:\/\/([^/:]+):\d+/, '$1');
          const arrived = arrivals.find((hit) => hit.key === key);
          expect(arrived?.at ?? 0).toBeGreaterThanOrEqual(slots[i] as number);
        }
      } finally {
        site.crawlDelaySeconds = null;
      }
    });

    it('cancels: pages not started never are, and the crawl says cancelled', async () => {
      const key = await newAccountKey(t, 'crawl-cancel', 1000);
      const from = site.log.length;
      const { json } = await start(key, {
        url: `${site.origin()}/docs/100`,
        sitemap: 'skip',
        limit: 50,
        delay: 1.5,
      });
      for (;;) {
        const record = await read(key, json.crawl_id);
        if (record.counts.completed >= 1) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const del = await t.runtime.app.inject({
        method: 'DELETE',
        url: `/v1/crawl/${json.crawl_id}`,
        headers: { 'x-api-key': key },
      });
      expect(del.statusCode).toBe(200);
      expect(del.json().status).toBe('cancelled');
      const record = await ended(key, json.crawl_id);
      // Past the next slot of the host, nothing more was fetched than the crawl lists.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const pages = await allPages(key, json.crawl_id);
      const fetched = site.log
        .slice(from)
        .filter((hit) => hit.key.startsWith('site.test/') && isPage(hit.key));
      expect(fetched.length).toBe(pages.length);
      expect(record.counts.credits_used).toBe(record.counts.completed);
      expect(await reservationsOf(t, 'crawl-cancel')).toMatchObject({ reserved: 0 });
    });
  });

  describe('restarts', () => {
    it('survives a restart of its process: the pages it had go back to the queue, each billed once', async () => {
      const env = {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '2',
        JOB_CONCURRENCY: '3',
        NAVIGATION_TIMEOUT_MS: '20000',
        // Runs still going when the process stops are handed back at once.
        JOB_SHUTDOWN_GRACE_MS: '0',
      };
      const first = await startTestRuntime('sqlite', { env, resolver: site.resolver });
      let firstOpen = true;
      let next: TestRuntime | undefined;
      site.slowMs = 300;
      try {
        const key = await newAccountKey(first, 'crawl-restart', 1000);
        const res = await first.runtime.app.inject({
          method: 'POST',
          url: '/v1/crawl',
          headers: { 'x-api-key': key },
          payload: {
            url: `${site.origin()}/blog/0`,
            limit: 15,
            max_concurrency: 3,
            sitemap: 'skip',
            include_paths: ['/blog/*'],
            max_depth: 20,
          },
        });
        const id = res.json().crawl_id as string;
        const readOn = async (rt: TestRuntime) =>
          (
            await rt.runtime.app.inject({ url: `/v1/crawl/${id}?limit=100`, headers: { 'x-api-key': key } })
          ).json() as CrawlRecordJson;
        const deadline = Date.now() + HANG_MS;
        for (
          let record = await readOn(first);
          record.counts.completed < 3 || record.counts.running < 1;
          record = await readOn(first)
        ) {
          if (Date.now() > deadline) throw new Error(`crawl ${id}: ${JSON.stringify(record.counts)}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        firstOpen = false;
        await first.runtime.close();
        next = await startTestRuntime('sqlite', { env, resolver: site.resolver, sharing: first });
        let record = await readOn(next);
        while (['queued', 'running'].includes(record.status) || record.counts.running > 0) {
          if (Date.now() > deadline) throw new Error(`crawl ${id}: ${JSON.stringify(record.counts)}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
          record = await readOn(next);
        }
        expect(record.status).toBe('completed');
        expect(record.pages.filter((p) => p.status !== 'completed')).toEqual([]);
        expect(record.counts).toMatchObject({ discovered: 15, completed: 15, credits_used: 15 });
        expect(new Set(record.pages.map((page) => page.url)).size).toBe(15);
        expect(await reservationsOf(next, 'crawl-restart')).toMatchObject({ reserved: 0, committed: 15 });
      } finally {
        site.slowMs = 0;
        await next?.close();
        if (firstOpen) await first.runtime.close();
        await dropDatabase(first.config.database);
      }
    });
  });

  describe('webhooks', () => {
    it('sends crawl.started, each crawl.page and crawl.completed, signed with the account secret', async () => {
      const key = await newAccountKey(t, 'crawl-hooks', 1000);
      const { json } = await start(key, {
        url: `${site.origin()}/blog/0`,
        sitemap: 'skip',
        limit: 3,
        webhook_url: `http://127.0.0.1:${receiver.port}/hooks`,
      });
      await ended(key, json.crawl_id);
      const account = await t.runtime.store.db
        .selectFrom('accounts')
        .select('id')
        .where('slug', '=', 'crawl-hooks')
        .executeTakeFirstOrThrow();
      const secret = await webhookSecret(t.runtime.store.db, account.id);
      const deadline = Date.now() + HANG_MS;
      // Delivered at least once, each event on its own: a retry repeats a body, and the last page's
      // event may come after crawl.completed. Distinct bodies, once all five have come.
      const mine = () => {
        const bodies = new Map<string, (typeof received)[number]>();
        for (const r of received) if (r.headers['webcap-crawl-id'] === json.crawl_id) bodies.set(r.body, r);
        return [...bodies.values()];
      };
      while (mine().length < 5) {
        if (Date.now() > deadline) throw new Error(`webhooks: ${JSON.stringify(mine().map((r) => r.body))}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const events = mine().map((r) => {
        const [, stamp, mac] =
          /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['webcap-signature'])) ?? [];
        expect(createHmac('sha256', secret).update(`${stamp}.`).update(r.body).digest('hex')).toBe(mac);
        return JSON.parse(r.body) as {
          type: string;
          crawl_id: string;
          data: { url?: string; status?: string };
        };
      });
      const types = events.map((event) => event.type).sort();
      expect(types).toEqual(['crawl.completed', 'crawl.page', 'crawl.page', 'crawl.page', 'crawl.started']);
      const pages = events.filter((event) => event.type === 'crawl.page').map((event) => event.data.url);
      expect(pages).toContain(`${site.origin()}/blog/0`);
      expect(events.find((event) => event.type === 'crawl.completed')?.data.status).toBe('completed');
    });

    it('refuses a webhook the network policy refuses', async () => {
      const key = await newAccountKey(t, 'crawl-hook-refused', 10);
      const { status, json } = await start(key, {
        url: `${site.origin()}/`,
        webhook_url: 'http://10.0.0.1/hooks',
      });
      expect(status).toBe(400);
      expect(json.error).toContain('webhook_url');
    });

    it('refuses a webhook host that does not resolve as a 400 naming webhook_url', async () => {
      const key = await newAccountKey(t, 'crawl-hook-unresolved', 10);
      const { status, json } = await start(key, {
        url: `${site.origin()}/`,
        webhook_url: 'http://hooks.nowhere.test/crawl',
      });
      expect({ status, error: json.error }).toEqual({
        status: 400,
        error:
          'Bad Request: webhook_url names a host that could not be resolved (host not found (ENOTFOUND))',
      });
    });
  });

  describe('Idempotency-Key', () => {
    async function post(key: string, body: object, idempotencyKey: string, host?: string) {
      return t.runtime.app.inject({
        method: 'POST',
        url: '/v1/crawl',
        headers: { 'x-api-key': key, 'idempotency-key': idempotencyKey, ...(host ? { host } : {}) },
        payload: body,
      });
    }

    it('names one crawl under concurrent submissions, holding one unit', async () => {
      const key = await newAccountKey(t, 'crawl-idem', 10);
      const body = { url: `${site.origin()}/orphans/2`, limit: 1, sitemap: 'skip' };
      const answers = await Promise.all(Array.from({ length: 6 }, () => post(key, body, 'start-once')));
      // A submission that lost the race while the winner was being stored may be told to retry.
      const settled = await Promise.all(
        answers.map((res) => (res.statusCode === 409 ? post(key, body, 'start-once') : res)),
      );
      expect(settled.map((res) => res.statusCode)).toEqual(Array(6).fill(202));
      const ids = new Set(settled.map((res) => res.json().crawl_id));
      expect(ids.size).toBe(1);
      expect(settled.filter((res) => res.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
      const id = [...ids][0] as string;
      const record = await ended(key, id);
      expect(record.counts).toMatchObject({ completed: 1, credits_used: 1 });
      expect(await reservationsOf(t, 'crawl-idem')).toMatchObject({ reserved: 0, committed: 1 });
      // Replayed after the end: the same crawl, as it stands now, nothing reserved; through
      // another host name too (where hosted files are linked from is not a parameter).
      for (const host of [undefined, 'webcap.internal.example:8443']) {
        const again = await post(key, body, 'start-once', host);
        expect(again.statusCode, again.body).toBe(202);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.json()).toMatchObject({ crawl_id: id, status: 'completed' });
      }
      expect(await reservationsOf(t, 'crawl-idem')).toMatchObject({ reserved: 0, committed: 1 });
    });

    it('refuses the key with other parameters, for a batch, or malformed', async () => {
      const key = await newAccountKey(t, 'crawl-idem-other', 10);
      const body = { url: `${site.origin()}/orphans/3`, limit: 1, sitemap: 'skip' };
      const first = await post(key, body, 'reused');
      expect(first.statusCode).toBe(202);
      const other = await post(key, { ...body, limit: 2 }, 'reused');
      expect(other.statusCode).toBe(400);
      expect(other.json().error).toContain('Idempotency-Key');
      const batch = await t.runtime.app.inject({
        method: 'POST',
        url: '/v1/batch',
        headers: { 'x-api-key': key, 'idempotency-key': 'reused' },
        payload: { engine: 'content', urls: [`${site.origin()}/orphans/4`] },
      });
      expect(batch.statusCode).toBe(400);
      expect(batch.json().error).toContain('Idempotency-Key');
      const malformed = await post(key, body, ' padded ');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().error).toContain('Idempotency-Key');
      await ended(key, first.json().crawl_id);
      expect(await reservationsOf(t, 'crawl-idem-other')).toMatchObject({ reserved: 0, committed: 1 });
    });
  });

  describe('errors', () => {
    it('refuses what it cannot run, naming the parameter', async () => {
      const key = await newAccountKey(t, 'crawl-errors', 10);
      const o = site.origin();
      const cases: [object, string][] = [
        [{ url: `${o}/`, limit: 501 }, 'limit'],
        [{ url: `${o}/`, limit: 0 }, 'limit'],
        [{ url: `${o}/`, max_concurrency: 257 }, 'max_concurrency'],
        [{ url: `${o}/`, include_paths: Array.from({ length: 51 }, () => '/a/*') }, 'include_paths'],
        [{ url: `${o}/`, exclude_paths: ['x'.repeat(513)] }, 'exclude_paths'],
        [{ url: `${o}/`, sitemap: 'sometimes' }, 'sitemap'],
        [{ url: `${o}/`, formats: ['pdf'] }, 'formats'],
        [{ url: 'ftp://site.test/' }, 'url'],
        [{ url: 'http://user:pw@site.test/' }, 'url'],
        [{ url: `${o}/`, delay: 61 }, 'delay'],
      ];
      for (const [body, name] of cases) {
        const { status, json } = await start(key, body);
        expect({ body, status }).toEqual({ body, status: 400 });
        expect(json.error).toContain(name);
      }
    });

    it("answers another account's crawl as not found", async () => {
      const owner = await newAccountKey(t, 'crawl-owner', 10);
      const other = await newAccountKey(t, 'crawl-other', 10);
      const { json } = await start(owner, { url: `${site.origin()}/orphans/1`, limit: 1, sitemap: 'skip' });
      const res = await t.runtime.app.inject({
        method: 'GET',
        url: `/v1/crawl/${json.crawl_id}`,
        headers: { 'x-api-key': other },
      });
      expect(res.statusCode).toBe(404);
      const del = await t.runtime.app.inject({
        method: 'DELETE',
        url: `/v1/crawl/${json.crawl_id}`,
        headers: { 'x-api-key': other },
      });
      expect(del.statusCode).toBe(404);
      await ended(owner, json.crawl_id);
    });

    it('stops with payment_required when the balance runs out, keeping what it fetched', async () => {
      const key = await newAccountKey(t, 'crawl-poor', 3);
      const { json } = await start(key, { url: `${site.origin()}/blog/0`, limit: 20, sitemap: 'skip' });
      const record = await ended(key, json.crawl_id);
      expect(record.status).toBe('stopped');
      expect(record.stop_reason).toBe('payment_required');
      expect(record.counts.completed).toBe(3);
      expect(record.counts.credits_used).toBe(3);
      const committed = await reservationsOf(t, 'crawl-poor');
      expect(committed).toMatchObject({ reserved: 0, committed: 3 });
      // A new crawl on the spent balance is refused at once.
      expect((await start(key, { url: `${site.origin()}/`, limit: 2 })).status).toBe(402);
    });

    it('does not stop while a unit is held by a page that may give it back', async () => {
      // One credit after /pair for two pages: /pair/held, which fails (its unit given back) only
      // once released, and /pair/next. Whichever is refused waits for the other to settle.
      const key = await newAccountKey(t, 'crawl-held', 2);
      const { json } = await start(key, {
        url: `${site.origin()}/pair`,
        sitemap: 'skip',
        max_concurrency: 2,
      });
      const { db } = t.runtime.store;
      const deadline = Date.now() + HANG_MS;
      for (;;) {
        // A page put back for another's unit runs again no earlier than 500 ms after it was queued.
        const pages = await db
          .selectFrom('crawl_pages')
          .select(['queued_at', 'not_before'])
          .where('crawl_id', '=', json.crawl_id)
          .where('state', '=', 'queued')
          .execute();
        const waiting = pages.some(
          ({ queued_at, not_before }) =>
            queued_at !== null &&
            not_before !== null &&
            Date.parse(not_before) - Date.parse(queued_at) >= 500,
        );
        if (waiting || !['queued', 'running'].includes((await read(key, json.crawl_id)).status)) break;
        if (Date.now() > deadline) throw new Error('no page of the crawl waited for a unit');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      site.releaseHeld();
      const record = await ended(key, json.crawl_id);
      // /pair and one of the two completed, each billed; the held one failed or was never fetched.
      expect(record.counts.completed).toBe(2);
      expect(record.counts.credits_used).toBe(2);
      expect(await reservationsOf(t, 'crawl-held')).toMatchObject({ reserved: 0, committed: 2 });
      if (site.heldAsked()) {
        expect(record.status).toBe('completed');
        expect(record.counts.failed).toBe(1);
      } else {
        expect(record.status).toBe('stopped');
        expect(record.stop_reason).toBe('payment_required');
      }
    });
  });
});
