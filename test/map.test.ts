import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Webcap } from '@webcap/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWebcap } from '../src/cli/program.js';
import { RemoteBackend } from '../src/mcp/remote.js';
import { startCanary, startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { newAccountKey, reservationsOf, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * GET|POST /v1/map end to end: one fixture server on 127.0.0.1 answers several host names by its
 * Host header (the resolver sends them all to loopback), so that www., subdomains and another
 * site are real hosts to the guard and the map; a canary on a port the policy refuses.
 */

type Json = Record<string, unknown>;
type Route = (res: http.ServerResponse, path: string) => void;

const urlset = (locs: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;
const sitemapIndex = (locs: string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}</sitemapindex>`;
const html = (body: string) =>
  `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
const links = (hrefs: string[]) => html(hrefs.map((href) => `<a href="${href}">x</a>`).join(''));

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

describe('/v1/map', () => {
  let server: TestServer;
  let canary: TestServer;
  let t: TestRuntime;
  let key: string;
  /** The service listening, for the clients (SDK, CLI, MCP). */
  let base: string;
  const at = (host: string, path: string) => `http://${host}:${server.port}${path}`;
  const site = (path: string) => at('site.example', path);

  // The 100,000-link page, made once.
  const bigPage = links(Array.from({ length: 100_000 }, (_, i) => `/p/${i}`));

  /** Each host's answers by path; a path not listed is a 404. */
  const hosts: Record<string, Record<string, Route>> = {
    'site.example': {
      '/': (res) =>
        send(
          res,
          200,
          'text/html; charset=utf-8',
          links([
            '/about',
            '/contact',
            '/contact#team',
            '/contact?utm_medium=email',
            site('/about'),
            at('www.site.example', '/team'),
            at('docs.site.example', '/api'),
            at('other.example', '/out'),
            'mailto:someone@site.example',
            '/blog/',
          ]),
        ),
      '/robots.txt': (res) =>
        send(res, 200, 'text/plain', `User-agent: *\nDisallow:\nSitemap: ${site('/sitemap-index.xml')}\n`),
      '/sitemap-index.xml': (res) =>
        send(res, 200, 'application/xml', sitemapIndex([site('/sitemap-a.xml'), site('/sitemap-b.xml.gz')])),
      '/sitemap-a.xml': (res) =>
        send(
          res,
          200,
          'application/xml',
          urlset([
            site('/'),
            site('/about'),
            site('/blog/first-post'),
            at('docs.site.example', '/guide'),
            at('other.example', '/elsewhere'),
            site('/blog/first-post#comments'),
            site('/pricing?utm_source=newsletter'),
          ]),
        ),
      '/sitemap-b.xml.gz': (res) =>
        send(res, 200, 'application/gzip', gzipSync(urlset([site('/blog/second-post'), site('/careers')]))),
      '/big': (res) => send(res, 200, 'text/html', bigPage),
      '/to-www': (res) => {
        res.writeHead(301, { location: at('www.site.example', '/home') });
        res.end();
      },
      '/to-other': (res) => {
        res.writeHead(302, { location: at('other.example', '/landing') });
        res.end();
      },
      '/loop-a': (res) => {
        res.writeHead(302, { location: '/loop-b' });
        res.end();
      },
      '/loop-b': (res) => {
        res.writeHead(302, { location: '/loop-a' });
        res.end();
      },
      '/to-canary': (res) => {
        // Same host, a port the policy refuses.
        res.writeHead(302, { location: `http://site.example:${canary.port}/secret` });
        res.end();
      },
      '/missing': (res) => send(res, 404, 'text/html', links(['/from-404'])),
      '/pdf': (res) => send(res, 200, 'application/pdf', '%PDF-1.4'),
    },
    'www.site.example': {
      '/home': (res) => send(res, 200, 'text/html', links(['/from-home', site('/about')])),
    },
    'docs.site.example': {},
    'other.example': {},
    // A sitemap that inflates far past SITEMAP_MAX_FILE_BYTES, and a site with no sitemap at all.
    'bomb.example': {
      '/': (res) => send(res, 200, 'text/html', links(['/one'])),
      '/sitemap.xml': (res) =>
        send(res, 200, 'application/xml', gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 })),
    },
    // The start page never answers; the sitemap does.
    'slow.example': {
      '/': () => undefined,
      '/sitemap.xml': (res) => send(res, 200, 'application/xml', urlset([at('slow.example', '/listed')])),
    },
    // Nothing ever answers.
    'dead.example': new Proxy({}, { get: () => () => undefined }),
  };

  beforeAll(async () => {
    canary = await startCanary();
    server = await startServer((req, res) => {
      const host = (req.headers.host ?? '').split(':')[0] ?? '';
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const route = hosts[host]?.[path];
      if (route === undefined) return send(res, 404, 'text/plain', 'not found');
      route(res, path);
    });
    const loopback = ['127.0.0.1'];
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${server.port}`,
        // Bounds a hang only: the hang's own test has a runtime with a short deadline.
        SITEMAP_TIMEOUT_MS: '600000',
        SITEMAP_MAX_FILE_BYTES: String(1024 * 1024),
        // Bounds a hang only: parsing the 100,000-link page took 15 s on a loaded machine.
        CONTENT_EXTRACT_TIMEOUT_MS: '300000',
      },
      resolver: tableResolver(
        Object.fromEntries(Object.keys(hosts).map((host) => [host, loopback] as const)),
      ),
    });
    key = await newAccountKey(t, 'mapper', 1000);
    base = await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
    await canary?.close();
  });

  const get = (query: Record<string, string>) =>
    t.runtime.app.inject({ url: `/v1/map?${new URLSearchParams(query)}`, headers: { 'x-api-key': key } });
  const post = (body: Json) =>
    t.runtime.app.inject({ method: 'POST', url: '/v1/map', headers: { 'x-api-key': key }, payload: body });
  const urls = (res: { json(): unknown }) =>
    (res.json() as { links: { url: string }[] }).links.map((l) => l.url);
  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;

  describe('happy', () => {
    it('merges the start page, its links and the sitemaps (index, gzipped child) in one spelling each', async () => {
      const res = await post({ url: site('/') });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.json()).toEqual({
        success: true,
        links: [
          site('/'),
          site('/about'),
          site('/contact'),
          at('www.site.example', '/team'),
          site('/blog/'),
          site('/blog/first-post'),
          site('/pricing'),
          site('/blog/second-post'),
          site('/careers'),
        ].map((url) => ({ url })),
        total: 9,
        truncated: false,
        warnings: [],
      });
    });

    it('takes the same parameters by GET', async () => {
      const res = await get({ url: site('/'), limit: '2' });
      expect(res.statusCode, res.body).toBe(200);
      expect(urls(res)).toEqual([site('/'), site('/about')]);
    });

    it('keeps subdomains with include_subdomains, never another site', async () => {
      const res = await post({ url: site('/'), include_subdomains: true });
      expect(urls(res)).toEqual([
        site('/'),
        site('/about'),
        site('/contact'),
        at('www.site.example', '/team'),
        at('docs.site.example', '/api'),
        site('/blog/'),
        site('/blog/first-post'),
        at('docs.site.example', '/guide'),
        site('/pricing'),
        site('/blog/second-post'),
        site('/careers'),
      ]);
    });

    it('ranks search matches: most words first, then shorter, then found first; words are plain text', async () => {
      const res = await post({ url: site('/'), search: 'POST  blog post' });
      expect(res.json()).toMatchObject({
        links: [site('/blog/first-post'), site('/blog/second-post'), site('/blog/')].map((url) => ({ url })),
        total: 3,
        truncated: false,
      });
      // Regex syntax is text: nothing contains it.
      const literal = await post({ url: site('/'), search: '.* (a+)+$' });
      expect(literal.json()).toMatchObject({ links: [], total: 0 });
    });

    it('cuts at limit and says so', async () => {
      const res = await post({ url: site('/'), limit: 3 });
      expect(res.json()).toEqual({
        success: true,
        links: [site('/'), site('/about'), site('/contact')].map((url) => ({ url })),
        total: 9,
        truncated: true,
        warnings: ['links truncated to the first 3 of 9 (limit)'],
      });
    });

    it('reads only the sitemaps with sitemap=only, only the start page with sitemap=skip', async () => {
      const only = await post({ url: site('/'), sitemap: 'only' });
      expect(urls(only)).toEqual([
        site('/'),
        site('/about'),
        site('/blog/first-post'),
        site('/pricing'),
        site('/blog/second-post'),
        site('/careers'),
      ]);
      const skip = await post({ url: site('/'), sitemap: 'skip' });
      expect(urls(skip)).toEqual([
        site('/'),
        site('/about'),
        site('/contact'),
        at('www.site.example', '/team'),
        site('/blog/'),
      ]);
    });

    it('follows the start page to www. and lists where it landed; not to another site', async () => {
      const www = await post({ url: site('/to-www'), sitemap: 'skip' });
      expect(www.json()).toMatchObject({
        links: [at('www.site.example', '/home'), at('www.site.example', '/from-home'), site('/about')].map(
          (url) => ({ url }),
        ),
        warnings: [],
      });
      const other = await post({ url: site('/to-other') });
      expect(other.statusCode).toBe(200);
      const body = other.json() as { links: { url: string }[]; warnings: string[] };
      expect(body.links.map((l) => l.url)).not.toContain(at('other.example', '/landing'));
      expect(body.links[0]).toEqual({ url: site('/') });
      expect(body.warnings).toEqual([
        `the start page ${site('/to-other')} redirects to ${at('other.example', '/landing')}, off the site: not followed; its links are not read`,
      ]);
    });

    it('stops a redirect loop, and reads no links from a start page that is not 2xx', async () => {
      const loop = await post({ url: site('/loop-a') });
      expect(loop.statusCode).toBe(200);
      expect((loop.json() as { warnings: string[] }).warnings[0]).toBe(
        `the start page ${site('/loop-b')} redirects in a loop (back to ${site('/loop-a')}); its links are not read`,
      );
      const missing = await post({ url: site('/missing') });
      expect(urls(missing)).not.toContain(site('/from-404'));
      expect((missing.json() as { warnings: string[] }).warnings[0]).toBe(
        `the start page ${site('/missing')} answered HTTP 404; its links are not read`,
      );
    });

    it('answers as a job with is_async, the same body', async () => {
      const submitted = await post({ url: site('/'), limit: 2, is_async: true });
      expect(submitted.statusCode, submitted.body).toBe(202);
      const id = submitted.json().job_id as string;
      let record: Json;
      for (;;) {
        record = (await t.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } })).json();
        if (record.status === 'completed' || record.status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(record.status).toBe('completed');
      expect(record.result).toEqual({
        success: true,
        links: [{ url: site('/') }, { url: site('/about') }],
        total: 9,
        truncated: true,
        warnings: ['links truncated to the first 2 of 9 (limit)'],
      });
    });

    it('serves the same map from the cache with cache=true, billed as a call', async () => {
      const before = await used();
      const first = await post({ url: site('/'), cache: true, search: 'careers' });
      const second = await post({ url: site('/'), cache: true, search: 'careers' });
      expect(first.headers['x-webcap-cache']).toBe('miss');
      expect(second.headers['x-webcap-cache']).toBe('hit');
      expect(second.body).toBe(first.body);
      expect(await used()).toBe(before + 2);
    });

    it('is the engine `map` of the stats catalogue, by name and by path', async () => {
      const statsKey = await newAccountKey(t, 'map-stats', 10, { statsEnabled: true });
      const stats = (query: string) =>
        t.runtime.app.inject({ url: `/v1/stats?${query}`, headers: { 'x-api-key': statsKey } });
      expect((await stats('engine=map')).json()).toMatchObject({ engine: 'map', window: '1h' });
      expect((await stats('path=/v1/map')).json()).toMatchObject({ engine: 'map', path: '/v1/map' });
    });

    it('bills one credit per map, none for a refused one', async () => {
      const before = await used();
      const before2 = await reservationsOf(t, 'mapper');
      expect((await post({ url: site('/') })).statusCode).toBe(200);
      expect((await post({ url: site('/'), limit: 0 })).statusCode).toBe(400);
      expect(await used()).toBe(before + 1);
      const after = await reservationsOf(t, 'mapper');
      expect(after.committed).toBe(before2.committed + 1);
      expect(after.reserved).toBe(0);
    });
  });

  describe('errors', () => {
    it.each([
      ['url', {}, /url/],
      ['limit', { url: 'START', limit: 0 }, /limit/],
      ['limit', { url: 'START', limit: 100_001 }, /limit/],
      ['sitemap', { url: 'START', sitemap: 'sometimes' }, /sitemap/],
      ['search', { url: 'START', search: 'a b c d e f g h i j k' }, /search has more than 10 words/],
      ['search', { url: 'START', search: 'x'.repeat(501) }, /search/],
      ['include_subdomains', { url: 'START', include_subdomains: 'maybe' }, /include_subdomains/],
      ['depth', { url: 'START', depth: 2 }, /depth/],
      ['url', { url: 'ftp://site.example/' }, /url/],
      ['url', { url: 'x'.repeat(8193) }, /url/],
    ])('refuses a bad %s with a 400 naming it', async (_name, body, named) => {
      // START stands for the start page, whose port is known once the fixture listens.
      const res = await post({
        ...body,
        ...('url' in body && body.url === 'START' ? { url: site('/') } : {}),
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatch(/^Bad Request/);
      expect(res.json().error).toMatch(named);
    });

    it('answers the start page’s own failure when nothing else was found', async () => {
      const before = await used();
      const pdf = await post({ url: site('/pdf'), sitemap: 'skip' });
      expect(pdf.statusCode).toBe(400);
      expect(pdf.json().error).toBe('Bad Request: the page is not HTML (content-type application/pdf)');
      expect(await used()).toBe(before);
    });

    it('a start page that hangs is a warning beside the sitemap, or the timeout when there is nothing else', async () => {
      // A runtime of its own: its 5 s deadline is met by the hosts that hang, and by nothing else.
      const own = await startTestRuntime('sqlite', {
        env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${server.port}`, SITEMAP_TIMEOUT_MS: '5000' },
        resolver: tableResolver(Object.fromEntries(Object.keys(hosts).map((host) => [host, ['127.0.0.1']]))),
      });
      try {
        const ownKey = await newAccountKey(own, 'mapper-hang', 10);
        const post = (body: Json) =>
          own.runtime.app.inject({
            method: 'POST',
            url: '/v1/map',
            headers: { 'x-api-key': ownKey },
            payload: body,
          });
        const used = async () =>
          (await own.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': ownKey } })).json()
            .total_used as number;
        const slow = await post({ url: at('slow.example', '/') });
        expect(slow.statusCode, slow.body).toBe(200);
        expect(slow.json()).toEqual({
          success: true,
          links: [{ url: at('slow.example', '/listed') }],
          total: 1,
          truncated: false,
          warnings: [
            `the start page ${at('slow.example', '/')} could not be read (no answer within 5000 ms)`,
          ],
        });
        const before = await used();
        const dead = await post({ url: at('dead.example', '/') });
        expect(dead.statusCode, dead.body).toBe(500);
        expect(dead.json().error).toBe('Internal Error: timeout: no answer within 5000 ms');
        expect(await used()).toBe(before);
      } finally {
        await own.close();
      }
    });

    it('reads no further than SITEMAP_MAX_FILE_BYTES of a sitemap bomb', async () => {
      const res = await post({ url: at('bomb.example', '/') });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        links: [{ url: at('bomb.example', '/') }, { url: at('bomb.example', '/one') }],
        warnings: [
          `${at('bomb.example', '/sitemap.xml')}: larger than 1048576 bytes once decompressed`,
          `${at('bomb.example', '/sitemap_index.xml')}: HTTP 404`,
          'no sitemap with links found',
        ],
      });
    });
  });

  describe('security', () => {
    it('answers a start URL the guard refuses as the guard does, before billing', async () => {
      const before = await used();
      const res = await post({ url: `http://127.0.0.1:${canary.port}/` });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/^Bad Request: blocked by the network policy/);
      const hop = await post({ url: site('/to-canary') });
      expect(hop.statusCode).toBe(400);
      expect(hop.json().error).toMatch(/^Bad Request: blocked by the network policy/);
      expect(canary.connections()).toBe(0);
      expect(await used()).toBe(before);
    });

    it('maps a page of 100,000 links without holding the event loop', async () => {
      const before = performance.eventLoopUtilization();
      const res = await post({ url: site('/big'), sitemap: 'skip', limit: 100_000 });
      const { utilization } = performance.eventLoopUtilization(before);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const body = res.json() as { links: { url: string }[]; total: number; warnings: string[] };
      // The page is cut at the extractor's element budget (CONTENT_THREAD_HEAP_MB), and says so.
      expect(body.total).toBeGreaterThan(50_000);
      expect(body.links.length).toBe(body.total);
      expect(body.links.slice(0, 3)).toEqual([
        { url: site('/big') },
        { url: site('/p/0') },
        { url: site('/p/1') },
      ]);
      expect(body.warnings.join('\n')).toMatch(/elements/);
      expect(utilization, `event-loop utilization ${utilization.toFixed(3)}`).toBeLessThan(0.5);
      const health = await t.runtime.app.inject({ url: '/healthz' });
      expect(health.statusCode).toBe(200);
    });
  });
  describe('clients', () => {
    const firstThree = () => [site('/'), site('/about'), site('/contact')];

    it('the SDK: map() answers the body and the cache state; a map job answers the same body', async () => {
      const client = new Webcap({ baseUrl: base, apiKey: key });
      const answer = await client.map({ url: site('/'), limit: 3 });
      expect(answer.cache).toBeNull();
      expect(answer.data).toMatchObject({ success: true, total: 9, truncated: true });
      expect(answer.data.links.map((link) => link.url)).toEqual(firstThree());
      const accepted = await client.jobs.submit('map', { url: site('/'), limit: 3 });
      const job = await client.jobs.wait(accepted.job_id, { timeoutMs: HANG_MS });
      expect(job.status).toBe('completed');
      expect(job.result).toEqual(answer.data);
    });

    async function webcap(
      args: readonly string[],
    ): Promise<{ code: number; stdout: string; stderr: string }> {
      let stdout = '';
      let stderr = '';
      const code = await runWebcap(
        args,
        () => {
          throw new Error('an API verb read the service configuration');
        },
        {
          stdout: (text) => {
            stdout += text;
          },
          stderr: (text) => {
            stderr += text;
          },
          env: { WEBCAP_URL: base, WEBCAP_API_KEY: key },
        },
      );
      return { code, stdout, stderr };
    }

    it('the CLI: `webcap map URL` prints one URL a line and the warnings on stderr; --json the body', async () => {
      const run = await webcap(['map', site('/'), '--limit', '3']);
      expect(run).toEqual({
        code: 0,
        stdout: `${firstThree().join('\n')}\n`,
        stderr: 'webcap: warning: links truncated to the first 3 of 9 (limit)\n',
      });
      const json = await webcap(['map', site('/'), '--search', 'careers', '--sitemap', 'only', '--json']);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({
        success: true,
        links: [{ url: site('/careers') }],
        total: 1,
        truncated: false,
        warnings: [],
      });
      const bad = await webcap(['map', site('/'), '--sitemap', 'sometimes']);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/--sitemap/);
    });

    it('MCP: the map tool lists the URLs as text, over /mcp and through the SDK alike', async () => {
      const mcp = new Client({ name: 'webcap-test', version: '1' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { 'x-api-key': key } },
        }),
        { timeout: HANG_MS },
      );
      try {
        const result = (await mcp.callTool(
          { name: 'map', arguments: { url: site('/'), limit: 3 } },
          undefined,
          {
            timeout: HANG_MS,
          },
        )) as CallToolResult;
        expect(result.isError).toBeFalsy();
        expect(result.content).toEqual([
          {
            type: 'text',
            text: [
              '3 URLs of 9 (limit)',
              'warning: links truncated to the first 3 of 9 (limit)',
              '',
              ...firstThree(),
            ].join('\n'),
          },
        ]);
        const refused = (await mcp.callTool(
          { name: 'map', arguments: { url: site('/'), limit: 5001 } },
          undefined,
          {
            timeout: HANG_MS,
          },
        )) as CallToolResult;
        expect(refused.isError).toBe(true);
      } finally {
        await mcp.close();
      }
      const remote = await new RemoteBackend(new Webcap({ baseUrl: base, apiKey: key })).map({
        url: site('/'),
        limit: 3,
      });
      expect(remote.kind === 'done' && remote.value.links.map((link) => link.url)).toEqual(firstThree());
    });
  });
});
