import type http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { discoverSitemap, type SitemapBounds } from '../src/engines/content/sitemap.js';
import { NetworkPolicy, parseAllowList } from '../src/net/address-policy.js';
import { GuardedFetcher } from '../src/net/guarded-fetch.js';
import { closedPort, startCanary, startServer, type TestServer } from './helpers/net-fixtures.js';

/*
 * Sitemap discovery against a server of its own on 127.0.0.1, each test serving its own routes.
 * The allow list lets through the fixture's port (and a closed port, to see a connection fail);
 * a canary on another loopback port must never be reached.
 */

const MiB = 1024 * 1024;
type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

let fixture: TestServer;
let canary: TestServer;
let refusedPort: number;
let base: string;
let allowed: GuardedFetcher;
let guarded: GuardedFetcher;
// Waits ten minutes for anything: a connection it had open closes only because the discovery closed it.
let patient: GuardedFetcher;
let routes: Record<string, Route> = {};
let requests: string[] = [];

const bounds: SitemapBounds = { maxFiles: 50, maxLinks: 1000, maxFileBytes: MiB, timeoutMs: 5000 };

function xml(body: string, type = 'application/xml'): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': type });
    res.end(body);
  };
}

function raw(body: Buffer, type: string): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': type });
    res.end(body);
  };
}

function status(code: number, location?: string): Route {
  return (_req, res) => {
    res.writeHead(code, location === undefined ? {} : { location });
    res.end();
  };
}

const urlset = (...locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((loc) => `<url><loc>${loc}</loc></url>`)
    .join('\n')}</urlset>`;
const index = (...locs: string[]) =>
  `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`)
    .join('\n')}</sitemapindex>`;
const pages = (...paths: string[]) => paths.map((path) => `https://example.com/${path}`);

/** A promise the test resolves when something it waits for has happened. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

afterEach(() => {
  vi.useRealTimers();
});

beforeAll(async () => {
  fixture = await startServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const route = routes[path];
    if (route === undefined) status(404)(req, res);
    else route(req, res);
  });
  canary = await startCanary();
  refusedPort = await closedPort();
  base = `http://127.0.0.1:${fixture.port}`;
  allowed = new GuardedFetcher({
    policy: new NetworkPolicy(parseAllowList(`127.0.0.1/32:${fixture.port},127.0.0.1/32:${refusedPort}`)),
    maxBytes: 4 * MiB,
    headersTimeoutMs: 3000,
    timeoutMs: 4000,
  });
  patient = new GuardedFetcher({
    policy: new NetworkPolicy(parseAllowList(`127.0.0.1/32:${fixture.port}`)),
    maxBytes: 4 * MiB,
    headersTimeoutMs: 600_000,
    timeoutMs: 600_000,
  });
  guarded = new GuardedFetcher({
    policy: new NetworkPolicy(),
    maxBytes: 4 * MiB,
    headersTimeoutMs: 3000,
    timeoutMs: 4000,
  });
});

afterAll(async () => {
  await Promise.all([allowed?.close(), guarded?.close(), patient?.close()]);
  await Promise.all([fixture?.close(), canary?.close()]);
});

beforeEach(() => {
  routes = {};
  requests = [];
});

describe('sitemap discovery: happy', () => {
  it('unions every robots.txt Sitemap line, relative ones resolved, duplicates and other schemes dropped', async () => {
    routes = {
      '/robots.txt': xml(
        [
          'User-agent: *',
          'Disallow: /private',
          'SITEMAP: /sitemaps/a.xml',
          'sitemap:b.xml # the second one',
          `  Sitemap :  ${base}/sitemaps/a.xml`,
          'Sitemap: ftp://example.com/c.xml',
          'Sitemap:',
          '# Sitemap: /commented.xml',
        ].join('\r\n'),
        'text/plain',
      ),
      '/sitemaps/a.xml': xml(urlset(...pages('1', '2'))),
      '/b.xml': xml(urlset(...pages('2', '3'))),
    };
    expect(await discoverSitemap(allowed, `${base}/some/page?q=1`, bounds)).toEqual({
      source: `${base}/sitemaps/a.xml`,
      totalLinks: 3,
      links: pages('1', '2', '3'),
      warnings: [],
    });
    expect(requests.sort()).toEqual(['/b.xml', '/robots.txt', '/sitemaps/a.xml']);
  });

  it('falls back to /sitemap.xml when robots.txt lists none, and stops there', async () => {
    routes = { '/sitemap.xml': xml(urlset(...pages('a', 'b'))) };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/sitemap.xml`,
      totalLinks: 2,
      links: pages('a', 'b'),
      warnings: [],
    });
    expect(requests).toEqual(['/robots.txt', '/sitemap.xml']);
  });

  it('falls back to /sitemap_index.xml after /sitemap.xml', async () => {
    routes = {
      '/robots.txt': xml('User-agent: *\nDisallow:\n', 'text/plain'),
      '/sitemap_index.xml': xml(index(`${base}/part.xml`)),
      '/part.xml': xml(urlset(...pages('x'))),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/sitemap_index.xml`,
      totalLinks: 1,
      links: pages('x'),
      warnings: [`${base}/sitemap.xml: HTTP 404`],
    });
  });

  it('also falls back when the robots.txt sitemaps give no links', async () => {
    routes = {
      '/robots.txt': xml('Sitemap: /gone.xml\nSitemap: /empty.xml', 'text/plain'),
      '/empty.xml': xml(urlset()),
      '/sitemap.xml': xml(urlset(...pages('fallback'))),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/sitemap.xml`,
      totalLinks: 1,
      links: pages('fallback'),
      warnings: [`${base}/gone.xml: HTTP 404`],
    });
  });

  it('follows nested indexes breadth-first, links in document order, extensions ignored', async () => {
    routes = {
      '/robots.txt': xml(`Sitemap: ${base}/index.xml`, 'text/plain'),
      '/index.xml': xml(index(`${base}/index2.xml`, `${base}/s1.xml`)),
      '/index2.xml': xml(index(`${base}/s2.xml`)),
      '/s1.xml': xml(
        `<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
<url><loc>https://example.com/s1?a=1&amp;b=2</loc><image:image><image:loc>https://example.com/i.png</image:loc></image:image></url>
<url><loc><![CDATA[https://example.com/s1-cdata]]></loc></url>
</urlset>`,
      ),
      '/s2.xml': xml(urlset(...pages('s2', 's1-cdata'))),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/index.xml`,
      totalLinks: 3,
      links: ['https://example.com/s1?a=1&b=2', 'https://example.com/s1-cdata', 'https://example.com/s2'],
      warnings: [],
    });
    // Fetched up to four at a time: the order of requests varies, the order of links does not.
    expect(requests.sort()).toEqual(['/index.xml', '/index2.xml', '/robots.txt', '/s1.xml', '/s2.xml']);
  });

  it('keeps queue order when a later file answers first', async () => {
    routes = {
      '/sitemap.xml': xml(index(`${base}/slow.xml`, `${base}/fast.xml`)),
      '/slow.xml': (req, res) => void setTimeout(() => xml(urlset(...pages('slow')))(req, res), 200),
      '/fast.xml': xml(urlset(...pages('fast'))),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/sitemap.xml`,
      totalLinks: 2,
      links: pages('slow', 'fast'),
      warnings: [],
    });
  });

  it('gunzips .xml.gz files and any body with the gzip magic, whatever its name and type', async () => {
    routes = {
      '/robots.txt': xml('Sitemap: /index.xml.gz', 'text/plain'),
      '/index.xml.gz': raw(zlib.gzipSync(index(`${base}/a.xml.gz`, `${base}/b`)), 'application/x-gzip'),
      '/a.xml.gz': raw(zlib.gzipSync(urlset(...pages('gz-a'))), 'application/octet-stream'),
      '/b': raw(zlib.gzipSync(urlset(...pages('gz-b'))), 'text/html'),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/index.xml.gz`,
      totalLinks: 2,
      links: pages('gz-a', 'gz-b'),
      warnings: [],
    });
  });

  it('reads a plain-text sitemap, one URL per line', async () => {
    routes = {
      '/robots.txt': xml('Sitemap: /urls.txt', 'text/plain'),
      '/urls.txt': xml(
        'https://example.com/t1\nhttps://example.com/t2\r\n\nhttps://example.com/t1\n',
        'text/plain',
      ),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/urls.txt`,
      totalLinks: 2,
      links: pages('t1', 't2'),
      warnings: [],
    });
  });

  it('follows redirects, robots.txt lines resolved against where robots.txt ended up', async () => {
    routes = {
      '/robots.txt': status(301, '/moved/robots.txt'),
      '/moved/robots.txt': xml('Sitemap: maps/site.xml', 'text/plain'),
      '/moved/maps/site.xml': status(302, '/final.xml'),
      '/final.xml': xml(urlset(...pages('r'))),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/moved/maps/site.xml`,
      totalLinks: 1,
      links: pages('r'),
      warnings: [],
    });
  });

  it('reads each file once: cycles between indexes, and a redirect back to a file already read', async () => {
    routes = {
      '/sitemap.xml': xml(index(`${base}/a.xml`, `${base}/sitemap.xml`)),
      '/a.xml': xml(index(`${base}/sitemap.xml`, `${base}/a.xml`, `${base}/to-a.xml`, `${base}/pages.xml`)),
      '/to-a.xml': status(301, '/a.xml'),
      '/pages.xml': xml(urlset(...pages('p'))),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/sitemap.xml`,
      totalLinks: 1,
      links: pages('p'),
      warnings: [],
    });
    // The redirect is fetched to its end (/a.xml again) but not read again.
    expect(requests.sort()).toEqual([
      '/a.xml',
      '/a.xml',
      '/pages.xml',
      '/robots.txt',
      '/sitemap.xml',
      '/to-a.xml',
    ]);
  });
});

describe('sitemap discovery: bounds', () => {
  it('reads at most maxFiles files (robots.txt not counted) and says how many more were listed', async () => {
    const children = Array.from({ length: 10 }, (_, i) => `${base}/s${i}.xml`);
    routes = {
      '/robots.txt': xml('Sitemap: /sitemap.xml', 'text/plain'),
      '/sitemap.xml': xml(index(...children)),
    };
    for (let i = 0; i < 10; i++) routes[`/s${i}.xml`] = xml(urlset(...pages(`${i}-a`, `${i}-b`)));
    expect(await discoverSitemap(allowed, `${base}/`, { ...bounds, maxFiles: 4 })).toEqual({
      source: `${base}/sitemap.xml`,
      totalLinks: 6,
      links: pages('0-a', '0-b', '1-a', '1-b', '2-a', '2-b'),
      warnings: ['stopped at 4 sitemap files (maxFiles); 7 more listed were not read'],
    });
    expect(requests.sort()).toEqual(['/robots.txt', '/s0.xml', '/s1.xml', '/s2.xml', '/sitemap.xml']);
  });

  it('keeps maxLinks links and counts every distinct one', async () => {
    routes = {
      '/sitemap.xml': xml(index(`${base}/a.xml`, `${base}/b.xml`, `${base}/c.xml`)),
      '/a.xml': xml(urlset(...pages('1', '2', '3', '1'))),
      '/b.xml': xml(urlset(...pages('3', '4', '5', '6'))),
      '/c.xml': xml(urlset(...pages('6', '7', '8', '2', '7'))),
    };
    expect(await discoverSitemap(allowed, `${base}/`, { ...bounds, maxLinks: 4 })).toEqual({
      source: `${base}/sitemap.xml`,
      totalLinks: 8,
      links: pages('1', '2', '3', '4'),
      warnings: ['links truncated to the first 4 of 8 (maxLinks)'],
    });
  });

  it('fails a gzip bomb and a file over maxFileBytes with a warning, and reads the rest', async () => {
    // 64 MiB of zeros, 64 KiB on the wire.
    const zeros = zlib.gzipSync(Buffer.alloc(64 * MiB));
    routes = {
      '/sitemap.xml': xml(
        index(`${base}/bomb.xml.gz`, `${base}/big.xml`, `${base}/bad.xml.gz`, `${base}/good.xml`),
      ),
      '/bomb.xml.gz': raw(zeros, 'application/gzip'),
      '/big.xml': xml(urlset(...pages('big')) + ' '.repeat(MiB)),
      '/bad.xml.gz': raw(
        Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02]),
        'application/gzip',
      ),
      '/good.xml': xml(urlset(...pages('good'))),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/sitemap.xml`,
      totalLinks: 1,
      links: pages('good'),
      warnings: [
        `${base}/bomb.xml.gz: larger than ${MiB} bytes once decompressed`,
        `${base}/big.xml: larger than ${MiB} bytes`,
        `${base}/bad.xml.gz: not valid gzip`,
      ],
    });
  });

  it('gunzips a file of several gzip members, the last one small', async () => {
    const text = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `https://example.com/m${from + i}\n`).join('');
    // The trailer's size is the last member's: the output outgrows the buffer it was first given.
    const members = Buffer.concat([zlib.gzipSync(text(0, 20_000)), zlib.gzipSync(text(20_000, 5))]);
    routes = { '/sitemap.xml': raw(members, 'application/gzip') };
    const site = await discoverSitemap(allowed, `${base}/`, { ...bounds, maxLinks: 30_000 });
    expect(site.warnings).toEqual([]);
    expect(site.totalLinks).toBe(20_005);
    expect(site.links[0]).toBe('https://example.com/m0');
    expect(site.links.at(-1)).toBe('https://example.com/m20004');
  });

  it('counts links past maxLinks without keeping them: exactly 65,536 past it, then as an estimate it says is one', async () => {
    const text = (count: number) =>
      Array.from({ length: count }, (_, i) => `https://example.com/p${i}\n`).join('');
    const big = { ...bounds, maxLinks: 10, maxFileBytes: 8 * MiB };
    routes = {
      '/robots.txt': xml('Sitemap: /exact.txt.gz\nSitemap: /again.txt', 'text/plain'),
      '/exact.txt.gz': raw(zlib.gzipSync(text(65_546)), 'application/gzip'),
      '/again.txt': xml(text(100), 'text/plain'),
    };
    expect(await discoverSitemap(allowed, `${base}/`, big)).toEqual({
      source: `${base}/exact.txt.gz`,
      totalLinks: 65_546,
      links: Array.from({ length: 10 }, (_, i) => `https://example.com/p${i}`),
      warnings: ['links truncated to the first 10 of 65546 (maxLinks)'],
    });
    routes['/exact.txt.gz'] = raw(zlib.gzipSync(text(150_000)), 'application/gzip');
    const estimated = await discoverSitemap(allowed, `${base}/`, big);
    expect(estimated.links).toHaveLength(10);
    expect(Math.abs(estimated.totalLinks - 150_000) / 150_000).toBeLessThan(0.02);
    expect(estimated.warnings).toEqual([
      `links truncated to the first 10 of about ${estimated.totalLinks} (maxLinks; past 65546 distinct links the total is estimated)`,
    ]);
  });

  it('stops at the deadline and returns what it found', async () => {
    // The deadline's timer is the test's: it passes once the discovery waits on the file that
    // never answers, which it asks for only after reading fast.xml and the index before it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const slowAsked = signal();
    routes = {
      '/robots.txt': xml('Sitemap: /fast.xml\nSitemap: /index.xml', 'text/plain'),
      '/fast.xml': xml(urlset(...pages('fast'))),
      '/index.xml': xml(index(`${base}/slow.xml`, `${base}/after.xml`)),
      '/slow.xml': () => slowAsked.resolve(), // never answers
      '/after.xml': xml(urlset(...pages('after'))),
    };
    const discovery = discoverSitemap(allowed, `${base}/`, { ...bounds, timeoutMs: 600 });
    await slowAsked.promise;
    vi.advanceTimersByTime(600);
    expect(await discovery).toEqual({
      source: `${base}/fast.xml`,
      totalLinks: 1,
      links: pages('fast'),
      warnings: ['sitemap discovery stopped at its deadline of 600 ms; what was found by then is returned'],
    });
  });

  it('ends the fetches still under way when it stops', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const slowAsked = signal();
    const hungUp = signal();
    routes = {
      '/robots.txt': xml('Sitemap: /slow.xml', 'text/plain'),
      '/slow.xml': (_req, res) => {
        res.on('close', () => hungUp.resolve()); // never answers
        slowAsked.resolve();
      },
    };
    const discovery = discoverSitemap(patient, `${base}/`, { ...bounds, timeoutMs: 300 });
    await slowAsked.promise;
    vi.advanceTimersByTime(300);
    await discovery;
    // The fetcher would wait ten minutes: the connection closes because the discovery ended it.
    await hungUp.promise;
  });

  it('rejects with the reason when its signal aborts, and ends its fetches', async () => {
    const hungUp = signal();
    const asked = signal();
    routes = {
      '/robots.txt': (_req, res) => {
        res.on('close', () => hungUp.resolve());
        asked.resolve();
      },
    };
    const stop = new AbortController();
    const discovery = discoverSitemap(patient, `${base}/`, bounds, { signal: stop.signal });
    await asked.promise;
    stop.abort(new Error('caller gone'));
    await expect(discovery).rejects.toThrow('caller gone');
    await hungUp.promise;
  });

  it('counts robots.txt against the deadline', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const robotsAsked = signal();
    routes = { '/robots.txt': () => robotsAsked.resolve() };
    const discovery = discoverSitemap(allowed, `${base}/`, { ...bounds, timeoutMs: 300 });
    await robotsAsked.promise;
    vi.advanceTimersByTime(300);
    expect(await discovery).toEqual({
      source: '',
      totalLinks: 0,
      links: [],
      warnings: [
        'sitemap discovery stopped at its deadline of 300 ms; what was found by then is returned',
        'no sitemap with links found',
      ],
    });
  });
});

describe('sitemap discovery: errors', () => {
  it('gives an empty sitemap and warnings when everything is a 404', async () => {
    expect(await discoverSitemap(allowed, `${base}/page`, bounds)).toEqual({
      source: '',
      totalLinks: 0,
      links: [],
      warnings: [
        `${base}/sitemap.xml: HTTP 404`,
        `${base}/sitemap_index.xml: HTTP 404`,
        'no sitemap with links found',
      ],
    });
  });

  it('takes no links from an HTML page answered with 200 at /sitemap.xml (a soft 404)', async () => {
    routes = {
      '/sitemap.xml': xml(
        `<!DOCTYPE html><html><body><a href="https://example.com/x">x</a>
<urlset><url><loc>https://example.com/y</loc></url></urlset></body></html>`,
        'text/html',
      ),
      '/sitemap_index.xml': xml('Not Found', 'text/plain'),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: '',
      totalLinks: 0,
      links: [],
      warnings: [
        `${base}/sitemap.xml: not a sitemap (an HTML page)`,
        `${base}/sitemap_index.xml: not a sitemap (neither XML nor lines of URLs)`,
        'no sitemap with links found',
      ],
    });
  });

  it('warns about server errors, failed connections, cut XML and entries that are not absolute http(s) URLs', async () => {
    routes = {
      '/robots.txt': xml(
        `Sitemap: /error.xml\nSitemap: http://127.0.0.1:${refusedPort}/down.xml\nSitemap: /cut.xml\nSitemap: /rss.xml`,
        'text/plain',
      ),
      '/error.xml': status(500),
      '/cut.xml': xml(
        '<urlset><url><loc>/relative</loc></url><url><loc>mailto:a@example.com</loc></url><url><loc>https://example.com/ok</loc></url><url><loc>https://exa',
      ),
      '/rss.xml': xml('<rss><channel><link>https://example.com/</link></channel></rss>'),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/cut.xml`,
      totalLinks: 1,
      links: pages('ok'),
      warnings: [
        `${base}/error.xml: HTTP 500`,
        `http://127.0.0.1:${refusedPort}/down.xml: could not be fetched (connection refused (ECONNREFUSED))`,
        `${base}/cut.xml: the XML is cut short or malformed; the entries before the break were read`,
        `${base}/cut.xml: 2 entries skipped (not an absolute http(s) URL)`,
        `${base}/rss.xml: not a sitemap (root element <rss>)`,
      ],
    });
  });

  it('returns a warning for a page URL that is not http(s)', async () => {
    expect(await discoverSitemap(allowed, 'ftp://example.com/', bounds)).toEqual({
      source: '',
      totalLinks: 0,
      links: [],
      warnings: ['no sitemap for a URL that is not http(s)'],
    });
  });

  it('rejects with the reason when the signal aborts, and at once when it already has', async () => {
    routes = { '/robots.txt': () => {} };
    const controller = new AbortController();
    const reason = new Error('caller went away');
    setTimeout(() => controller.abort(reason), 100);
    await expect(discoverSitemap(allowed, `${base}/`, bounds, { signal: controller.signal })).rejects.toBe(
      reason,
    );
    await expect(
      discoverSitemap(allowed, `${base}/`, bounds, { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
  });
});

describe('sitemap discovery: security', () => {
  it('skips sitemaps at refused addresses, directly or through a redirect, with a warning naming them', async () => {
    routes = {
      '/robots.txt': xml(
        [
          `Sitemap: http://127.0.0.1:${canary.port}/sitemap.xml`,
          'Sitemap: http://169.254.169.254/latest/sitemap.xml',
          'Sitemap: /redirect.xml',
          'Sitemap: /index.xml',
        ].join('\n'),
        'text/plain',
      ),
      '/redirect.xml': status(302, `http://[::ffff:127.0.0.1]:${canary.port}/s.xml`),
      '/index.xml': xml(index(`http://10.0.0.1/s.xml`, `${base}/ok.xml`)),
      '/ok.xml': xml(urlset(...pages('safe'))),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/index.xml`,
      totalLinks: 1,
      links: pages('safe'),
      warnings: [
        `http://127.0.0.1:${canary.port}/sitemap.xml: refused by the network policy (127.0.0.1 is allowed by WEBCAP_ALLOW_PRIVATE but not on port ${canary.port}; add 127.0.0.1/32:${canary.port})`,
        'http://169.254.169.254/latest/sitemap.xml: refused by the network policy (169.254.169.254 is a link-local address (cloud metadata services live here); allow it with WEBCAP_ALLOW_PRIVATE=169.254.169.254/32:80)',
        `${base}/redirect.xml: refused by the network policy (::ffff:7f00:1 is allowed by WEBCAP_ALLOW_PRIVATE but not on port ${canary.port}; add 127.0.0.1/32:${canary.port})`,
        'http://10.0.0.1/s.xml: refused by the network policy (10.0.0.1 is a private address (RFC 1918); allow it with WEBCAP_ALLOW_PRIVATE=10.0.0.1/32:80)',
      ],
    });
    expect(canary.connections()).toBe(0);
  });

  it('under the default policy a loopback site is refused file by file, without throwing', async () => {
    routes = { '/sitemap.xml': xml(urlset(...pages('never'))) };
    const refused = `(127.0.0.1 is a loopback address; allow it with WEBCAP_ALLOW_PRIVATE=127.0.0.1/32:${fixture.port})`;
    expect(await discoverSitemap(guarded, `${base}/`, bounds)).toEqual({
      source: '',
      totalLinks: 0,
      links: [],
      warnings: [
        `${base}/robots.txt: refused by the network policy ${refused}`,
        `${base}/sitemap.xml: refused by the network policy ${refused}`,
        `${base}/sitemap_index.xml: refused by the network policy ${refused}`,
        'no sitemap with links found',
      ],
    });
    expect(requests).toEqual([]);
  });

  it('does not expand entities declared in a DOCTYPE', async () => {
    const lol = Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('');
    routes = {
      '/sitemap.xml': xml(
        `<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY l0 "lol">${lol}]><urlset><url><loc>https://example.com/&l9;</loc></url></urlset>`,
      ),
    };
    expect(await discoverSitemap(allowed, `${base}/`, bounds)).toEqual({
      source: `${base}/sitemap.xml`,
      totalLinks: 1,
      links: ['https://example.com/&l9;'],
      warnings: [],
    });
  });
});
