import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCanary, startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * GET /v1/website/crawler end to end: a fixture site on 127.0.0.1 allowed by WEBCAP_ALLOW_PRIVATE
 * (its port only), a canary on another loopback port that must never be reached.
 */
describe('GET /v1/website/crawler', () => {
  let site: TestServer;
  let canary: TestServer;
  let t: TestRuntime;
  let key: string;
  const page = '<!doctype html><html><head><title>Fixture</title></head><body><p>héllo</p></body></html>';

  beforeAll(async () => {
    canary = await startCanary();
    site = await startServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      switch (url.pathname) {
        case '/page':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-fixture': 'yes' });
          return res.end(page);
        case '/latin1':
          res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' });
          return res.end(Buffer.from('<html><body>caf\xe9</body></html>', 'latin1'));
        case '/gzip':
          res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
          return res.end(gzipSync(page));
        case '/missing':
          res.writeHead(404, { 'content-type': 'text/html' });
          return res.end('<html><body>not here</body></html>');
        case '/broken':
          res.writeHead(503, { 'content-type': 'text/html' });
          return res.end('<html><body>down</body></html>');
        case '/hop1':
          res.writeHead(301, { location: '/hop2' });
          return res.end();
        case '/hop2':
          res.writeHead(302, { location: `http://127.0.0.1:${site.port}/page` });
          return res.end();
        case '/to-canary':
          res.writeHead(302, { location: `http://127.0.0.1:${canary.port}/secret` });
          return res.end();
        case '/to-private-name':
          res.writeHead(302, { location: `http://internal.example:${site.port}/page` });
          return res.end();
        case '/pdf':
          res.writeHead(200, { 'content-type': 'application/pdf' });
          return res.end('%PDF-1.4');
        case '/huge':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end(`<html>${'x'.repeat(300_000)}</html>`);
        case '/slow':
          res.writeHead(200, { 'content-type': 'text/html' });
          res.write('<html>');
          return; // never ends
        default:
          res.writeHead(500);
          return res.end();
      }
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        FETCH_MAX_BYTES: '100000',
        FETCH_TIMEOUT_MS: '1500',
        FETCH_HEADERS_TIMEOUT_MS: '1000',
      },
      resolver: tableResolver({ 'site.example': ['127.0.0.1'], 'internal.example': ['10.0.0.7'] }),
    });
    key = await newAccountKey(t, 'crawl', 1000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    await canary?.close();
  });

  const callCrawler = (query: Record<string, string>) =>
    t.runtime.app.inject({
      url: `/v1/website/crawler?${new URLSearchParams(query)}`,
      headers: { 'x-api-key': key },
    });
  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;
  const url = (path: string) => `http://127.0.0.1:${site.port}${path}`;

  describe('happy', () => {
    it('describes the page as JSON by default', async () => {
      const res = await callCrawler({ query: url('/page') });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual({
        success: true,
        data: {
          url: url('/page'),
          finalUrl: url('/page'),
          statusCode: 200,
          redirects: [],
          contentType: 'text/html; charset=utf-8',
          headers: expect.objectContaining({
            'x-fixture': 'yes',
            'content-type': 'text/html; charset=utf-8',
          }),
          size: Buffer.byteLength(page),
        },
      });
    });

    it('returns the HTML as UTF-8 with return_page_source, decoding the page charset and gzip', async () => {
      const res = await callCrawler({ query: url('/page'), return_page_source: 'true' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['x-webcap-target-status']).toBe('200');
      expect(res.body).toBe(page);
      const latin = await callCrawler({ query: url('/latin1'), return_page_source: '1' });
      expect(latin.body).toBe('<html><body>café</body></html>');
      const zipped = await callCrawler({ query: url('/gzip'), return_page_source: 'true' });
      expect(zipped.body).toBe(page);
    });

    it('follows redirects by default and lists each hop', async () => {
      const res = await callCrawler({ query: url('/hop1') });
      expect(res.json().data).toMatchObject({
        url: url('/hop1'),
        finalUrl: url('/page'),
        statusCode: 200,
        redirects: [
          { url: url('/hop1'), status: 301 },
          { url: url('/hop2'), status: 302 },
        ],
      });
      const source = await callCrawler({
        query: url('/hop1'),
        allow_redirects: 'true',
        return_page_source: 'true',
      });
      expect(source.body).toBe(page);
    });

    it('returns the first response as it is with allow_redirects=false', async () => {
      const res = await callCrawler({ query: url('/hop1'), allow_redirects: 'false' });
      expect(res.json().data).toMatchObject({
        finalUrl: url('/hop1'),
        statusCode: 301,
        redirects: [],
        headers: expect.objectContaining({ location: '/hop2' }),
      });
      const source = await callCrawler({
        query: url('/hop1'),
        allow_redirects: '0',
        return_page_source: 'true',
      });
      expect(source.statusCode).toBe(200);
      expect(source.headers['x-webcap-target-status']).toBe('301');
      expect(source.body).toBe('');
    });

    it("echoes the target's error statuses and bills them: the call itself succeeded", async () => {
      const before = await used();
      const missing = await callCrawler({ query: url('/missing') });
      expect(missing.json().data.statusCode).toBe(404);
      const broken = await callCrawler({ query: url('/broken'), return_page_source: 'true' });
      expect(broken.statusCode).toBe(200);
      expect(broken.headers['x-webcap-target-status']).toBe('503');
      expect(await used()).toBe(before + 2);
    });

    it('resolves names through the guard', async () => {
      const res = await callCrawler({ query: `http://site.example:${site.port}/page` });
      expect(res.json().data.statusCode).toBe(200);
    });
  });

  describe('errors (never billed)', () => {
    const cases: [string, () => Record<string, string>, number, RegExp][] = [
      ['query missing', () => ({}), 400, /^Bad Request: query is required$/],
      [
        'not a URL',
        () => ({ query: 'example' }),
        400,
        /^Bad Request: query must be an absolute http or https URL$/,
      ],
      [
        'another scheme',
        () => ({ query: 'file:///etc/passwd' }),
        400,
        /^Bad Request: query must be an http or https URL/,
      ],
      [
        'a bad flag',
        () => ({ query: 'http://site.example/', allow_redirects: 'maybe' }),
        400,
        /^Bad Request: allow_redirects /,
      ],
      [
        'an unknown parameter',
        () => ({ query: 'http://site.example/', follow: 'true' }),
        400,
        /follow is not a known parameter/,
      ],
      [
        'non-HTML',
        () => ({ query: url('/pdf') }),
        400,
        /^Bad Request: the page is not HTML \(content-type application\/pdf\)$/,
      ],
      [
        'oversized',
        () => ({ query: url('/huge') }),
        400,
        /^Bad Request: .*larger than the limit of 100000 bytes/,
      ],
      [
        'unresolvable',
        () => ({ query: `http://nowhere.example:${site.port}/` }),
        400,
        /^Bad Request: page could not be loaded \(/,
      ],
      ['a slow body', () => ({ query: url('/slow') }), 500, /^Internal Error: timeout/],
    ];
    it.each(cases)('%s', async (_name, query, status, message) => {
      const before = await used();
      const res = await callCrawler(query());
      expect(res.statusCode).toBe(status);
      expect(res.json().error).toMatch(message);
      expect(await used()).toBe(before);
    });
  });

  describe('security', () => {
    it.each([
      ['the canary port', () => `http://127.0.0.1:${canary.port}/`],
      ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
      ['a decimal loopback', () => `http://2130706433:${canary.port}/`],
      ['a redirect to the canary', () => url('/to-canary')],
      ['a redirect to a name resolving to a private address', () => url('/to-private-name')],
      ['a name resolving to a private address', () => `http://internal.example:${site.port}/`],
    ])('refuses %s with 400, unbilled, and the canary sees nothing', async (_name, target) => {
      const before = await used();
      const res = await callCrawler({ query: target() });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/^Bad Request: blocked by the network policy: /);
      expect(canary.connections()).toBe(0);
      expect(await used()).toBe(before);
    });
  });
});
