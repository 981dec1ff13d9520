import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';
import { extractContent } from '../src/engines/content/extract.js';
import type { FixtureSite } from './fixture-site.js';
import { drive, quantile } from './load.js';
import type { Service } from './service.js';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/content/', import.meta.url));

/** Extraction alone (no rendering) on the content fixtures, against parsing them alone in the same run. */
export interface ExtractionTiming {
  readonly pages: number;
  readonly rounds: number;
  readonly htmlKb: { readonly min: number; readonly median: number; readonly max: number };
  /** linkedom's parse of the page: the floor every extraction pays. */
  readonly parseMedianMs: number;
  readonly parseP95Ms: number;
  /** Metadata, links, main content (use_defuddle) and Markdown, from one parse. */
  readonly extractMedianMs: number;
  readonly extractP95Ms: number;
  /** The same on the pages of 60 KB and more (real-world pages are 60-600 KB). */
  readonly largePages: number;
  readonly largeExtractMedianMs: number;
  readonly largeExtractP95Ms: number;
}

/**
 * Times extractContent on every fixture page, `rounds` times over, on this thread (an extractor
 * thread does the same work); the first round warms the JIT and is not counted.
 */
export function measureExtraction(rounds: number): ExtractionTiming {
  const pages = readdirSync(FIXTURES)
    .filter((name) => name.endsWith('.html'))
    .map((name) => readFileSync(path.join(FIXTURES, name), 'utf8'));
  const parse: number[] = [];
  const extract: number[] = [];
  const large: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    for (const [i, html] of pages.entries()) {
      const parseStarted = performance.now();
      parseHTML(html);
      const parsed = performance.now() - parseStarted;
      const started = performance.now();
      extractContent({
        html,
        pageUrl: `https://www.example.com/page/${i}`,
        scoped: false,
        includeHtml: true,
        includeMarkdown: true,
        useDefuddle: true,
        maxLinks: 5000,
      });
      const took = performance.now() - started;
      if (round > 0) {
        parse.push(parsed);
        extract.push(took);
        if (html.length >= 60 * 1024) large.push(took);
      }
    }
  }
  const kb = pages.map((html) => Buffer.byteLength(html) / 1024);
  return {
    pages: pages.length,
    rounds,
    htmlKb: { min: Math.min(...kb), median: quantile(kb, 0.5), max: Math.max(...kb) },
    parseMedianMs: quantile(parse, 0.5),
    parseP95Ms: quantile(parse, 0.95),
    extractMedianMs: quantile(extract, 0.5),
    extractP95Ms: quantile(extract, 0.95),
    largePages: kb.filter((size) => size >= 60).length,
    largeExtractMedianMs: quantile(large, 0.5),
    largeExtractP95Ms: quantile(large, 0.95),
  };
}

/** Content calls through HTTP at one concurrency, with /healthz probed meanwhile. */
export interface ContentHttpResult {
  readonly concurrency: number;
  readonly calls: number;
  readonly failures: number;
  readonly callsPerSecond: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** /healthz answered while the content calls ran, as the client saw it... */
  readonly healthP99Ms: number;
  readonly healthMaxMs: number;
  /** ...and less the time the service's main thread waited for a CPU meanwhile: its event loop's own delay. */
  readonly healthOwnP99Ms: number;
}

interface ContentTally {
  latenciesMs: number[];
  elapsedMs: number;
  failures: number;
  health: number[];
  own: number[];
}

/** `calls` content calls from `offset` on, with /healthz asked every 20 ms meanwhile, into `tally`. */
async function contentSlice(
  service: Service,
  site: FixtureSite,
  concurrency: number,
  calls: number,
  offset: number,
  tally: ContentTally,
): Promise<void> {
  let running = true;
  const prober = (async () => {
    while (running) {
      const waited = service.runQueueWaitMs();
      const started = performance.now();
      await service.get('/healthz');
      const took = performance.now() - started;
      tally.health.push(took);
      tally.own.push(took - (service.runQueueWaitMs() - waited));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const timing = await drive(concurrency, calls, contentCall(service, site), offset);
  running = false;
  await prober;
  tally.latenciesMs.push(...timing.latenciesMs);
  tally.elapsedMs += timing.elapsedMs;
  tally.failures += timing.failures;
}

/** GET /v1/content with include_markdown and use_defuddle of target `i`; throws unless 200. */
function contentCall(service: Service, site: FixtureSite) {
  return async (i: number) => {
    const query = new URLSearchParams({
      url: site.target(i).url,
      include_markdown: 'true',
      use_defuddle: 'true',
    });
    const { status, body } = await service.get(`/v1/content?${query}`);
    if (status !== 200) throw new Error(`content answered ${status}: ${body.toString().slice(0, 300)}`);
  };
}

/**
 * GET /v1/content with include_markdown and use_defuddle over the fixture site's targets, in a
 * closed loop of `concurrency` clients (as the capture rows), while another client asks /healthz
 * every 20 ms. With more than one service, the calls are cut in `slices` slices taken in turn,
 * the first service of a slice rotating (A B, B A...), each slice on the same targets for every
 * service: the machine's moments fall on each alike.
 */
export async function measureContentHttp(
  services: readonly Service[],
  site: FixtureSite,
  concurrency: number,
  calls: number,
  slices: number,
): Promise<ContentHttpResult[]> {
  for (const service of services) await drive(concurrency, concurrency, contentCall(service, site));
  const tallies = services.map(
    (): ContentTally => ({ latenciesMs: [], elapsedMs: 0, failures: 0, health: [], own: [] }),
  );
  const perSlice = Math.ceil(calls / slices);
  for (let slice = 0; slice < slices; slice++) {
    const offset = concurrency + slice * perSlice;
    for (let k = 0; k < services.length; k++) {
      const index = (slice + k) % services.length;
      await contentSlice(
        services[index] as Service,
        site,
        concurrency,
        perSlice,
        offset,
        tallies[index] as ContentTally,
      );
    }
  }
  return tallies.map((tally) => ({
    concurrency,
    calls: perSlice * slices,
    failures: tally.failures,
    callsPerSecond: (tally.latenciesMs.length * 1000) / tally.elapsedMs,
    p50Ms: quantile(tally.latenciesMs, 0.5),
    p95Ms: quantile(tally.latenciesMs, 0.95),
    healthP99Ms: quantile(tally.health, 0.99),
    healthMaxMs: Math.max(...tally.health),
    healthOwnP99Ms: quantile(tally.own, 0.99),
  }));
}
