import { gzipSync } from 'node:zlib';
import { startServer, type TestServer, tableResolver } from './net-fixtures.js';

/*
 * The site the crawl tests crawl, served by one loopback server under several host names (the
 * resolver sends each to 127.0.0.1; the server routes by Host): 300+ pages on site.test with
 * robots.txt, nested and gzipped sitemaps, cycles, redirects, 404s and a calendar that never
 * ends, pages of coloured blocks to screenshot; a subdomain, an external site and a host that
 * never answers. It counts every request by host and path, so that a test can say no page was
 * fetched twice.
 */

export const HOSTS = ['site.test', 'docs.site.test', 'other.test', 'hang.test'] as const;
export const DOCS = 200;
export const BLOG = 100;
export const ORPHANS = 20;
/**
 * The colour of each /swatches/N page's block (300 × 1500 CSS pixels at its top left, on white):
 * what a screenshot of it shows.
 */
export const SWATCHES = [
  [220, 30, 30],
  [30, 160, 60],
  [40, 70, 200],
] as const;

export interface CrawlSite {
  readonly port: number;
  /** `http://<host>:<port>` */
  origin(host?: (typeof HOSTS)[number] | '127.0.0.1'): string;
  /** Requests by `host/path?query`, robots.txt and favicon.ico included. */
  readonly hits: Map<string, number>;
  /** Every request in the order it came: `host/path?query`, when (Date.now()), and its X-Secret and Cookie headers. */
  readonly log: {
    readonly key: string;
    readonly at: number;
    readonly secret?: string;
    readonly cookie?: string;
  }[];
  /** Requests of pages (not robots.txt, sitemaps or favicon.ico), by `host/path?query`. */
  pageHits(): Map<string, number>;
  /** Whether robots.txt names webcap's group with this Crawl-delay (seconds); null: no group of its own. */
  crawlDelaySeconds: number | null;
  /** How long each page of site.test takes to answer (0: at once): pages in flight when a worker dies. */
  slowMs: number;
  /** Whether /pair/held has been asked for; it answers 500 only when `releaseHeld()` is called. */
  heldAsked(): boolean;
  releaseHeld(): void;
  readonly resolver: ReturnType<typeof tableResolver>;
  close(): Promise<void>;
}

const html = (title: string, links: readonly string[], body = '') =>
  `<!doctype html><html><head><title>${title}</title><meta name="description" content="About ${title}"></head><body><h1>${title}</h1><p>This is ${title}, a page of the test site.</p>${body}<ul>${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')}</ul></body></html>`;

const urlset = (locs: readonly string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;

const index = (locs: readonly string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}</sitemapindex>`;

/** What site.test links from its home page. */
export function homeLinks(origin: (host?: (typeof HOSTS)[number]) => string): string[] {
  return [
    '/docs/0',
    '/docs/0?utm_source=home#top',
    '/blog/0',
    '/cal/2026/1',
    '/private/secret',
    '/missing',
    '/stall',
    '/moved',
    '/away',
    `${origin('docs.site.test')}/`,
    `${origin('other.test')}/`,
    `${origin('hang.test')}/`,
    'mailto:someone@site.test',
  ];
}

/** Whether a request key (`host/path?query`) asked for a page, not robots.txt, a sitemap or the favicon. */
export function isPage(key: string): boolean {
  return !/\/(robots\.txt|favicon\.ico|sitemap_index\.xml|sitemaps\/.*)$/.test(key);
}

export async function startCrawlSite(): Promise<CrawlSite> {
  const hits = new Map<string, number>();
  const log: { key: string; at: number; secret?: string; cookie?: string }[] = [];
  let port = 0;
  const origin = (host: (typeof HOSTS)[number] | '127.0.0.1' = 'site.test') => `http://${host}:${port}`;
  const site = {
    crawlDelaySeconds: null as number | null,
    slowMs: 0,
  };
  const held: { release?: () => void; asked: boolean; released: boolean } = { asked: false, released: false };
  const server: TestServer = await startServer((req, res) => {
    // Any other name (127.0.0.1, for processes that resolve for real) is site.test.
    const named = (req.headers.host ?? '').replace(/:\d+$/, '');
    const host = (HOSTS as readonly string[]).includes(named) ? named : 'site.test';
    const url = new URL(req.url ?? '/', 'http://x');
    const key = `${host}${url.pathname}${url.search}`;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    const secret = req.headers['x-secret'];
    log.push({
      key,
      at: Date.now(),
      secret: typeof secret === 'string' ? secret : undefined,
      cookie: req.headers.cookie,
    });
    const page = (title: string, links: readonly string[]) => {
      const send = () =>
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(title, links));
      if (site.slowMs > 0 && host === 'site.test') setTimeout(send, site.slowMs);
      else send();
    };
    const xml = (body: string | Buffer, gzip = false) =>
      res
        .writeHead(200, { 'content-type': gzip ? 'application/gzip' : 'application/xml' })
        .end(gzip ? gzipSync(body) : body);
    const path = url.pathname;
    if (host === 'hang.test') return; // never answers
    if (path === '/favicon.ico') return res.writeHead(404).end();
    if (host === 'other.test') return page('Other site', ['/elsewhere']);
    if (host === 'docs.site.test') {
      if (path === '/robots.txt') return res.writeHead(404).end();
      const m = /^\/guide\/(\d+)$/.exec(path);
      if (path === '/') return page('Guide home', ['/guide/0', `${origin()}/`]);
      if (m !== null && Number(m[1]) < 5) return page(`Guide ${m[1]}`, [`/guide/${Number(m[1]) + 1}`]);
      return res.writeHead(404, { 'content-type': 'text/html' }).end(html('Not found', []));
    }
    if (path === '/robots.txt') {
      const own =
        site.crawlDelaySeconds === null
          ? ''
          : `User-agent: webcap\nCrawl-delay: ${site.crawlDelaySeconds}\nDisallow: /private\n\n`;
      return res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`${own}User-agent: *\nDisallow: /private\n\nSitemap: ${origin()}/sitemap_index.xml\n`);
    }
    if (path === '/sitemap_index.xml') {
      return xml(index([`${origin()}/sitemaps/docs.xml.gz`, `${origin()}/sitemaps/more.xml`]));
    }
    if (path === '/sitemaps/docs.xml.gz') {
      return xml(urlset(Array.from({ length: 10 }, (_, i) => `${origin()}/docs/${i}`)), true);
    }
    if (path === '/sitemaps/more.xml') {
      return xml(urlset(Array.from({ length: ORPHANS }, (_, i) => `${origin()}/orphans/${i}`)));
    }
    if (path === '/') return page('Home', homeLinks(origin));
    if (path === '/stall') return; // a page that never answers
    if (path === '/pair') return page('Pair', ['/pair/held', '/pair/next']);
    if (path === '/pair/next') return page('Next', []);
    if (path === '/pair/held') {
      const fail = () => res.writeHead(500, { 'content-type': 'text/html' }).end(html('Failed', []));
      held.asked = true;
      if (held.released) return fail();
      held.release = fail;
      return;
    }
    if (path === '/moved') return res.writeHead(302, { location: '/docs/1' }).end();
    if (path === '/away') return res.writeHead(302, { location: `${origin('other.test')}/landing` }).end();
    const docs = /^\/docs\/(\d+)$/.exec(path);
    if (docs !== null && Number(docs[1]) < DOCS) {
      const n = Number(docs[1]);
      return page(`Doc ${n}`, [
        `/docs/${(n + 1) % DOCS}`,
        `/docs/${(n * 7) % DOCS}`,
        '/',
        `/docs/${n}#section`,
      ]);
    }
    const blog = /^\/blog\/(\d+)$/.exec(path);
    if (blog !== null && Number(blog[1]) < BLOG) {
      const n = Number(blog[1]);
      return page(`Post ${n}`, [`/blog/${n + 1}`, `/docs/${n}`, `/blog/${n}?sessionid=abc${n}`]);
    }
    const swatch = /^\/swatches\/(\d+)$/.exec(path);
    const colour = swatch === null ? undefined : SWATCHES[Number(swatch[1])];
    if (colour !== undefined) {
      const n = Number(swatch?.[1]);
      const block = `<div style="position:absolute;left:0;top:0;width:300px;height:1500px;background:rgb(${colour.join(',')})"></div>`;
      const links = [1, 2].map((step) => `/swatches/${(n + step) % SWATCHES.length}`);
      return res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(html(`Swatch ${n}`, links, block));
    }
    const orphan = /^\/orphans\/(\d+)$/.exec(path);
    if (orphan !== null && Number(orphan[1]) < ORPHANS) return page(`Orphan ${orphan[1]}`, []);
    const cal = /^\/cal\/(\d+)\/(\d+)$/.exec(path);
    if (cal !== null) {
      const [y, m] = [Number(cal[1]), Number(cal[2])];
      const next = m === 12 ? `/cal/${y + 1}/1` : `/cal/${y}/${m + 1}`;
      return page(`Calendar ${y}-${m}`, [next]);
    }
    res.writeHead(404, { 'content-type': 'text/html' }).end(html('Not found', ['/']));
  });
  port = server.port;
  const resolver = tableResolver(Object.fromEntries(HOSTS.map((host) => [host, ['127.0.0.1']])));
  return Object.assign(site, {
    port,
    origin,
    hits,
    log,
    resolver,
    pageHits: () => new Map([...hits].filter(([key]) => isPage(key))),
    heldAsked: () => held.asked,
    releaseHeld: () => {
      held.released = true;
      held.release?.();
    },
    close: () => server.close(),
  });
}
