import type http from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSize } from './helpers/chromium.js';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * Pages whose `load` never fires (docs/capture.md, "Pages that never finish loading"), through
 * HTTP with real Chromium: the document arrives and is parsed, but one image never answers (the
 * test's server holds the request open until the end). Capture, content and analyze go on with
 * the page as it is, say so, and are billed; a page whose document never arrives stays the
 * timeout, unbilled. The held request makes every outcome the same on a fast or a loaded machine.
 */

const NAVIGATION_TIMEOUT_MS = 1500;
const UNFINISHED = (events: string) =>
  `the page did not finish loading within ${NAVIGATION_TIMEOUT_MS} ms (${events}); it was taken as it was then`;
const TIMEOUT = `Internal Error: timeout: the page did not finish loading within ${NAVIGATION_TIMEOUT_MS} ms`;

/** A red box at (40, 60), 300 × 150, some text, and an image that never comes. */
const HUNG_IMAGE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harbour bridge works</title>
<meta name="description" content="The harbour bridge reopens after eight months of repairs."></head>
<body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:60px;width:300px;height:150px;background:rgb(255,0,0)"></div>
<h1 style="margin-top:300px">Harbour bridge works</h1>
<p>The harbour bridge reopens to traffic on Monday after eight months of repairs to its deck and cables.</p>
<p>Contact the works office at works@harbour-bridge.co.uk for questions about the closures.</p>
<img src="/never.png" width="100" height="100" alt="">
</body></html>`;

describe('pages whose load never fires', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;
  /** Requests the server holds open; answered (and so released) when the test ends. */
  const held: http.ServerResponse[] = [];

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const pathname = new URL(req.url ?? '/', 'http://fixture').pathname;
      if (pathname === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(HUNG_IMAGE_PAGE);
      } else if (pathname === '/never.png' || pathname === '/never-document') {
        held.push(res);
      } else if (pathname === '/headers-only') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.flushHeaders();
        held.push(res);
      } else if (pathname === '/half-document') {
        // The document arrives and is shown, but its HTML never ends: DOMContentLoaded never fires.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.write(`<!doctype html><title>Half</title><p>${'The first half of a page. '.repeat(100)}`);
        held.push(res);
      } else {
        res.writeHead(404).end();
      }
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '1',
        NAVIGATION_TIMEOUT_MS: String(NAVIGATION_TIMEOUT_MS),
      },
    });
    key = await newAccountKey(t, 'best-attempt', 1000);
  });
  afterAll(async () => {
    for (const res of held.splice(0)) res.destroy();
    await t?.close();
    await site?.close();
  });

  const url = (pathname: string) => `http://127.0.0.1:${site.port}${pathname}`;
  const get = (path: string, query: Record<string, string>) =>
    t.runtime.app.inject({ url: `${path}?${new URLSearchParams(query)}`, headers: { 'x-api-key': key } });
  const used = async () => (await get('/v1/usage', {})).json().total_used as number;
  /** The call and how many units it cost. */
  async function call(path: string, query: Record<string, string>) {
    const before = await used();
    const res = await get(path, query);
    return { res, billed: (await used()) - before };
  }

  async function redAt(png: Buffer, x: number, y: number): Promise<boolean> {
    const { data } = await sharp(png)
      .extract({ left: x, top: y, width: 1, height: 1 })
      .removeAlpha()
      .raw()
      .toBuffer({
        resolveWithObject: true,
      });
    return data[0] === 255 && data[1] === 0 && data[2] === 0;
  }

  describe('capture', () => {
    it('an image: 200, the page as it was, with x-webcap-warning; billed once', async () => {
      const { res, billed } = await call('/v1/capture', { url: url('/page') });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(pngSize(res.rawPayload)).toEqual({ width: 1280, height: 1024 });
      expect(await redAt(res.rawPayload, 100, 100)).toBe(true);
      expect(res.headers['x-webcap-warning']).toBe(UNFINISHED('load'));
      expect(billed).toBe(1);
    });

    it('response_type=json: the warnings field and the header; the hosted file is the capture', async () => {
      const { res, billed } = await call('/v1/capture', {
        url: url('/page'),
        response_type: 'json',
        wait_until: 'networkidle0',
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ success: true, format: 'png', width: 1280, height: 1024 });
      expect(body.warnings).toEqual([UNFINISHED('networkidle0')]);
      expect(res.headers['x-webcap-warning']).toBe(UNFINISHED('networkidle0'));
      const file = await t.runtime.app.inject({
        url: new URL(body.screenshot_url).pathname + new URL(body.screenshot_url).search,
      });
      expect(file.statusCode).toBe(200);
      expect(await redAt(file.rawPayload, 100, 100)).toBe(true);
      expect(billed).toBe(1);
    });

    it('a page captured unfinished is not cached: the next call with cache=true renders again', async () => {
      for (let i = 0; i < 2; i++) {
        const { res, billed } = await call('/v1/capture', {
          url: url('/page'),
          cache: 'true',
          full_page: 'true',
        });
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
        expect(res.headers['x-webcap-cache']).toBe('miss');
        expect(res.headers['x-webcap-warning']).toBe(UNFINISHED('load'));
        expect(billed).toBe(1);
      }
    });

    it('an async job: its result carries the warnings', async () => {
      const before = await used();
      const accepted = await get('/v1/capture', { url: url('/page'), is_async: 'true' });
      expect(accepted.statusCode, accepted.body).toBe(202);
      let record: { status: string; result: { warnings?: string[] } | null; error?: string };
      for (;;) {
        record = (await get(`/jobs/${accepted.json().job_id}`, {})).json();
        if (record.status === 'completed' || record.status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(record.status, JSON.stringify(record)).toBe('completed');
      expect(record.result?.warnings).toEqual([UNFINISHED('load')]);
      expect((await used()) - before).toBe(1);
    });
  });

  describe('content and analyze', () => {
    it('content: 200 with the page text and the warning; not cached; billed once each', async () => {
      for (let i = 0; i < 2; i++) {
        const { res, billed } = await call('/v1/content', {
          url: url('/page'),
          include_markdown: 'true',
          cache: 'true',
        });
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
        expect(res.headers['x-webcap-cache']).toBe('miss');
        const { data } = res.json();
        expect(data.warnings).toContain(UNFINISHED('load'));
        expect(data.statusCode).toBe(200);
        expect(data.metadata.title).toBe('Harbour bridge works');
        expect(data.markdown).toContain('reopens to traffic on Monday');
        expect(billed).toBe(1);
      }
    });

    it('analyze: 200 with the page read and the warning; not cached; billed once each', async () => {
      for (let i = 0; i < 2; i++) {
        const { res, billed } = await call('/v1/analyze', { url: url('/page'), cache: 'true' });
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
        expect(res.headers['x-webcap-cache']).toBe('miss');
        const { data } = res.json();
        expect(data.warnings).toEqual([UNFINISHED('load')]);
        expect(data.emails).toEqual(['works@harbour-bridge.co.uk']);
        expect(data.summary).toContain('harbour bridge');
        expect(billed).toBe(1);
      }
    });
  });

  describe('a document that never arrives stays the timeout', () => {
    it.each([
      ['never answers', '/never-document'],
      ['sends its headers and then nothing', '/headers-only'],
      ['sends half its HTML and then nothing', '/half-document'],
    ])('a main document that %s: 500 timeout, unbilled, for every engine', async (_what, pathname) => {
      for (const path of ['/v1/capture', '/v1/content', '/v1/analyze']) {
        const { res, billed } = await call(path, { url: url(pathname) });
        expect(res.statusCode, `${path}: ${res.body.slice(0, 300)}`).toBe(500);
        expect(res.json()).toEqual({ error: TIMEOUT });
        expect(res.headers['x-webcap-warning']).toBeUndefined();
        expect(billed).toBe(0);
      }
    });
  });
});
