import { Webcap } from '@webcap/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES_LIMITS } from '../src/engines/extract/rules-bounds.js';
import { RemoteBackend } from '../src/mcp/remote.js';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, reservationsOf, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/* GET|POST /v1/extract with extract_rules end to end: real Chromium, pages served by the test. */

const PRODUCTS = 50;

/** A shop's listing: relative links and images, one product's price missing, a seller block. */
function listing(): string {
  const items = Array.from({ length: PRODUCTS }, (_, i) => {
    const n = i + 1;
    return `<li class="product" data-sku="SKU-${n}">
      <a href="/p/${n}"><h2 class="name">Product ${n}</h2></a>
      <span class="price">$${n}.99</span><img src="img/${n}.jpg" alt="Product ${n}"></li>`;
  }).join('\n');
  return `<!DOCTYPE html><html><head><title>Shop</title></head><body>
    <h1>All products</h1>
    <p class="intro">Prices <b>include</b> tax</p>
    <section class="seller"><h3>Acme Ltd</h3><a class="site" href="../about">About</a></section>
    <ul id="grid">${items}</ul>
    <script>document.querySelector('h1').textContent = 'All products (rendered)';</script>
  </body></html>`;
}

// biome-ignore lint/suspicious/noExplicitAny: answers are read as plain JSON
type Json = Record<string, any>;

describe('extract with extract_rules', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    site = await startServer((req, res) => {
      if (req.url === '/shop/list') res.writeHead(200, { 'content-type': 'text/html' }).end(listing());
      else res.writeHead(404).end();
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '2',
        NAVIGATION_TIMEOUT_MS: '30000',
        CONTENT_EXTRACT_TIMEOUT_MS: '120000',
      },
    });
    key = await newAccountKey(t, 'extract', 1000, { statsEnabled: true });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const origin = () => `http://127.0.0.1:${site.port}`;
  const shop = () => `${origin()}/shop/list`;
  const post = (payload: object) =>
    t.runtime.app.inject({ method: 'POST', url: '/v1/extract', headers: { 'x-api-key': key }, payload });
  const get = (query: Record<string, string>) =>
    t.runtime.app.inject({ url: `/v1/extract?${new URLSearchParams(query)}`, headers: { 'x-api-key': key } });
  const committed = async () => (await reservationsOf(t, 'extract')).committed;

  const RULES = {
    title: 'h1',
    products: {
      selector: 'li.product',
      type: 'list',
      output: {
        name: '.name',
        price: '.price',
        url: { selector: 'a', type: 'attribute', attribute: 'href' },
        image: { selector: 'img', type: 'attribute', attribute: 'src' },
      },
    },
    skus: { selector: 'li.product', type: 'list', attribute: 'data-sku' },
    intro: { selector: '.intro', type: 'html' },
    seller: {
      selector: '.seller',
      type: 'object',
      output: { name: 'h3', site: { selector: 'a.site', type: 'attribute', attribute: 'href' } },
    },
    rating: '.rating',
    reviews: { selector: '.review', type: 'list' },
  };

  describe('happy', () => {
    it('turns a listing of 50 products into 50 objects with absolute URLs, for 1 credit', async () => {
      const before = await committed();
      const res = await post({ url: shop(), extract_rules: RULES });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as Json;
      expect(body.success).toBe(true);
      const { data } = body;
      expect(data.title).toBe('All products (rendered)');
      expect(data.products).toHaveLength(PRODUCTS);
      expect(data.products[0]).toEqual({
        name: 'Product 1',
        price: '$1.99',
        url: `${origin()}/p/1`,
        image: `${origin()}/shop/img/1.jpg`,
      });
      expect(data.products[49].url).toBe(`${origin()}/p/50`);
      expect(data.skus).toEqual(Array.from({ length: PRODUCTS }, (_, i) => `SKU-${i + 1}`));
      expect(data.intro).toBe('<p class="intro">Prices <b>include</b> tax</p>');
      expect(data.seller).toEqual({ name: 'Acme Ltd', site: `${origin()}/about` });
      expect(data.rating).toBeNull();
      expect(data.reviews).toEqual([]);
      expect(body.warnings).toEqual([
        'extract_rules.rating: the selector ".rating" matched nothing',
        'extract_rules.reviews: the selector ".review" matched nothing',
      ]);
      expect(await committed()).toBe(before + 1);
      const stats = await t.runtime.app.inject({
        url: '/v1/stats?engine=extract&path=/v1/extract',
        headers: { 'x-api-key': key },
      });
      // The stats catalog knows the engine and its path (a path of another engine would be a 400).
      expect(stats.statusCode, stats.body).toBe(200);
      expect(stats.json()).toMatchObject({ engine: 'extract', path: '/v1/extract' });
    });

    it("takes the rules as JSON text in a query string, and ScrapingBee's output form", async () => {
      const rules = {
        heading: { selector: 'h1', output: 'text' },
        links: { selector: 'li a', type: 'list', output: '@href' },
      };
      const res = await get({ url: shop(), extract_rules: JSON.stringify(rules) });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as Json;
      expect(body).toEqual({
        success: true,
        data: {
          heading: 'All products (rendered)',
          links: Array.from({ length: PRODUCTS }, (_, i) => `${origin()}/p/${i + 1}`),
        },
      });
    });

    it('reads html input against its base_url', async () => {
      const res = await post({
        html: '<article><a href="post/7">Read</a></article>',
        base_url: `${origin()}/2026/`,
        extract_rules: { link: { selector: 'a', attribute: 'href' }, label: 'a' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        data: { link: `${origin()}/2026/post/7`, label: 'Read' },
      });
    });

    it("matches hidden elements as the page holds them, without the render's own marks", async () => {
      const res = await post({
        html: '<p>shown</p><div class="note" style="display:none">kept <b>aside</b></div>',
        extract_rules: { note: { selector: '.note', type: 'html' }, text: '.note' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual({
        note: '<div class="note" style="display:none">kept <b>aside</b></div>',
        text: 'kept aside',
      });
    });

    it('runs as a job with is_async, answering what the call answers', async () => {
      const rules = { title: 'h1', names: { selector: '.name', type: 'list' } };
      const submitted = await post({ url: shop(), extract_rules: rules, is_async: true });
      expect(submitted.statusCode, submitted.body).toBe(202);
      const id = (submitted.json() as Json).job_id as string;
      const deadline = Date.now() + HANG_MS;
      let record: Json;
      for (;;) {
        record = (await t.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } })).json();
        if (record.status === 'completed' || record.status === 'failed') break;
        if (Date.now() > deadline) throw new Error(`job ${id} stuck`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(record.status).toBe('completed');
      expect(record.endpoint).toBe('/v1/extract');
      const sync = await post({ url: shop(), extract_rules: rules });
      expect(record.result).toEqual(sync.json());
      expect(record.result.data.names).toHaveLength(PRODUCTS);
    });

    it('runs in a batch as engine extract', async () => {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: '/v1/batch',
        headers: { 'x-api-key': key },
        payload: { engine: 'extract', urls: [shop()], options: { extract_rules: { title: 'h1' } } },
      });
      expect(res.statusCode, res.body).toBe(202);
      const id = (res.json() as Json).batch_id as string;
      const deadline = Date.now() + HANG_MS;
      let batch: Json;
      for (;;) {
        batch = (
          await t.runtime.app.inject({ url: `/v1/batch/${id}`, headers: { 'x-api-key': key } })
        ).json();
        if (!['queued', 'running'].includes(batch.status) && batch.counts.running === 0) break;
        if (Date.now() > deadline) throw new Error(`batch ${id} stuck`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(batch.engine).toBe('extract');
      expect(batch.items[0].result).toEqual({ success: true, data: { title: 'All products (rendered)' } });
    });

    it('answers the MCP tool through a remote webcap (the SDK), as in-process', async () => {
      const base = await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
      const remote = new RemoteBackend(new Webcap({ baseUrl: base, apiKey: key }));
      const done = await remote.extract({ url: shop(), extract_rules: { title: 'h1', rating: '.rating' } });
      expect(done).toEqual({
        kind: 'done',
        value: {
          data: { title: 'All products (rendered)', rating: null },
          warnings: ['extract_rules.rating: the selector ".rating" matched nothing'],
        },
      });
    });
  });

  describe('errors', () => {
    const refused = async (rules: unknown, message: string | RegExp) => {
      const before = await committed();
      const res = await post({ url: shop(), extract_rules: rules });
      expect(res.statusCode, res.body).toBe(400);
      expect((res.json() as Json).error).toMatch(message);
      expect(await committed()).toBe(before);
    };

    it('refuses each bound with a 400 naming the path, unbilled', async () => {
      let deep: Record<string, unknown> = { name: 'b' };
      for (let level = 0; level < RULES_LIMITS.depth; level++)
        deep = { inner: { selector: 'div', output: deep } };
      await refused(deep, /extract_rules(\.inner\.output){8} is nested deeper than 8 levels/);
      const wide = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, 'p']));
      await refused(wide, /extract_rules\.f200 is past the 200 rules/);
      await refused(
        {
          products: {
            selector: 'li',
            type: 'list',
            output: { name: `.${'n'.repeat(RULES_LIMITS.selectorChars)}` },
          },
        },
        /extract_rules\.products\.output\.name is longer than 512 characters/,
      );
      const big = Object.fromEntries(
        Array.from({ length: 150 }, (_, i) => [`${'f'.repeat(120)}${i}`, `.${'c'.repeat(400)}`]),
      );
      await refused(big, `extract_rules is larger than ${RULES_LIMITS.bytes} bytes`);
    });

    it('refuses rules whose answer would pass its bound, after the render, unbilled', async () => {
      const before = await committed();
      const cells = Object.fromEntries(
        Array.from({ length: 199 }, (_, k) => [`c${k}`, { selector: 'i', type: 'list' }]),
      );
      const res = await post({
        html: `<div>${'<i></i>'.repeat(5)}</div>`.repeat(1000),
        extract_rules: { rows: { selector: 'div', type: 'list', output: cells } },
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
      expect((res.json() as Json).error).toBe(
        'Bad Request: extract_rules asks for more than 5000000 characters or 1000000 values of answer',
      );
      expect(await committed()).toBe(before);
      expect(await reservationsOf(t, 'extract')).toMatchObject({ reserved: 0 });
    });

    it('refuses a selector the DOM cannot parse, and a rule of the wrong shape', async () => {
      await refused(
        { products: { selector: 'li', type: 'list', output: { name: 'a[href' } } },
        /extract_rules\.products\.output\.name is not a CSS selector/,
      );
      await refused(
        { a: { selector: 'a', type: 'attribute' } },
        /extract_rules\.a\.attribute is required with type attribute/,
      );
      await refused('{"a":', /extract_rules is not valid JSON/);
      const missing = await post({ url: shop() });
      expect(missing.statusCode).toBe(400);
      expect((missing.json() as Json).error).toMatch(/extract_rules/);
    });
  });
});
