import type http from 'node:http';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * Hostile sites against /v1/crawl and /v1/map (issue 34): a page of 100,000 links, sitemaps of
 * 100,000 URLs, a gzip bomb beside an index of thousands of nested sitemaps, a redirect loop.
 * Each is bounded, answered, and never stalls the service: the runtime runs in this process, so
 * the event loop's delay measured here is the service's own.
 */

type Route = (res: http.ServerResponse) => void;

const html = (body: string) =>
  `<!doctype html><html><head><title>t</title></head><body><p>A page of the hostile site.</p>${body}</body></html>`;
const links = (hrefs: readonly string[]) => html(hrefs.map((href) => `<a href="${href}">x</a>`).join(''));
const urlset = (locs: readonly string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;
const sitemapIndex = (locs: readonly string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}</sitemapindex>`;

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

const SITEMAP_MAX_FILES = 50;
const SITEMAP_MAX_FILE_BYTES = 1024 * 1024;
/** The sitemap URLs of many.test: twice SITEMAP_MAX_LINKS' default. */
const MANY_URLS = 100_000;
const MANY_FILES = 20;
/** Child sitemaps the bomb's index lists; the odd ones are indexes of as many again. */
const BOMB_CHILDREN = 5000;
/**
 * The longest the event loop may be held, in ms: generous, since a loaded 2-core machine delays
 * a timer by tens of ms at times whatever the code does; normalizing the links of a 100,000-URL
 * sitemap in one go held it for seconds there.
 */
const LOOP_DELAY_MAX_MS = 1000;

interface CrawlRecordJson {
  status: string;
  counts: { discovered: number; completed: number; failed: number; skipped: number; running: number };
  pages: { url: string; status: string; status_code: number | null; error?: string }[];
  next: string | null;
  cursor: string | null;
}

describe('crawl and map: hostile sites', () => {
  let server: TestServer;
  let t: TestRuntime;
  let key: string;
  /** Requests by `host/path`. */
  const hits = new Map<string, number>();
  const at = (host: string, path: string) => `http://${host}:${server.port}${path}`;
  /** Requests of `host` whose path passes `test`, summed. */
  const hitsOf = (host: string, test: (path: string) => boolean) =>
    [...hits]
      .filter(([hit]) => hit.startsWith(`${host}/`) && test(hit.slice(host.length)))
      .reduce((sum, [, count]) => sum + count, 0);

  // A list, as sites list links: 100,000 anchors on one line are another hostile page, one
  // Chromium never finishes laying out (it fails at NAVIGATION_TIMEOUT_MS).
  const bigPage = html(
    `<ul>${Array.from({ length: MANY_URLS }, (_, i) => `<li><a href="/p/${i}">Page ${i}</a></li>`).join('')}</ul>`,
  );
  /** many.test's sitemap files, gzipped, made once the port is known. */
  let manyFiles: Buffer[] = [];
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });

  function route(host: string, path: string): Route | undefined {
    const small: Route = (res) => send(res, 200, 'text/html', html(''));
    if (path === '/favicon.ico') return undefined;
    if (host === 'links.test') {
      if (path === '/') return (res) => send(res, 200, 'text/html', bigPage);
      if (/^\/p\/\d+$/.test(path)) return small;
    }
    if (host === 'loop.test') {
      if (path === '/') return (res) => send(res, 200, 'text/html', links(['/loop-a']));
      if (path === '/loop-a' || path === '/loop-b') {
        const to = path === '/loop-a' ? '/loop-b' : '/loop-a';
        return (res) => res.writeHead(302, { location: to }).end();
      }
    }
    if (host === 'many.test') {
      if (path === '/') return small;
      if (path === '/sitemap_index.xml') {
        const files = Array.from({ length: MANY_FILES }, (_, i) => at('many.test', `/sitemaps/${i}.xml.gz`));
        return (res) => send(res, 200, 'application/xml', sitemapIndex(files));
      }
      const file = /^\/sitemaps\/(\d+)\.xml\.gz$/.exec(path);
      if (file !== null) {
        const body = manyFiles[Number(file[1])] as Buffer;
        return (res) => send(res, 200, 'application/gzip', body);
      }
      if (/^\/page\/\d+$/.test(path)) return small;
    }
    if (host === 'bomb.test') {
      if (path === '/') return (res) => send(res, 200, 'text/html', links(['/one']));
      if (path === '/one' || /^\/page\/\d+$/.test(path)) return small;
      if (path === '/robots.txt')
        return (res) => send(res, 200, 'text/plain', `User-agent: *\nSitemap: /sitemap_index.xml\n`);
      if (path === '/sitemap_index.xml') {
        const children = Array.from({ length: BOMB_CHILDREN }, (_, i) => at('bomb.test', `/s/${i}.xml`));
        return (res) =>
          send(res, 200, 'application/xml', sitemapIndex([at('bomb.test', '/bomb.xml.gz'), ...children]));
      }
      if (path === '/bomb.xml.gz') return (res) => send(res, 200, 'application/gzip', bomb);
      const child = /^\/s\/(\d+)(?:-\d+)?\.xml$/.exec(path);
      if (child !== null) {
        const n = Number(child[1]);
        // Odd children nest: an index of as many sitemaps again.
        const body =
          n % 2 === 1 && !path.includes('-')
            ? sitemapIndex(
                Array.from({ length: BOMB_CHILDREN }, (_, i) => at('bomb.test', `/s/${n}-${i}.xml`)),
              )
            : urlset([at('bomb.test', `/page/${n}`)]);
        return (res) => send(res, 200, 'application/xml', body);
      }
    }
    return undefined;
  }

  beforeAll(async () => {
    server = await startServer((req, res) => {
      const host = (req.headers.host ?? '').split(':')[0] ?? '';
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      hits.set(`${host}${path}`, (hits.get(`${host}${path}`) ?? 0) + 1);
      const answer = route(host, path);
      if (answer === undefined) return send(res, 404, 'text/html', html('not found'));
      answer(res);
    });
    const perFile = MANY_URLS / MANY_FILES;
    manyFiles = Array.from({ length: MANY_FILES }, (_, file) =>
      gzipSync(
        urlset(Array.from({ length: perFile }, (_, i) => at('many.test', `/page/${file * perFile + i}`))),
      ),
    );
    const hosts = ['links.test', 'loop.test', 'many.test', 'bomb.test'];
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${server.port}`,
        BROWSER_CONCURRENCY: '2',
        JOB_CONCURRENCY: '4',
        SITEMAP_MAX_FILES: String(SITEMAP_MAX_FILES),
        SITEMAP_MAX_FILE_BYTES: String(SITEMAP_MAX_FILE_BYTES),
        // Bounds a hang only: the fixtures answer in milliseconds.
        SITEMAP_TIMEOUT_MS: '120000',
        // Bound a hang only: loading and extracting the 100,000-link page took over 30 s on a
        // loaded machine.
        NAVIGATION_TIMEOUT_MS: '120000',
        RENDER_TIMEOUT_MS: '240000',
        CONTENT_EXTRACT_TIMEOUT_MS: '240000',
        JOB_TIMEOUT_MS: '280000',
      },
      resolver: tableResolver(Object.fromEntries(hosts.map((host) => [host, ['127.0.0.1']] as const))),
    });
    key = await newAccountKey(t, 'hostile', 100_000);
  });

  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  async function start(body: object): Promise<string> {
    const res = await t.runtime.app.inject({
      method: 'POST',
      url: '/v1/crawl',
      headers: { 'x-api-key': key },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(202);
    return (res.json() as { crawl_id: string }).crawl_id;
  }

  async function read(id: string, cursor?: string): Promise<CrawlRecordJson> {
    const res = await t.runtime.app.inject({
      url: `/v1/crawl/${id}?limit=100${cursor === undefined ? '' : `&cursor=${cursor}`}`,
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as CrawlRecordJson;
  }

  /** Polls until `done` holds of the crawl's record; a hang fails at HANG_MS. */
  async function until(id: string, done: (record: CrawlRecordJson) => boolean): Promise<CrawlRecordJson> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const record = await read(id);
      if (done(record)) return record;
      if (Date.now() > deadline) throw new Error(`crawl ${id} still ${record.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const ended = (id: string) =>
    until(id, (record) => !['queued', 'running'].includes(record.status) && record.counts.running === 0);

  async function allPages(id: string): Promise<CrawlRecordJson['pages']> {
    const pages: CrawlRecordJson['pages'] = [];
    let cursor: string | undefined;
    for (;;) {
      const record = await read(id, cursor);
      pages.push(...record.pages);
      if (record.next === null || record.pages.length === 0) return pages;
      cursor = record.cursor ?? undefined;
    }
  }

  /** Runs `work` with the event loop's delay recorded (10 ms resolution); answers its result and the longest delay, in ms. */
  async function watchingTheLoop<T>(work: () => Promise<T>): Promise<{ result: T; maxDelayMs: number }> {
    const delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    try {
      const result = await work();
      return { result, maxDelayMs: delay.max / 1e6 };
    } finally {
      delay.disable();
    }
  }

  it('a start page of 100,000 links: the frontier takes what the limit allows, the loop is never held', async () => {
    const { result: record, maxDelayMs } = await watchingTheLoop(async () => {
      const id = await start({ url: at('links.test', '/'), limit: 25, max_depth: 1, sitemap: 'skip' });
      return ended(id);
    });
    expect(record.status).toBe('completed');
    expect(record.counts.discovered, JSON.stringify(record.pages[0])).toBe(25);
    expect(record.counts.completed).toBe(25);
    // The start page and the first 24 of its links, each once.
    expect(hitsOf('links.test', (path) => path.startsWith('/p/'))).toBe(24);
    expect(hits.get('links.test/')).toBe(1);
    expect(maxDelayMs, `event-loop delay ${maxDelayMs.toFixed(0)} ms`).toBeLessThan(LOOP_DELAY_MAX_MS);
  });

  it('sitemaps of 100,000 URLs: the frontier stops at the limit, the loop is never held', async () => {
    const limit = 10_000;
    const { result, maxDelayMs } = await watchingTheLoop(async () => {
      const id = await start({ url: at('many.test', '/'), limit, sitemap: 'only', max_concurrency: 1 });
      return { id, full: await until(id, (record) => record.counts.discovered >= limit) };
    });
    expect(result.full.counts.discovered).toBe(limit);
    expect(hitsOf('many.test', (path) => path.startsWith('/sitemaps/'))).toBe(MANY_FILES);
    expect(maxDelayMs, `event-loop delay ${maxDelayMs.toFixed(0)} ms`).toBeLessThan(LOOP_DELAY_MAX_MS);
    // Ten thousand pages are not the point: the frontier is. Cancelling them ends every unstarted
    // one, a thousand per transaction, with the loop let go between.
    const cancelled = await watchingTheLoop(() =>
      t.runtime.app.inject({
        method: 'DELETE',
        url: `/v1/crawl/${result.id}`,
        headers: { 'x-api-key': key },
      }),
    );
    expect(cancelled.result.statusCode).toBe(200);
    expect(cancelled.maxDelayMs, `event-loop delay ${cancelled.maxDelayMs.toFixed(0)} ms`).toBeLessThan(
      LOOP_DELAY_MAX_MS,
    );
    const last = await ended(result.id);
    expect(last.status).toBe('cancelled');
    expect(last.counts.discovered).toBe(limit);
    const unstarted = await t.runtime.store.db
      .selectFrom('crawl_pages')
      .select('id')
      .where('crawl_id', '=', result.id)
      .where('state', 'in', ['pending', 'queued'])
      .execute();
    expect(unstarted).toEqual([]);
  });

  it('a sitemap bomb beside an index of thousands of nested sitemaps, in a crawl: bounded, and it ends', async () => {
    const before = hitsOf('bomb.test', (path) => path.startsWith('/s/') || path.endsWith('.gz'));
    const { result: record, maxDelayMs } = await watchingTheLoop(async () => {
      const id = await start({ url: at('bomb.test', '/'), limit: 10, sitemap: 'include' });
      return ended(id);
    });
    expect(record.status).toBe('completed');
    expect(record.counts.discovered).toBeLessThanOrEqual(10);
    expect(record.counts.completed).toBe(record.counts.discovered);
    // The index itself, the bomb and 48 children: SITEMAP_MAX_FILES in all, whatever they list.
    expect(hitsOf('bomb.test', (path) => path.startsWith('/s/') || path.endsWith('.gz')) - before).toBe(
      SITEMAP_MAX_FILES - 1,
    );
    expect(hits.get('bomb.test/bomb.xml.gz')).toBe(1);
    expect(maxDelayMs, `event-loop delay ${maxDelayMs.toFixed(0)} ms`).toBeLessThan(LOOP_DELAY_MAX_MS);
  });

  it('the same site mapped: answered within the bounds, with warnings saying which', async () => {
    const before = hitsOf('bomb.test', (path) => path.startsWith('/s/') || path.endsWith('.gz'));
    const { result: res, maxDelayMs } = await watchingTheLoop(() =>
      t.runtime.app.inject({
        method: 'POST',
        url: '/v1/map',
        headers: { 'x-api-key': key },
        payload: { url: at('bomb.test', '/') },
      }),
    );
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const body = res.json() as { links: { url: string }[]; total: number; warnings: string[] };
    // The start page, its link, and the one page of each urlset among the 48 children read.
    expect(body.links.slice(0, 2)).toEqual([{ url: at('bomb.test', '/') }, { url: at('bomb.test', '/one') }]);
    expect(body.total).toBe(2 + 24);
    expect(body.warnings).toEqual(
      expect.arrayContaining([
        `${at('bomb.test', '/bomb.xml.gz')}: larger than ${SITEMAP_MAX_FILE_BYTES} bytes once decompressed`,
        expect.stringMatching(
          new RegExp(
            `^stopped at ${SITEMAP_MAX_FILES} sitemap files \\(maxFiles\\); \\d+ more listed were not read$`,
          ),
        ),
      ]),
    );
    expect(hitsOf('bomb.test', (path) => path.startsWith('/s/') || path.endsWith('.gz')) - before).toBe(
      SITEMAP_MAX_FILES - 1,
    );
    expect(maxDelayMs, `event-loop delay ${maxDelayMs.toFixed(0)} ms`).toBeLessThan(LOOP_DELAY_MAX_MS);
  });

  it('a redirect loop (A → B → A) inside a crawl: each page fetched once, and the crawl ends', async () => {
    const id = await start({ url: at('loop.test', '/'), limit: 20, max_depth: 10, sitemap: 'skip' });
    const record = await ended(id);
    expect(record.status).toBe('completed');
    const pages = await allPages(id);
    expect(pages.map((page) => [page.url, page.status, page.status_code]).sort()).toEqual([
      [at('loop.test', '/'), 'completed', 200],
      [at('loop.test', '/loop-a'), 'skipped', 302],
      [at('loop.test', '/loop-b'), 'skipped', 302],
    ]);
    expect(hits.get('loop.test/loop-a')).toBe(1);
    expect(hits.get('loop.test/loop-b')).toBe(1);
  });
});
