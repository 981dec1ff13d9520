import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { drive, quantile } from './load.js';
import { type Service, startService } from './service.js';

/** A crawl against the same pages fetched by /v1/content calls in a loop, in one run. */
export interface CrawlBenchResult {
  readonly pages: number;
  readonly concurrency: number;
  /** Each round's pages per minute; crawl and content loop alternate, round by round. */
  readonly crawlPagesPerMinute: readonly number[];
  /** Empty when the content loop was skipped (--crawl-content=0, a run for memory alone). */
  readonly contentPagesPerMinute: readonly number[];
  /** Median crawl over median content loop (issue 34's target: at least 0.9); null without the loop. */
  readonly ratio: number | null;
  /** The service process's resident memory before the first round and after the last (it is also the worker). */
  readonly serviceRssBeforeMb: number;
  readonly serviceRssAfterMb: number;
  /** Its resident memory at the end of each crawl, and the most seen while the crawls ran (sampled as they are polled). */
  readonly serviceRssAfterCrawlMb: readonly number[];
  readonly serviceRssPeakMb: number;
  /** The extractor processes' resident memory (summed) before the first round and after the last. */
  readonly extractorRssBeforeMb: number;
  readonly extractorRssAfterMb: number;
}

/** Page n links 3n+1 to 3n+3: a ternary tree, so the frontier is wide within a few levels. */
function pageHtml(n: number, pages: number): string {
  const links = [1, 2, 3].map((k) => 3 * n + k).filter((m) => m < pages);
  const text = 'A sentence of the bench site, long enough to be the page. '.repeat(40);
  const items = links.map((m) => `<li><a href="/p/${m}">Page ${m}</a></li>`).join('');
  return `<!doctype html><html><head><title>Page ${n}</title></head><body><main><h1>Page ${n}</h1><p>${text}</p><ul>${items}</ul></main></body></html>`;
}

async function startSite(pages: number): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const match = /^\/p\/(\d+)$/.exec(req.url ?? '');
    if (match === null || Number(match[1]) >= pages) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(Number(match[1]), pages));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function json(
  service: Service,
  method: string,
  route: string,
  body?: object,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${service.baseUrl}${route}`, {
    method,
    headers: {
      'x-api-key': service.key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300)
    throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** One crawl of the site; its pages per minute, from the 202 to the record saying it has ended. */
async function crawlOnce(
  service: Service,
  origin: string,
  pages: number,
  concurrency: number,
  memory: { peakBytes: number },
): Promise<number> {
  const started = performance.now();
  const accepted = await json(service, 'POST', '/v1/crawl', {
    url: `${origin}/p/0`,
    limit: pages,
    max_depth: 100,
    max_concurrency: concurrency,
    sitemap: 'skip',
    formats: ['markdown'],
  });
  for (;;) {
    const record = await json(service, 'GET', `/v1/crawl/${accepted.crawl_id}?limit=1`);
    memory.peakBytes = Math.max(memory.peakBytes, service.rssBytes());
    const counts = record.counts as { completed: number; failed: number; running: number };
    if (!['queued', 'running'].includes(String(record.status)) && counts.running === 0) {
      if (counts.completed !== pages)
        throw new Error(`the crawl completed ${counts.completed} of ${pages} pages`);
      return (pages * 60_000) / (performance.now() - started);
    }
    await new Promise((resolve) => setTimeout(resolve, pages > 500 ? 1000 : 100));
  }
}

/** The same pages by GET /v1/content (include_markdown), `concurrency` calls at a time. */
async function contentOnce(
  service: Service,
  origin: string,
  pages: number,
  concurrency: number,
): Promise<number> {
  const timing = await drive(concurrency, pages, async (i) => {
    const query = new URLSearchParams({ url: `${origin}/p/${i}`, include_markdown: 'true' });
    const { status, body } = await service.get(`/v1/content?${query}`);
    if (status !== 200) throw new Error(`content answered ${status}: ${body.toString().slice(0, 300)}`);
  });
  if (timing.failures > 0) throw new Error(`${timing.failures} content calls failed`);
  return (pages * 60_000) / timing.elapsedMs;
}

/**
 * The crawl row (issue 34): a crawl of `pages` pages at `concurrency`, against /v1/content over the
 * same URLs at the same concurrency, alternating for `rounds` rounds on one service (its default
 * browser concurrency, the in-process queue); and the memory of the service and its extractor
 * processes before, during and after. With `content` false only the crawls run: a long crawl
 * measured for its memory.
 */
export async function measureCrawl(
  options: {
    readonly pages: number;
    readonly concurrency: number;
    readonly rounds: number;
    readonly content: boolean;
  },
  work: { readonly dataDir: string; readonly logFile: string; readonly chromiumPath: string | undefined },
): Promise<CrawlBenchResult> {
  const site = await startSite(options.pages);
  const port = new URL(site.origin).port;
  const service = await startService({
    browserConcurrency: null,
    clients: options.concurrency,
    allowPrivate: `127.0.0.1/32:${port}`,
    dataDir: path.join(work.dataDir, 'crawl'),
    logFile: work.logFile,
    chromiumPath: work.chromiumPath,
    env: { JOB_CONCURRENCY: String(options.concurrency), CRAWL_MAX_PAGES: String(options.pages) },
  });
  try {
    // Warm the browser and the extractors as the first call of any row does.
    await contentOnce(service, site.origin, Math.min(options.pages, 4), options.concurrency);
    const rssBefore = service.rssBytes();
    const extractorsBefore = await service.extractorRssBytes();
    const memory = { peakBytes: rssBefore };
    const crawl: number[] = [];
    const content: number[] = [];
    const afterCrawl: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      crawl.push(await crawlOnce(service, site.origin, options.pages, options.concurrency, memory));
      afterCrawl.push(service.rssBytes() / 1_048_576);
      if (options.content)
        content.push(await contentOnce(service, site.origin, options.pages, options.concurrency));
    }
    const rssAfter = service.rssBytes();
    return {
      pages: options.pages,
      concurrency: options.concurrency,
      crawlPagesPerMinute: crawl,
      contentPagesPerMinute: content,
      ratio: options.content ? quantile(crawl, 0.5) / quantile(content, 0.5) : null,
      serviceRssBeforeMb: rssBefore / 1_048_576,
      serviceRssAfterMb: rssAfter / 1_048_576,
      serviceRssAfterCrawlMb: afterCrawl,
      serviceRssPeakMb: memory.peakBytes / 1_048_576,
      extractorRssBeforeMb: extractorsBefore / 1_048_576,
      extractorRssAfterMb: (await service.extractorRssBytes()) / 1_048_576,
    };
  } finally {
    await service.close();
    await site.close();
  }
}
