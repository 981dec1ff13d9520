import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CrawlSite, startCrawlSite } from './helpers/crawl-site.js';
import { newAccountKey, reservationsOf, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * POST /v1/batch end to end on SQLite with the in-process queue (real Chromium, the crawl fixture
 * site): items checked at the edge, run as jobs' calls, billed per success, listed as they finish.
 */

interface Item {
  index: number;
  url: string;
  status: 'completed' | 'failed';
  status_code: number;
  error?: string;
  result?: {
    success?: boolean;
    data?: { metadata?: { title: string }; markdown?: string };
    screenshot_url?: string;
  };
}

interface BatchJson {
  status: string;
  counts: { total: number; completed: number; failed: number; credits_used: number; running: number };
  items: Item[];
  next: string | null;
  cursor: string | null;
}

describe('batch: many pages, one engine', () => {
  let site: CrawlSite;
  let t: TestRuntime;

  beforeAll(async () => {
    site = await startCrawlSite();
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '2',
        JOB_CONCURRENCY: '3',
        NAVIGATION_TIMEOUT_MS: '20000',
      },
      resolver: site.resolver,
    });
  });

  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  async function start(key: string, body: object) {
    const res = await t.runtime.app.inject({
      method: 'POST',
      url: '/v1/batch',
      headers: { 'x-api-key': key },
      payload: body,
    });
    return { status: res.statusCode, json: res.json() as { batch_id: string; error?: string } };
  }

  async function ended(key: string, id: string): Promise<BatchJson> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const res = await t.runtime.app.inject({
        url: `/v1/batch/${id}?limit=100`,
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode).toBe(200);
      const batch = res.json() as BatchJson;
      if (!['queued', 'running'].includes(batch.status) && batch.counts.running === 0) return batch;
      if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('runs content over each URL with its own options, billing what succeeded', async () => {
    const key = await newAccountKey(t, 'batch-content', 100);
    const o = site.origin();
    const { status, json } = await start(key, {
      engine: 'content',
      urls: [`${o}/docs/1`, { url: `${o}/docs/2`, include_markdown: true }, 'http://10.0.0.1/'],
      options: { use_defuddle: false },
    });
    expect(status).toBe(202);
    const batch = await ended(key, json.batch_id);
    expect(batch.status).toBe('completed');
    expect(batch.counts).toMatchObject({ total: 3, completed: 2, failed: 1, credits_used: 2 });
    const byIndex = new Map(batch.items.map((item) => [item.index, item]));
    expect(byIndex.get(0)).toMatchObject({ url: `${o}/docs/1`, status: 'completed', status_code: 200 });
    expect(byIndex.get(0)?.result?.data?.metadata?.title).toBe('Doc 1');
    expect(byIndex.get(0)?.result?.data?.markdown).toBeUndefined();
    expect(byIndex.get(1)?.result?.data?.markdown).toContain('This is Doc 2');
    expect(byIndex.get(2)).toMatchObject({ status: 'failed', status_code: 400 });
    expect(await reservationsOf(t, 'batch-content')).toMatchObject({ reserved: 0, committed: 2 });
    // Each item's request-log row names its URL, and the failed one its error.
    await t.runtime.requestLog.flush();
    const rows = await t.runtime.store.db
      .selectFrom('request_log')
      .innerJoin('accounts', 'accounts.id', 'request_log.account_id')
      .select(['request_log.engine', 'request_log.path', 'request_log.status', 'target_url', 'error'])
      .where('accounts.slug', '=', 'batch-content')
      .where('request_log.path', '=', '/v1/batch')
      .where('request_log.status', '!=', 202)
      .orderBy('target_url')
      .execute();
    const item = { engine: 'content', path: '/v1/batch', status: 200, error: null };
    expect(rows).toEqual([
      {
        ...item,
        status: 400,
        target_url: 'http://10.0.0.1/',
        error:
          'Bad Request: blocked by the network policy: 10.0.0.1 is a private address (RFC 1918); allow it with WEBCAP_ALLOW_PRIVATE=10.0.0.1/32:80',
      },
      { ...item, target_url: `${o}/docs/1` },
      { ...item, target_url: `${o}/docs/2` },
    ]);
  });

  it('answers the first batch to a submission sent again with its Idempotency-Key, through any host name', async () => {
    const key = await newAccountKey(t, 'batch-idem', 10);
    const submit = (host = 'localhost:80') =>
      t.runtime.app.inject({
        method: 'POST',
        url: '/v1/batch',
        headers: { 'x-api-key': key, 'idempotency-key': 'batch-once', host },
        payload: { engine: 'content', urls: [`${site.origin()}/docs/5`] },
      });
    const first = await submit();
    // Where hosted files are linked from (each item's call carries it) is not a parameter.
    const again = await submit('webcap.internal.example:8443');
    expect([first.statusCode, again.statusCode], again.body).toEqual([202, 202]);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().batch_id).toBe(first.json().batch_id);
    await ended(key, first.json().batch_id);
    expect(await reservationsOf(t, 'batch-idem')).toMatchObject({ reserved: 0, committed: 1 });
  });

  it('captures each page as a hosted image', async () => {
    const key = await newAccountKey(t, 'batch-capture', 100);
    const o = site.origin();
    const { json } = await start(key, { engine: 'capture', urls: [`${o}/docs/3`, `${o}/docs/4`] });
    const batch = await ended(key, json.batch_id);
    expect(batch.counts).toMatchObject({ completed: 2, credits_used: 2 });
    for (const item of batch.items) {
      const link = new URL(String(item.result?.screenshot_url));
      const image = await t.runtime.app.inject({ url: `${link.pathname}${link.search}` });
      expect(image.statusCode).toBe(200);
      expect(image.rawPayload.subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    }
  });

  it('names the item or the option that is wrong, and refuses what is too much', async () => {
    const key = await newAccountKey(t, 'batch-errors', 100);
    const o = site.origin();
    const cases: [object, string][] = [
      [{ engine: 'content', urls: Array.from({ length: 1001 }, () => `${o}/`) }, 'urls'],
      [{ engine: 'content', urls: [] }, 'urls'],
      [{ engine: 'render', urls: [`${o}/`] }, 'engine'],
      [{ engine: 'capture', urls: [`${o}/`], options: { format: 'tiff' } }, 'options.format'],
      [{ engine: 'capture', urls: [`${o}/`, { url: `${o}/`, bogus: 1 }] }, 'urls[1].bogus'],
      [{ engine: 'content', urls: [`${o}/`, { url: `${o}/`, html: '<p>x</p>' }] }, 'urls[1]'],
      [{ engine: 'content', urls: [`${o}/`], max_concurrency: 11 }, 'max_concurrency'],
    ];
    for (const [body, name] of cases) {
      const { status, json } = await start(key, body);
      expect({ body: JSON.stringify(body).slice(0, 80), status }).toEqual({
        body: JSON.stringify(body).slice(0, 80),
        status: 400,
      });
      expect(json.error).toContain(name);
    }
  });

  it('refuses a webhook host that does not resolve as a 400 naming webhook_url, nothing reserved', async () => {
    const key = await newAccountKey(t, 'batch-hook-unresolved', 10);
    const { status, json } = await start(key, {
      engine: 'content',
      urls: [`${site.origin()}/docs/1`],
      webhook_url: 'http://hooks.nowhere.test/batch',
    });
    expect({ status, error: json.error }).toEqual({
      status: 400,
      error: 'Bad Request: webhook_url names a host that could not be resolved (host not found (ENOTFOUND))',
    });
    expect(await reservationsOf(t, 'batch-hook-unresolved')).toMatchObject({ reserved: 0, committed: 0 });
  });

  it("answers another account's batch, and a crawl's id, as not found", async () => {
    const owner = await newAccountKey(t, 'batch-owner', 100);
    const other = await newAccountKey(t, 'batch-other', 100);
    const { json } = await start(owner, { engine: 'content', urls: [`${site.origin()}/docs/5`] });
    const res = await t.runtime.app.inject({
      url: `/v1/batch/${json.batch_id}`,
      headers: { 'x-api-key': other },
    });
    expect(res.statusCode).toBe(404);
    const asCrawl = await t.runtime.app.inject({
      url: `/v1/crawl/${json.batch_id}`,
      headers: { 'x-api-key': owner },
    });
    expect(asCrawl.statusCode).toBe(404);
    await ended(owner, json.batch_id);
  });
});
