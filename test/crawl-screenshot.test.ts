import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CrawlSite, isPage, SWATCHES, startCrawlSite } from './helpers/crawl-site.js';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, reservationsOf, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * The `screenshot` format of POST /v1/crawl (issue 34) end to end on SQLite with the in-process
 * queue, real Chromium and the fixture site's coloured pages: each page's image is taken in the
 * render its content comes from, kept with the crawl, linked from its record and its crawl.page
 * event, and deleted with the crawl.
 */

interface CrawlPage {
  url: string;
  status: 'completed' | 'failed' | 'skipped';
  markdown?: string;
  screenshot?: string;
}

interface CrawlRecordJson {
  status: string;
  counts: { completed: number; failed: number; skipped: number; credits_used: number; running: number };
  pages: CrawlPage[];
}

/** How far the runtime's clock is ahead of this one: moved past the crawls' retention in the last test. */
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

/** The pixel at (x, y) of an image, and its size. */
async function pixelAt(png: Buffer, x: number, y: number) {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return { width: info.width, height: info.height, rgb: [...data.subarray(at, at + 3)] };
}

describe('crawl: the screenshot format', () => {
  let site: CrawlSite;
  let t: TestRuntime;
  let receiver: TestServer;
  const received: { type: string; data: CrawlPage }[] = [];

  beforeAll(async () => {
    site = await startCrawlSite();
    receiver = await startServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(204).end();
      });
    });
    t = await startTestRuntime('sqlite', {
      clock,
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port},127.0.0.1/32:${receiver.port}`,
        BROWSER_CONCURRENCY: '2',
        JOB_CONCURRENCY: '4',
        NAVIGATION_TIMEOUT_MS: '30000',
        JOB_RETENTION_SECONDS: '3600',
        // The pruning test waits for the sweep; its other work is idle here.
        JOB_SWEEP_INTERVAL_MS: '200',
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

  async function read(key: string, id: string): Promise<{ status: number; json: CrawlRecordJson }> {
    const res = await t.runtime.app.inject({
      method: 'GET',
      url: `/v1/crawl/${id}?limit=100`,
      headers: { 'x-api-key': key },
    });
    return { status: res.statusCode, json: res.json() };
  }

  async function ended(key: string, id: string): Promise<CrawlRecordJson> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const { json } = await read(key, id);
      if (!['queued', 'running'].includes(json.status) && json.counts.running === 0) return json;
      if (Date.now() > deadline) throw new Error(`crawl ${id} still ${json.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** GET on a hosted link, without an API key: the link is the credential. */
  async function fetchLink(link: string) {
    const { pathname, search } = new URL(link);
    return t.runtime.app.inject({ method: 'GET', url: `${pathname}${search}` });
  }

  /** The colour of swatch n, as a pixel reads it. */
  const colourOf = (n: number) => [...(SWATCHES[n] ?? [])];

  /** The swatch a page is (its number), from its URL. */
  const swatchOf = (page: CrawlPage) => Number(new URL(page.url).pathname.split('/')[2]);

  const crawlBody = (extra: object = {}) => ({
    url: `${site.origin()}/swatches/0`,
    max_depth: 2,
    sitemap: 'skip',
    include_paths: ['/swatches/*'],
    formats: ['markdown', 'screenshot'],
    ...extra,
  });

  describe('happy', () => {
    it('links each page to a PNG of its viewport, taken in the one render, billed as any page', async () => {
      const key = await newAccountKey(t, 'shot-happy', 100);
      const from = site.log.length;
      const hook = `http://127.0.0.1:${receiver.port}/hook`;
      const { status, json } = await start(key, crawlBody({ webhook_url: hook }));
      expect(status).toBe(202);
      const record = await ended(key, json.crawl_id);
      expect(record.status).toBe('completed');
      expect(record.pages.map(swatchOf).sort()).toEqual([0, 1, 2]);
      for (const page of record.pages) {
        const n = swatchOf(page);
        expect(page.status).toBe('completed');
        expect(page.markdown).toContain(`This is Swatch ${n}`);
        expect(page.screenshot).toMatch(/\/v1\/files\/cpg_[A-Za-z0-9_-]+\.png\?expires=\d+&signature=/);
        const res = await fetchLink(page.screenshot ?? '');
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('image/png');
        // The viewport (1280 × 1024 by default): the block where the page draws it, white beside it.
        expect(await pixelAt(res.rawPayload, 150, 150)).toEqual({
          width: 1280,
          height: 1024,
          rgb: colourOf(n),
        });
        expect((await pixelAt(res.rawPayload, 1000, 900)).rgb).toEqual([255, 255, 255]);
      }
      // Each page fetched once: its image came from the render its Markdown did.
      const counts = new Map<string, number>();
      for (const hit of site.log.slice(from))
        if (isPage(hit.key)) counts.set(hit.key, (counts.get(hit.key) ?? 0) + 1);
      expect(Object.fromEntries(counts)).toEqual({
        'site.test/swatches/0': 1,
        'site.test/swatches/1': 1,
        'site.test/swatches/2': 1,
      });
      // One credit a page, as without images.
      expect(record.counts.credits_used).toBe(3);
      expect(await reservationsOf(t, 'shot-happy')).toEqual({
        reserved: 0,
        committed: 3,
        released: expect.any(Number),
      });
      // Each crawl.page event links the page's image too.
      const deadline = Date.now() + HANG_MS;
      while (received.filter((event) => event.type === 'crawl.page').length < 3) {
        if (Date.now() > deadline) throw new Error('the crawl.page events did not arrive');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (const { data } of received.filter((event) => event.type === 'crawl.page')) {
        const res = await fetchLink(data.screenshot ?? '');
        expect((await pixelAt(res.rawPayload, 150, 150)).rgb).toEqual(colourOf(swatchOf(data)));
      }
    });

    it('takes the whole page with full_page, and keeps only the image when that is the one format', async () => {
      const key = await newAccountKey(t, 'shot-full', 100);
      const { json } = await start(
        key,
        crawlBody({ max_depth: 0, formats: ['screenshot'], full_page: true }),
      );
      const record = await ended(key, json.crawl_id);
      expect(record.pages).toHaveLength(1);
      expect(record.pages[0]?.markdown).toBeUndefined();
      const res = await fetchLink(record.pages[0]?.screenshot ?? '');
      const image = await pixelAt(res.rawPayload, 150, 1400);
      expect(image.width).toBe(1280);
      // The block is 1500 px tall: more than one viewport.
      expect(image.height).toBeGreaterThanOrEqual(1500);
      expect(image.rgb).toEqual(colourOf(0));
    });
  });

  describe('errors', () => {
    it('refuses an unknown format, full_page without screenshot and screenshot steps, naming them', async () => {
      const key = await newAccountKey(t, 'shot-errors', 10);
      const cases: [object, string][] = [
        [crawlBody({ formats: ['markdown', 'pdf'] }), 'formats'],
        [crawlBody({ formats: ['markdown'], full_page: true }), 'full_page'],
        [crawlBody({ actions: [{ type: 'screenshot' }] }), 'actions[0] (screenshot)'],
      ];
      for (const [body, name] of cases) {
        const { status, json } = await start(key, body);
        expect({ body, status }).toEqual({ body, status: 400 });
        expect(json.error).toContain(name);
      }
      expect(await reservationsOf(t, 'shot-errors')).toMatchObject({ reserved: 0, committed: 0 });
    });
  });

  describe('retention', () => {
    it("deletes a page's image with the crawl when it is pruned", async () => {
      const key = await newAccountKey(t, 'shot-pruned', 100);
      const { json } = await start(key, crawlBody({ max_depth: 0 }));
      const record = await ended(key, json.crawl_id);
      const link = record.pages[0]?.screenshot ?? '';
      expect((await fetchLink(link)).statusCode).toBe(200);
      // Past the crawl's retention, well within the link's own day.
      offsetMs += 3_601_000;
      try {
        const deadline = Date.now() + HANG_MS;
        while ((await read(key, json.crawl_id)).status !== 404) {
          if (Date.now() > deadline) throw new Error('the crawl was not pruned');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        let gone = await fetchLink(link);
        while (gone.statusCode === 200 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          gone = await fetchLink(link);
        }
        expect(gone.statusCode).toBe(404);
        expect(gone.json()).toEqual({ error: 'Not Found' });
      } finally {
        offsetMs = 0;
      }
    });
  });
});
