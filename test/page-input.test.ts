import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCanary, startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * html, markdown and base_url (docs/capture.md, "Your own HTML or Markdown") through /v1/capture,
 * /v1/content and /v1/analyze, GET and POST, sync and async: real Chromium behind the egress
 * proxy, the page's subresources served by the test on 127.0.0.1, a canary on another loopback
 * port the policy does not allow.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read as plain data
type Json = any;

/** Small enough for an oversize body to be cheap, large enough for every page here. */
const BODY_LIMIT_BYTES = 65_536;

describe('html and markdown input', () => {
  let site: TestServer;
  let canary: TestServer;
  let t: TestRuntime;
  let key: string;
  /** Paths the site was asked for, in order. */
  const served: string[] = [];
  let redPng: Buffer;

  beforeAll(async () => {
    redPng = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    site = await startServer((req, res) => {
      const path = req.url ?? '/';
      served.push(path);
      if (path.endsWith('.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(redPng);
      else res.writeHead(204).end();
    });
    canary = await startCanary();
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '2',
        NAVIGATION_TIMEOUT_MS: '20000',
        BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
      },
    });
    key = await newAccountKey(t, 'input', 10_000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    await canary?.close();
  });

  const siteUrl = (path: string) => `http://127.0.0.1:${site.port}${path}`;
  const post = (url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.runtime.app.inject({
      method: 'POST',
      url,
      payload: body,
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    });
  const get = (url: string, query: Record<string, string>) =>
    t.runtime.app.inject({ url, query, headers: { 'x-api-key': key } });
  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;
  /** RGB of one pixel of an encoded image. */
  async function pixel(bytes: Buffer, x: number, y: number): Promise<[number, number, number]> {
    const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (y * info.width + x) * 3;
    return [data[at] ?? -1, data[at + 1] ?? -1, data[at + 2] ?? -1];
  }
  const isRed = ([r, g, b]: number[]) => (r ?? 0) > 220 && (g ?? 255) < 40 && (b ?? 255) < 40;
  const isWhite = ([r, g, b]: number[]) => (r ?? 0) > 240 && (g ?? 0) > 240 && (b ?? 0) > 240;

  /** A page whose top-left 300 × 150 is red. */
  const RED_BOX =
    '<style>html,body{margin:0;background:#fff}</style><div style="width:300px;height:150px;background:#f00"></div>';

  describe('happy', () => {
    it('POST /v1/capture renders html: the pixels are the page sent', async () => {
      const res = await post('/v1/capture', { html: RED_BOX });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      const shot = res.rawPayload;
      expect(isRed(await pixel(shot, 150, 75))).toBe(true);
      expect(isWhite(await pixel(shot, 600, 400))).toBe(true);
    });

    it('GET /v1/capture takes html in the query string, and a whole document as a fragment', async () => {
      const whole = await get('/v1/capture', { html: `<!doctype html><html><body>${RED_BOX}</body></html>` });
      expect(whole.statusCode, whole.body).toBe(200);
      expect(isRed(await pixel(whole.rawPayload, 150, 75))).toBe(true);
      const fragment = await get('/v1/capture', { html: RED_BOX, response_type: 'json' });
      expect(fragment.statusCode, fragment.body).toBe(200);
      expect(fragment.json()).toMatchObject({ format: 'png', width: 1280, height: 1024 });
    });

    it('relative URLs resolve against base_url, and the image is fetched through the guard', async () => {
      served.length = 0;
      const res = await post('/v1/capture', {
        html: '<style>html,body{margin:0;background:#fff}</style><img src="pics/red.png" style="display:block">',
        base_url: siteUrl('/docs/guide/'),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(served).toContain('/docs/guide/pics/red.png');
      // The document itself came from the caller, not the site.
      expect(served).not.toContain('/docs/guide/');
      expect(isRed(await pixel(res.rawPayload, 100, 50))).toBe(true);
      expect(isWhite(await pixel(res.rawPayload, 300, 50))).toBe(true);
    });

    it('blocking and the ad blocker work beside it: the sent page shows, its blocked image is not fetched', async () => {
      served.length = 0;
      const res = await post('/v1/capture', {
        html: `${RED_BOX}<img src="${siteUrl('/blocked/red.png')}">`,
        block_resources: 'document,image',
        remove_ads: true,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(isRed(await pixel(res.rawPayload, 150, 75))).toBe(true);
      expect(served).not.toContain('/blocked/red.png');
    });

    it('renders markdown with the default stylesheet: a dark heading on white, a table, a code block', async () => {
      const markdown = [
        '# A heading',
        '',
        'Some *text* and `code`.',
        '',
        '| a | b |',
        '|---|--:|',
        '| 1 | 2 |',
        '',
        '```js',
        'const x = 1;',
        '```',
      ].join('\n');
      const res = await post('/v1/capture', { markdown, viewport_width: 800, viewport_height: 600 });
      expect(res.statusCode, res.body).toBe(200);
      const { data, info } = await sharp(res.rawPayload)
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([800, 600]);
      // The column is centred (max-width 48rem, 2rem of padding): the heading's ink is dark text
      // in its first 60 pixels of height, the margins are the light background.
      let dark = 0;
      for (let y = 32; y < 90; y++) {
        for (let x = 0; x < info.width; x++) {
          const at = (y * info.width + x) * 3;
          if ((data[at] ?? 255) < 80 && (data[at + 1] ?? 255) < 80 && (data[at + 2] ?? 255) < 80) dark += 1;
        }
      }
      expect(dark).toBeGreaterThan(200);
      expect(isWhite(await pixel(res.rawPayload, 5, 300))).toBe(true);

      const content = await post('/v1/content', { markdown, include_html: true });
      expect(content.statusCode, content.body).toBe(200);
      const page = content.json().data;
      expect(page.metadata.title).toBe('A heading');
      expect(page.html).toContain('<table>');
      expect(page.html).toContain('<code class="language-js">const x = 1;');
    });

    it('POST /v1/content extracts html input: Markdown, links against the synthetic origin, status 200', async () => {
      const res = await post('/v1/content', {
        html: '<title>Sent</title><main><h1>Hello</h1><p>World, <a href="/next">next</a>.</p></main>',
        include_markdown: true,
      });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data;
      expect(data.url).toBe('http://webcap.invalid/');
      expect(data.statusCode).toBe(200);
      expect(data.metadata.title).toBe('Sent');
      expect(data.markdown).toBe('# Hello\n\nWorld, [next](http://webcap.invalid/next).\n');
      expect(data.links.internal).toEqual(['http://webcap.invalid/next']);
    });

    it('content with base_url reports it as the url and resolves links against it', async () => {
      const res = await post('/v1/content', {
        html: '<p>See <a href="more">more</a>.</p>',
        base_url: siteUrl('/docs/'),
        include_markdown: true,
      });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data;
      expect(data.url).toBe(siteUrl('/docs/'));
      expect(data.links.internal).toEqual([siteUrl('/docs/more')]);
    });

    it('POST /v1/analyze reads html input', async () => {
      const res = await post('/v1/analyze', {
        html: '<h1>Acme Widgets</h1><p>Write to <a href="mailto:sales@acme-widgets.com">sales@acme-widgets.com</a>.</p>',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.emails).toEqual(['sales@acme-widgets.com']);
    });

    it('runs as a job: the page sent in the body is rendered by the worker', async () => {
      const res = await post('/v1/content', { markdown: '# Queued\n\nfrom a job', is_async: true });
      expect(res.statusCode, res.body).toBe(202);
      const id = res.json().job_id as string;
      const deadline = Date.now() + HANG_MS;
      let record: Json;
      for (;;) {
        record = (await t.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } })).json();
        if (record.status === 'completed' || record.status === 'failed') break;
        if (Date.now() > deadline) throw new Error(`job ${id} stuck`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(record.status, JSON.stringify(record.error)).toBe('completed');
      expect(record.result.data.metadata.title).toBe('Queued');
    });

    it('the cache key covers the page sent: the same html hits, another misses', async () => {
      const first = await post('/v1/capture', { html: RED_BOX, cache: true });
      expect(first.headers['x-webcap-cache']).toBe('miss');
      const again = await post('/v1/capture', { html: RED_BOX, cache: true });
      expect(again.headers['x-webcap-cache']).toBe('hit');
      const other = await post('/v1/capture', { html: `${RED_BOX}<p>changed</p>`, cache: true });
      expect(other.headers['x-webcap-cache']).toBe('miss');
      const asMarkdown = await post('/v1/capture', { markdown: RED_BOX, cache: true });
      expect(asMarkdown.headers['x-webcap-cache']).toBe('miss');
    });
  });

  describe('errors', () => {
    it.each([
      [
        'none of them',
        {},
        /^Bad Request: url is required, or html or markdown instead \(exactly one of them\)$/,
      ],
      [
        'url and html',
        { url: 'http://example.com/', html: '<p>x</p>' },
        /^Bad Request: url and html were both given; give exactly one of url, html, markdown$/,
      ],
      [
        'html and markdown',
        { html: '<p>x</p>', markdown: '# x' },
        /^Bad Request: html and markdown were both given/,
      ],
      [
        'base_url with url',
        { url: 'http://example.com/', base_url: 'http://example.com/' },
        /^Bad Request: base_url is only for html or markdown input$/,
      ],
      ['base_url of another scheme', { html: '<p>x</p>', base_url: 'ftp://example.com/' }, /base_url/],
      ['base_url that is no URL', { html: '<p>x</p>', base_url: 'not a url' }, /base_url/],
      ['an empty html', { html: '' }, /html/],
    ])('%s is a 400 naming them, unbilled', async (_, body, message) => {
      const before = await used();
      for (const endpoint of ['/v1/capture', '/v1/content', '/v1/analyze']) {
        const res = await post(endpoint, body);
        expect(res.statusCode, `${endpoint}: ${res.body}`).toBe(400);
        expect(res.json().error).toMatch(message);
      }
      const query = await get('/v1/capture', body as Record<string, string>);
      expect(query.statusCode).toBe(400);
      expect(query.json().error).toMatch(message);
      expect(await used()).toBe(before);
    });

    it('a base_url on a private address is refused before rendering, naming it', async () => {
      const res = await post('/v1/capture', {
        html: '<img src="x.png">',
        base_url: `http://127.0.0.1:${canary.port}/`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/^Bad Request: blocked by the network policy: base_url/);
      expect(canary.connections()).toBe(0);
    });

    it('a body over BODY_LIMIT_BYTES is a 413', async () => {
      for (const endpoint of ['/v1/capture', '/v1/content', '/v1/analyze']) {
        const res = await post(endpoint, { html: `<p>${'x'.repeat(BODY_LIMIT_BYTES)}</p>` });
        expect(res.statusCode, endpoint).toBe(413);
      }
    });

    it('x_api_key in a body is refused: a v1 key goes in the header or the query string', async () => {
      const res = await post('/v1/capture', { html: RED_BOX, x_api_key: key });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/x_api_key/);
      const keyOnlyInBody = await t.runtime.app.inject({
        method: 'POST',
        url: '/v1/capture',
        payload: { html: RED_BOX, x_api_key: key },
        headers: { 'content-type': 'application/json' },
      });
      expect(keyOnlyInBody.statusCode).toBe(401);
    });
  });

  describe('security', () => {
    /**
     * Each way a caller's own script can make a request, aimed at the canary; beside it the same
     * request to the allowed site, which proves the script ran and the request was made.
     */
    const ATTEMPTS: Record<string, (target: string) => string> = {
      fetch: (target) => `fetch(${target}).catch(() => {});`,
      XMLHttpRequest: (target) => `const x = new XMLHttpRequest(); x.open('GET', ${target}); x.send();`,
      WebSocket: (target) => `try { new WebSocket(${target}.replace('http', 'ws')); } catch {}`,
      iframe: (target) =>
        `const f = document.createElement('iframe'); f.src = ${target}; document.body.append(f);`,
      'window.open': (target) => `window.open(${target});`,
      'form post': (target) =>
        `const name = 'f' + Math.random(); const frame = document.createElement('iframe'); frame.name = name; document.body.append(frame); const form = document.createElement('form'); form.method = 'POST'; form.action = ${target}; form.target = name; document.body.append(form); form.submit();`,
      'location change': (target) => `setTimeout(() => { location.href = ${target}; }, 50);`,
    };

    it.each(Object.keys(ATTEMPTS))(
      "the caller's script reaches the canary by %s with no connection, and the allowed site through the guard",
      async (name) => {
        const attempt = ATTEMPTS[name] as (target: string) => string;
        const tag = encodeURIComponent(name);
        const canaryUrl = JSON.stringify(`http://127.0.0.1:${canary.port}/${tag}`);
        const control = JSON.stringify(siteUrl(`/control/${tag}`));
        // The attempt runs once the control has been answered: the location change ends the page,
        // and would cancel a control still in flight on a slow machine.
        const html = `<body><script>const control = new Image(); control.onload = control.onerror = () => { ${attempt(canaryUrl)} }; control.src = ${control};</script></body>`;
        for (const body of [{ html }, { html, base_url: siteUrl('/base/') }]) {
          served.length = 0;
          const res = await post('/v1/content', { ...body, delay: 1 });
          expect([200, 400], res.body).toContain(res.statusCode);
          expect(served).toContain(`/control/${tag}`);
          expect(canary.connections()).toBe(0);
        }
      },
    );

    it('a markdown document links and embeds through the guard too', async () => {
      served.length = 0;
      const markdown = `![shown](${siteUrl('/md/red.png')}) ![hidden](http://127.0.0.1:${canary.port}/md.png)`;
      const res = await post('/v1/capture', { markdown });
      expect(res.statusCode, res.body).toBe(200);
      expect(served).toContain('/md/red.png');
      expect(canary.connections()).toBe(0);
    });
  });
});
