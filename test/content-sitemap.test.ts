import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { USER_AGENT } from '../src/engines/crawler/crawler.js';
import { NetworkPolicy, parseAllowList } from '../src/net/address-policy.js';
import { GuardedFetcher } from '../src/net/guarded-fetch.js';
import { parseUpstreamProxy } from '../src/net/upstream-proxy.js';
import { tempDir } from './helpers/databases.js';
import { startCanary, startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { type Socks5Server, startSocks5 } from './helpers/socks5-server.js';

/*
 * GET /v1/content with include_sitemap, end to end (real Chromium, sites served by the test): the
 * memory a discovery holds whatever a site lists, and the server-side fetches (robots.txt, sitemaps,
 * the /favicon.ico probe) going through the caller's proxy when one is given.
 *
 * `near` answers a site's names directly; `far` is the same site as seen from the caller's proxies
 * (an HTTP forward/CONNECT proxy and a SOCKS5 one), which send everything there. Which server saw
 * webcap's own user agent tells which way a server-side fetch went.
 */

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const MiB = 1024 * 1024;

/**
 * This thread's heap and external memory in use after full collections: the least of a few samples
 * taken a moment apart, since freed buffers leave the external count after the collection, not in it.
 */
async function liveMemory(): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    gc();
    const { heapUsed, external } = process.memoryUsage();
    least = Math.min(least, heapUsed + external);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return least;
}

interface Seen {
  readonly host: string;
  readonly path: string;
  readonly userAgent: string;
}

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const page = (title: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>Text.</p></body></html>`;
const urlset = (locs: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;
const send =
  (type: string, body: string | Buffer): Route =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type }).end(body);
  };

/** A site: routes by host name and path, each request recorded. */
async function startSite(routes: Map<string, Route>, seen: Seen[]): Promise<TestServer> {
  return startServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const { pathname } = new URL(req.url ?? '/', 'http://x');
    seen.push({ host, path: pathname, userAgent: req.headers['user-agent'] ?? '' });
    const route = routes.get(`${host}${pathname}`);
    if (route === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    else route(req, res);
  });
}

describe('content: sitemap and favicon fetches', () => {
  const nearRoutes = new Map<string, Route>();
  const farRoutes = new Map<string, Route>();
  const nearSeen: Seen[] = [];
  const farSeen: Seen[] = [];
  /** What the HTTP proxy was asked: "GET <absolute URL>" or "CONNECT host:port", with the credentials it got. */
  const proxied: { readonly line: string; readonly authorization: string }[] = [];
  let near: TestServer;
  let far: TestServer;
  let httpProxy: TestServer;
  let socks: Socks5Server;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    near = await startSite(nearRoutes, nearSeen);
    far = await startSite(farRoutes, farSeen);
    // The caller's HTTP proxy: plain requests in absolute form, and CONNECT tunnels, all sent to `far`.
    httpProxy = await startServer((req, res) => {
      proxied.push({
        line: `${req.method} ${req.url}`,
        authorization: req.headers['proxy-authorization'] ?? '',
      });
      const target = new URL(req.url ?? '');
      const forwarded = http.request(
        {
          host: '127.0.0.1',
          port: far.port,
          path: `${target.pathname}${target.search}`,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => res.destroy());
      req.pipe(forwarded);
    });
    httpProxy.server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      proxied.push({ line: `CONNECT ${req.url}`, authorization: req.headers['proxy-authorization'] ?? '' });
      const tunnel = net.connect(far.port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        tunnel.write(head);
        tunnel.pipe(client);
        client.pipe(tunnel);
      });
      tunnel.on('error', () => client.destroy());
      client.on('error', () => tunnel.destroy());
    });
    socks = await startSocks5(
      { username: 'sock', password: 's3cret' },
      { [`site.test:${near.port}`]: far.port },
    );
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: [near.port, httpProxy.port, socks.port]
          .map((port) => `127.0.0.1/32:${port}`)
          .join(','),
        BROWSER_CONCURRENCY: '2',
        NAVIGATION_TIMEOUT_MS: '10000',
        SITEMAP_MAX_LINKS: '1000',
        // The memory test holds its last file back for as long as it measures.
        SITEMAP_TIMEOUT_MS: '600000',
      },
      resolver: tableResolver({
        'site.test': ['127.0.0.1'],
        'small.test': ['127.0.0.1'],
        'big.test': ['127.0.0.1'],
      }),
    });
    key = await newAccountKey(t, 'sitemaps', 10_000);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([near?.close(), far?.close(), httpProxy?.close(), socks?.close()]);
  });
  beforeEach(() => {
    nearSeen.length = 0;
    farSeen.length = 0;
    proxied.length = 0;
  });

  const at = (host: string, pathname: string) => `http://${host}:${near.port}${pathname}`;
  const v1 = (query: Record<string, string>) =>
    t.runtime.app.inject({ url: `/v1/content?${new URLSearchParams(query)}`, headers: { 'x-api-key': key } });

  describe('memory', () => {
    // Text and XML sitemaps, gzipped, of about 190,000 distinct URLs each: 1.5 million in all,
    // every file within SITEMAP_MAX_FILE_BYTES (50 MB decompressed) and FETCH_MAX_BYTES (10 MiB).
    const FILES = 8;
    const PER_FILE = 190_000;
    const locs = (file: number) =>
      Array.from({ length: PER_FILE }, (_, i) => `https://shop.example/f${file}/product-${i}?ref=sitemap`);

    it('a discovery of 1.5 million links past SITEMAP_MAX_LINKS holds bounded memory while it runs and gives it back after the call', async () => {
      const listed: string[] = [];
      for (let file = 0; file < FILES; file++) {
        const text = file % 4 === 3;
        const body = text ? `${locs(file).join('\n')}\n` : urlset(locs(file));
        const name = text ? `/maps/${file}.txt.gz` : `/maps/${file}.xml.gz`;
        nearRoutes.set(`big.test${name}`, send('application/gzip', gzipSync(body, { level: 1 })));
        listed.push(name);
      }
      // Listed last, the index is read after every big file; the file it lists is asked for only
      // then, and held back while the test measures what the discovery still holds.
      let asked: () => void = () => {};
      const heldAsked = new Promise<void>((resolve) => {
        asked = resolve;
      });
      let answerHeld: () => void = () => {};
      nearRoutes.set('big.test/held.xml', (_req, res) => {
        answerHeld = () => res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset([]));
        asked();
      });
      nearRoutes.set(
        'big.test/index.xml',
        send(
          'application/xml',
          `<sitemapindex><sitemap><loc>${at('big.test', '/held.xml')}</loc></sitemap></sitemapindex>`,
        ),
      );
      nearRoutes.set(
        'big.test/robots.txt',
        send('text/plain', [...listed, '/index.xml'].map((name) => `Sitemap: ${name}`).join('\n')),
      );
      nearRoutes.set('big.test/', send('text/html', page('Big shop')));
      nearRoutes.set('small.test/', send('text/html', page('Small shop')));
      nearRoutes.set('small.test/sitemap.xml', send('application/xml', urlset(['https://small.example/a'])));

      // A first call makes what every call shares (the browser, the extractor processes, compiled code).
      const warm = await v1({ url: at('small.test', '/'), include_sitemap: 'true' });
      expect(warm.statusCode).toBe(200);
      const before = await liveMemory();

      const call = v1({ url: at('big.test', '/'), include_sitemap: 'true' });
      await heldAsked;
      const during = (await liveMemory()) - before;
      answerHeld();
      const res = await call;
      const after = (await liveMemory()) - before;

      expect(res.statusCode).toBe(200);
      const seen = `held during the discovery ${(during / MiB).toFixed(1)} MiB, after the call ${(after / MiB).toFixed(1)} MiB`;
      // A set of the links' hashes alone would hold about 55 MiB; the files read, 100 MiB more.
      expect(during, seen).toBeLessThan(24 * MiB);
      expect(after, seen).toBeLessThan(24 * MiB);
      const { sitemap, warnings } = res.json().data;
      const total = FILES * PER_FILE;
      expect(sitemap.links).toHaveLength(1000);
      expect(sitemap.links.slice(0, 2)).toEqual(locs(0).slice(0, 2));
      expect(Math.abs(sitemap.totalLinks - total) / total).toBeLessThan(0.02);
      expect(warnings).toContain(
        `links truncated to the first 1000 of about ${sitemap.totalLinks} (maxLinks; past 66536 distinct links the total is estimated)`,
      );
    });
  });

  describe("the caller's proxy", () => {
    beforeAll(() => {
      for (const [routes, side] of [
        [nearRoutes, 'near'],
        [farRoutes, 'far'],
      ] as const) {
        routes.set('site.test/page', send('text/html', page(`A page without an icon (${side})`)));
        routes.set('site.test/robots.txt', send('text/plain', 'Sitemap: /sitemap.xml'));
        routes.set(
          'site.test/sitemap.xml',
          send('application/xml', urlset([`https://site.example/${side}`])),
        );
        routes.set('site.test/favicon.ico', send('image/x-icon', Buffer.from([0, 0, 1, 0])));
      }
    });

    const serverSide = (seen: Seen[]) =>
      seen
        .filter((request) => request.userAgent === USER_AGENT)
        .map((request) => request.path)
        .sort();
    const SERVER_SIDE = ['/favicon.ico', '/robots.txt', '/sitemap.xml'];

    it('without a proxy, robots.txt, the sitemap and the favicon probe go straight to the site', async () => {
      const res = await v1({ url: at('site.test', '/page'), include_sitemap: 'true' });
      expect(res.statusCode).toBe(200);
      const { data } = res.json();
      expect(data.sitemap.links).toEqual(['https://site.example/near']);
      expect(data.metadata.favicon).toBe(at('site.test', '/favicon.ico'));
      expect(serverSide(nearSeen)).toEqual(SERVER_SIDE);
      expect(farSeen).toEqual([]);
      expect(proxied).toEqual([]);
    });

    it('through an HTTP proxy: every server-side fetch goes to the proxy, with its credentials', async () => {
      const proxy = `http://user:pa%3Ass@127.0.0.1:${httpProxy.port}`;
      const res = await v1({ url: at('site.test', '/page'), include_sitemap: 'true', proxy });
      expect(res.statusCode).toBe(200);
      const { data } = res.json();
      expect(data.metadata.title).toBe('A page without an icon (far)');
      expect(data.sitemap.links).toEqual(['https://site.example/far']);
      expect(data.metadata.favicon).toBe(at('site.test', '/favicon.ico'));
      expect(serverSide(farSeen)).toEqual(SERVER_SIDE);
      expect(nearSeen).toEqual([]);
      for (const file of SERVER_SIDE) {
        expect(proxied).toContainEqual({
          line: `GET ${at('site.test', file)}`,
          authorization: `Basic ${Buffer.from('user:pa:ss').toString('base64')}`,
        });
      }
    });

    it('through a SOCKS5 proxy: every server-side fetch goes through its tunnels, the name resolved over there', async () => {
      const proxy = `socks5://sock:s3cret@127.0.0.1:${socks.port}`;
      const before = socks.requests.length;
      const res = await v1({ url: at('site.test', '/page'), include_sitemap: 'true', proxy });
      expect(res.statusCode).toBe(200);
      const { data } = res.json();
      expect(data.sitemap.links).toEqual(['https://site.example/far']);
      expect(data.metadata.favicon).toBe(at('site.test', '/favicon.ico'));
      expect(serverSide(farSeen)).toEqual(SERVER_SIDE);
      expect(nearSeen).toEqual([]);
      expect(new Set(socks.requests.slice(before))).toEqual(new Set([`site.test:${near.port}`]));
    });
  });
});

describe("guarded fetch through a caller's proxy", () => {
  let target: TestServer;
  let tlsTarget: https.Server;
  const tlsSockets: net.Socket[] = [];
  let canary: TestServer;
  const asked: string[] = [];
  let proxy: TestServer;
  let fetcher: GuardedFetcher;

  beforeAll(async () => {
    target = await startServer((_req, res) => res.end('target'));
    canary = await startCanary();
    const dir = tempDir('webcap-tls-');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=secure.test', '-days', '1'].concat([
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    tlsTarget = https.createServer(
      { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) },
      (_req, res) => res.end('secure'),
    );
    tlsTarget.on('connection', (socket: net.Socket) => tlsSockets.push(socket));
    await new Promise<void>((resolve) => tlsTarget.listen(0, '127.0.0.1', () => resolve()));
    const tlsPort = (tlsTarget.address() as AddressInfo).port;
    proxy = await startServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.end('from the proxy');
    });
    proxy.server.on('connect', (req: http.IncomingMessage, client: net.Socket) => {
      asked.push(`CONNECT ${req.url}`);
      const tunnel = net.connect(tlsPort, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        tunnel.pipe(client);
        client.pipe(tunnel);
      });
      tunnel.on('error', () => client.destroy());
      client.on('error', () => tunnel.destroy());
    });
    // The proxy's own port is allowed, the targets' are not: through the proxy, a name is resolved
    // over there; a refused IP literal stays refused.
    fetcher = new GuardedFetcher({
      policy: new NetworkPolicy(parseAllowList(`127.0.0.1/32:${proxy.port}`)),
      resolver: tableResolver({}),
      maxBytes: MiB,
      headersTimeoutMs: 5000,
      timeoutMs: 10_000,
    });
  });
  afterAll(async () => {
    await fetcher?.close();
    await Promise.all([target?.close(), canary?.close(), proxy?.close()]);
    for (const socket of tlsSockets) socket.destroy();
    await new Promise<void>((resolve) => (tlsTarget ? tlsTarget.close(() => resolve()) : resolve()));
  });
  beforeEach(() => {
    asked.length = 0;
  });

  it('sends a plain http request to the proxy in absolute form', async () => {
    const answer = await fetcher.fetch('http://site.test/a?b=1', {
      proxy: parseUpstreamProxy(`http://127.0.0.1:${proxy.port}`),
    });
    expect(answer.body.toString()).toBe('from the proxy');
    expect(asked).toEqual(['GET http://site.test/a?b=1']);
  });

  it('tunnels https with CONNECT and speaks TLS to the target inside, its certificate verified', async () => {
    const fetched = fetcher.fetch('https://secure.test/', {
      proxy: parseUpstreamProxy(`http://127.0.0.1:${proxy.port}`),
    });
    // The test's certificate is self-signed: the TLS handshake went through to the target, and failed there.
    await expect(fetched).rejects.toMatchObject({
      code: 'target_unreachable',
      detail: expect.stringMatching(/SELF_SIGNED/),
    });
    expect(asked).toEqual(['CONNECT secure.test:443']);
  });

  it('refuses a proxy at a refused address, and a refused IP literal target through an allowed proxy', async () => {
    await expect(
      fetcher.fetch('http://site.test/', { proxy: parseUpstreamProxy(`http://127.0.0.1:${canary.port}`) }),
    ).rejects.toMatchObject({ code: 'blocked' });
    await expect(
      fetcher.fetch(`http://127.0.0.1:${canary.port}/`, {
        proxy: parseUpstreamProxy(`http://127.0.0.1:${proxy.port}`),
      }),
    ).rejects.toMatchObject({ code: 'blocked' });
    expect(asked).toEqual([]);
    expect(canary.connections()).toBe(0);
  });
});
