import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compileSchema, readSchema } from '../src/engines/extract/schema/check-schema.js';
import { type LlmServer, startLlmServer } from './helpers/llm-server.js';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, reservationsOf, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * /v1/extract with a JSON Schema and no model (the built-in extractor), and the json format of
 * /v1/content, batches and crawls, end to end: real Chromium, pages served by the test.
 */

// biome-ignore lint/suspicious/noExplicitAny: answers are read as plain JSON
type Json = Record<string, any>;

const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
const page = (head: string, body: string) =>
  `<!DOCTYPE html><html lang="en"><head>${head}</head><body>${body}</body></html>`;

/** A product page: JSON-LD with a related product beside it, which must not be read. */
function product(n: number, price: string, stock: 'InStock' | 'OutOfStock'): string {
  return page(
    `<title>Anvil ${n} | Acme Shop</title>${ld({
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'Organization', name: 'Acme Shop', url: '/' },
        {
          '@type': 'Product',
          name: `Anvil ${n}`,
          image: `/img/anvil-${n}.jpg`,
          brand: { '@type': 'Brand', name: 'Acme' },
          offers: {
            '@type': 'Offer',
            price,
            priceCurrency: 'EUR',
            availability: `https://schema.org/${stock}`,
          },
        },
      ],
    })}`,
    `<h1>Anvil ${n}</h1><p>A heavy anvil.</p>
     <aside><h2>Related</h2><div itemscope itemtype="https://schema.org/Product">
       <span itemprop="name">Hammer</span><span itemprop="price">9.99</span></div></aside>`,
  );
}

const ARTICLE = page(
  `<title>Rain in Spain | The Daily</title>
   <meta property="article:published_time" content="2024-03-05T08:30:00+01:00">
   ${ld({
     '@context': 'https://schema.org',
     '@type': 'NewsArticle',
     headline: 'Rain falls mainly on the plain',
     author: [{ '@type': 'Person', name: 'Ana Ruiz' }],
     datePublished: '2024-03-05T08:30:00+01:00',
     dateModified: '2024-03-06T10:00:00+01:00',
   })}`,
  '<article><h1>Rain falls mainly on the plain</h1><p>Meteorologists say so.</p></article>',
);

const CONTACT = page(
  '<title>Contact us</title>',
  `<h1>Contact</h1><p>Write to <a href="mailto:sales@acme.co.uk">sales@acme.co.uk</a>
   or <a href="mailto:help@acme.co.uk">help@acme.co.uk</a>; call <a href="tel:+14155550123">+1 415 555 0123</a>.</p>`,
);

const NOTHING = page('<title>Notes</title>', '<p>Some words and nothing else.</p>');

const PRODUCT_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    price: { type: 'number' },
    currency: { type: 'string' },
    availability: { type: 'string', enum: ['InStock', 'OutOfStock'] },
    brand: { type: 'string' },
    image: { type: 'string', format: 'uri' },
    rating: { type: 'number' },
  },
  required: ['name', 'price', 'currency', 'availability', 'brand', 'image'],
};

describe('extract with a schema, without a model', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      const shop = /^\/shop\/anvil-(\d)$/.exec(req.url ?? '');
      if (req.url === '/shop/') {
        html(page('<title>Shop</title>', '<a href="/shop/anvil-1">1</a> <a href="/shop/anvil-2">2</a>'));
      } else if (shop !== null) {
        html(
          product(
            Number(shop[1]),
            shop[1] === '1' ? '1299.00' : '89.50',
            shop[1] === '1' ? 'InStock' : 'OutOfStock',
          ),
        );
      } else if (req.url === '/article') html(ARTICLE);
      else if (req.url === '/contact') html(CONTACT);
      else if (req.url === '/nothing') html(NOTHING);
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
    key = await newAccountKey(t, 'schema', 1000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const origin = () => `http://127.0.0.1:${site.port}`;
  const inject = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.runtime.app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
  const extract = (payload: object) => inject('POST', '/v1/extract', payload);
  const committed = async () => (await reservationsOf(t, 'schema')).committed;
  const expectRefused = (res: { statusCode: number; body: string }, error: string) => {
    expect(res.statusCode, res.body).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: `Bad Request: ${error}` });
  };

  /** Polls a crawl or batch record until it has ended and no page of it runs. */
  async function ended(path: string): Promise<Json> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const record = (await inject('GET', path)).json() as Json;
      if (!['queued', 'running'].includes(record.status) && record.counts.running === 0) return record;
      if (Date.now() > deadline) throw new Error(`${path} never ended`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it("fills a product's name, price, currency, availability, brand and image, for 1 credit", async () => {
    const before = await committed();
    const res = await extract({ url: `${origin()}/shop/anvil-1`, schema: PRODUCT_SCHEMA });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        name: 'Anvil 1',
        price: 1299,
        currency: 'EUR',
        availability: 'InStock',
        brand: 'Acme',
        image: `${origin()}/img/anvil-1.jpg`,
      },
      warnings: ['rating: not stated on the page'],
    });
    expect(await committed()).toBe(before + 1);
  });

  it("fills an article's headline, author and dates, the schema as JSON text in a query string", async () => {
    const schema = {
      type: 'object',
      properties: {
        headline: { type: 'string' },
        author: { type: 'string' },
        published: { type: 'string', format: 'date-time', description: 'when it was published' },
        modified: { type: 'string', format: 'date', description: 'when it was last modified' },
      },
      required: ['headline', 'author', 'published'],
    };
    const query = new URLSearchParams({ url: `${origin()}/article`, schema: JSON.stringify(schema) });
    const res = await inject('GET', `/v1/extract?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        headline: 'Rain falls mainly on the plain',
        author: 'Ana Ruiz',
        published: '2024-03-05T08:30:00+01:00',
        modified: '2024-03-06',
      },
    });
  });

  it("fills a contact page's emails and phones", async () => {
    const schema = {
      type: 'object',
      properties: {
        emails: { type: 'array', items: { type: 'string', format: 'email' } },
        phones: { type: 'array', items: { type: 'string' } },
      },
    };
    const res = await extract({ url: `${origin()}/contact`, schema });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      emails: ['sales@acme.co.uk', 'help@acme.co.uk'],
      phones: ['+14155550123'],
    });
  });

  it('leaves what the page does not state null when required and absent when not, with warnings', async () => {
    const res = await extract({ url: `${origin()}/nothing`, schema: PRODUCT_SCHEMA });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: { name: null, price: null, currency: null, availability: null, brand: null, image: null },
      warnings: [
        'name: not stated on the page',
        'price: not stated on the page',
        'currency: not stated on the page',
        'availability: not stated on the page',
        'brand: not stated on the page',
        'image: not stated on the page',
        'rating: not stated on the page',
      ],
    });
  });

  it('gives /v1/content the json format from the same render', async () => {
    const res = await extract({ url: `${origin()}/shop/anvil-2`, schema: PRODUCT_SCHEMA });
    const content = await inject('POST', '/v1/content', {
      url: `${origin()}/shop/anvil-2`,
      formats: ['json', 'markdown'],
      schema: PRODUCT_SCHEMA,
    });
    expect(content.statusCode, content.body).toBe(200);
    const { data } = content.json() as Json;
    const { success: _success, ...alone } = res.json() as Json;
    expect(data.json).toEqual(alone);
    expect(data.json.data.price).toBe(89.5);
    expect(data.json.data.availability).toBe('OutOfStock');
    expect(data.markdown).toContain('A heavy anvil.');
    const rules = await inject('POST', '/v1/content', {
      url: `${origin()}/shop/anvil-2`,
      formats: ['json'],
      extract_rules: { title: 'h1' },
    });
    expect(rules.json().data.json).toEqual({ data: { title: 'Anvil 2' } });
    expect(rules.json().data.markdown).toBeUndefined();
  });

  it('takes formats in a query string repeated, comma-separated or as JSON text, alike', async () => {
    const query = (formats: string) =>
      `/v1/content?${new URLSearchParams({ url: `${origin()}/shop/anvil-2`, extract_rules: '{"title":"h1"}' })}&${formats}`;
    const answers = [];
    for (const formats of [
      'formats=json&formats=markdown',
      'formats=json,markdown',
      `formats=${encodeURIComponent(' json , markdown ')}`,
      `formats=${encodeURIComponent('["json","markdown"]')}`,
    ]) {
      const res = await inject('GET', query(formats));
      expect(res.statusCode, `${formats}: ${res.body}`).toBe(200);
      answers.push(res.json().data);
    }
    expect(answers[0].json).toEqual({ data: { title: 'Anvil 2' } });
    expect(answers[0].markdown).toContain('A heavy anvil.');
    for (const data of answers.slice(1)) expect(data).toEqual(answers[0]);
    expectRefused(
      await inject('GET', query('formats=json,pdf')),
      'formats.1 must be one of markdown, html, json',
    );
    expectRefused(
      await inject('GET', query(`formats=${encodeURIComponent('["json"')}`)),
      'formats.0 must be one of markdown, html, json',
    );
    const crawl = await inject(
      'GET',
      `/v1/crawl?${new URLSearchParams({ url: `${origin()}/shop/anvil-2`, limit: '1', sitemap: 'skip', formats: 'markdown,links' })}`,
    );
    expect(crawl.statusCode, crawl.body).toBe(202);
    const page = (await ended(`/v1/crawl/${crawl.json().crawl_id}`)).pages[0];
    expect(Object.keys(page)).toEqual(expect.arrayContaining(['markdown', 'links']));
  });

  it('gives every page of a crawl of a shop, and every item of a batch, its JSON', async () => {
    const started = await inject('POST', '/v1/crawl', {
      url: `${origin()}/shop/`,
      sitemap: 'skip',
      respect_robots: false,
      include_paths: ['/shop/anvil-*'],
      formats: ['json'],
      schema: PRODUCT_SCHEMA,
    });
    expect(started.statusCode, started.body).toBe(202);
    const crawl = await ended(`/v1/crawl/${started.json().crawl_id}`);
    const byUrl = Object.fromEntries((crawl.pages as Json[]).map((p) => [p.url, p]));
    expect(byUrl[`${origin()}/shop/anvil-1`].json.data).toMatchObject({ name: 'Anvil 1', price: 1299 });
    expect(byUrl[`${origin()}/shop/anvil-2`].json.data).toMatchObject({ name: 'Anvil 2', price: 89.5 });

    const batch = await inject('POST', '/v1/batch', {
      engine: 'content',
      urls: [`${origin()}/shop/anvil-1`, `${origin()}/article`],
      options: { formats: ['json'], extract_rules: { title: 'h1' } },
    });
    expect(batch.statusCode, batch.body).toBe(202);
    const done = await ended(`/v1/batch/${batch.json().batch_id}`);
    const titles = (done.items as Json[]).map((item) => item.result.data.json.data.title).sort();
    expect(titles).toEqual(['Anvil 1', 'Rain falls mainly on the plain']);
  });

  it('refuses bad schemas and wrong combinations with a 400 naming the parameter, unbilled', async () => {
    const before = await committed();
    const url = `${origin()}/shop/anvil-1`;
    expectRefused(await extract({ url }), 'schema or extract_rules is required: give one of them');
    expectRefused(
      await extract({ url, schema: PRODUCT_SCHEMA, extract_rules: { t: 'h1' } }),
      'schema and extract_rules cannot be given together: give one of them',
    );
    expectRefused(
      await extract({ url, extract_rules: { t: 'h1' }, prompt: 'x' }),
      'prompt is read with schema: give a schema too',
    );
    expectRefused(
      await extract({
        url,
        schema: { type: 'object', properties: { a: { type: 'string', pattern: '(a+)+$' } } },
      }),
      'schema.properties.a.pattern is not supported: use only type, properties, required, items, enum, description, format, title, additionalProperties',
    );
    expectRefused(
      await extract({ url, schema: { type: 'object', properties: { a: { type: 'string', items: {} } } } }),
      'schema.properties.a.items needs "array" in schema.properties.a.type',
    );
    expectRefused(
      await extract({ url, schema: { type: 'object', $ref: '#/x' } }),
      'schema.$ref is not supported: use only type, properties, required, items, enum, description, format, title, additionalProperties',
    );
    expectRefused(await extract({ url, schema: '{"type": "object"' }), 'schema is not valid JSON');
    expectRefused(
      await extract({ url, schema: { type: 'object', description: 'x'.repeat(70_000) } }),
      'schema is larger than 65536 bytes',
    );
    expectRefused(
      await inject('POST', '/v1/content', { url, formats: ['json'] }),
      'formats json needs schema or extract_rules: give one of them',
    );
    expectRefused(
      await inject('POST', '/v1/content', { url, schema: PRODUCT_SCHEMA }),
      'schema is read with formats=json: add json to formats',
    );
    expectRefused(
      await inject('POST', '/v1/crawl', { url, extract_rules: { t: 'h1' } }),
      'extract_rules is read with formats=json: add json to formats',
    );
    expect(await committed()).toBe(before);
  });
});

describe('extract with a schema, through the model', () => {
  let site: TestServer;
  let llm: LlmServer;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    site = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(product(1, '1299.00', 'InStock'));
    });
    llm = await startLlmServer();
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        NAVIGATION_TIMEOUT_MS: '30000',
        CONTENT_EXTRACT_TIMEOUT_MS: '120000',
        ANALYZER: 'openai',
        ANALYZE_OPENAI_BASE_URL: llm.baseUrl,
        ANALYZE_OPENAI_MODEL: 'tiny-random',
        // The model generates on this machine's CPU: seconds, and many more on a loaded machine.
        ANALYZE_OPENAI_TIMEOUT_MS: '120000',
        ANALYZE_MAX_INPUT_TOKENS: '300',
        ANALYZE_MAX_OUTPUT_TOKENS: '300',
      },
    });
    key = await newAccountKey(t, 'model', 1000);
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await site?.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
    llm.faults.length = 0;
  });

  const SCHEMA = {
    type: 'object',
    properties: {
      name: { type: 'string', description: "the product's name" },
      price: { type: 'number' },
      inStock: { type: 'boolean' },
    },
    required: ['name', 'price'],
  };
  const extract = (payload: object) =>
    t.runtime.app.inject({ method: 'POST', url: '/v1/extract', headers: { 'x-api-key': key }, payload });
  const committed = async () => (await reservationsOf(t, 'model')).committed;

  it('answers what the grammar-constrained model wrote, valid against the schema, for 1 credit', async () => {
    const before = await committed();
    const res = await extract({
      url: `http://127.0.0.1:${site.port}/`,
      schema: SCHEMA,
      prompt: 'The anvil.',
    });
    expect(res.statusCode, res.body).toBe(200);
    const { data } = res.json() as Json;
    expect(compileSchema(readSchema(SCHEMA)).validate(data)).toBe(true);
    expect(await committed()).toBe(before + 1);
    const sent = llm.requests.at(-1)?.body;
    expect(sent.response_format.json_schema.strict).toBe(true);
    const user = sent.messages.find((m: Json) => m.role === 'user').content as string;
    // The page's main content, and what the built-in extractor read of it, as hints.
    expect(user).toContain('A heavy anvil.');
    expect(user).toContain('1299');
    expect(sent.messages.find((m: Json) => m.role === 'system').content).toContain('The anvil.');
  });

  it('repairs once, then fails unbilled with a 502 naming what did not validate', async () => {
    const before = await committed();
    llm.faults.push(
      { kind: 'reply', content: '{"name": 3, "price": "cheap", "inStock": null}' },
      { kind: 'reply', content: '{"name": "Anvil 1", "price": 1299, "inStock": true}' },
    );
    const repaired = await extract({ url: `http://127.0.0.1:${site.port}/`, schema: SCHEMA });
    expect(repaired.statusCode, repaired.body).toBe(200);
    expect(repaired.json().data).toEqual({ name: 'Anvil 1', price: 1299, inStock: true });
    expect(await committed()).toBe(before + 1);

    llm.faults.push(
      { kind: 'reply', content: '{"name": 3, "price": 1, "inStock": null}' },
      { kind: 'reply', content: '{"name": "x", "price": "cheap", "inStock": null}' },
    );
    const failed = await extract({ url: `http://127.0.0.1:${site.port}/?again`, schema: SCHEMA });
    expect(failed.statusCode, failed.body).toBe(502);
    expect(failed.json()).toEqual({
      error:
        "Bad Gateway: the model's answer did not follow the schema after a repair round: data.price must be number",
    });
    expect(await committed()).toBe(before + 1);
  });
});
