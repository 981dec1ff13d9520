import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { type AnalysisQuality, formatAnalysisQuality, measureAnalysisQuality } from './analysis-quality.js';
import { directArgs } from './baselines.js';
import { type CacheHitResult, measureCacheHits } from './cache-hits.js';
import { type ContentHttpResult, measureContentHttp, measureExtraction } from './content.js';
import { type DevSetResult, formatDevSet, measureDevSet } from './content-dev-quality.js';
import { compareRendered, formatRendered, type RenderedComparison } from './content-dev-rendered.js';
import { type CrawlBenchResult, measureCrawl } from './crawl.js';
import { type ExtractQuality, formatExtractQuality, measureExtractQuality } from './extract-quality.js';
import { startFixtureSite } from './fixture-site.js';
import { baselineSubject, type Level, measureLevel, type Subject, serviceSubject } from './modes.js';
import { checkTargets, formatTable, type Mode, type Row, ratios } from './report.js';
import type { Service } from './service.js';

/*
 * `npm run bench`: the capture service through its HTTP API against two baselines measured in
 * the same run on the same Chromium, in interleaved rounds (docs/performance.md says what and
 * how). Options:
 *   --quick            a third of the shots in 2 rounds and a 3 s cache-hit run, to try the bench out
 *   --levels=1,2,4     client concurrency levels
 *   --browser-concurrency=level|default|N
 *                      the service's BROWSER_CONCURRENCY: the client concurrency of each level
 *                      (default: as many renders at once as the floor has pages), the service's
 *                      own default (2), or a number
 *   --rounds=N         rounds per level (default 4)
 *   --modes=floor,naive,service
 *   --cache-seconds=N  length of the measured cache-hit run (default 10; 0 skips it)
 *   --content-calls=N  content calls through HTTP at the last level (default 40; 0 skips them)
 *   --crawl-pages=N    a crawl of N pages against /v1/content on them, at the last level (default 200; 0 skips)
 *   --crawl-rounds=N   crawl and content loop alternations (default 2)
 *   --crawl-content=0  crawls only, no content loop (and no ratio): a long crawl measured for its memory
 *   --only=crawl       the crawl row alone: no capture levels, extraction or development set
 *                      (`--only=crawl --crawl-pages=2000 --crawl-rounds=1 --crawl-content=0`: issue 34's
 *                      memory over a crawl of 2,000 pages)
 *   --only=content-quality
 *                      the main-content rows alone: both halves of the development set and the
 *                      readability set, each with its bootstrap interval; no service, no browser
 *   --only=extract     the schema extractor's quality row alone (extract-quality.ts): field precision and
 *                      recall on its fixture set, no service, no browser
 *   --only=analysis    the built-in analyzer's quality row alone (analysis-quality.ts): precision and recall
 *                      of categories and audience on its labelled set, per half, no service, no browser
 *   --extraction-rounds=N
 *                      rounds of extraction over the content fixtures, without rendering (default 5)
 *   --dev-set=0        skips the main-content row on the development set (../shared/eval/trafilatura/)
 *   --rendered-pages=N pages of that set compared through the service, rendered (default 100; 0 skips)
 */

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv: readonly string[]) {
  const option = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
  const quick = argv.includes('--quick');
  const crawlOnly = option('only') === 'crawl';
  const extractOnly = option('only') === 'extract';
  const analysisOnly = option('only') === 'analysis';
  const contentQualityOnly = option('only') === 'content-quality';
  const concurrencies = (option('levels') ?? '1,2,4').split(',').map(Number);
  const rounds = Number(option('rounds') ?? (quick ? 2 : 4));
  const shotsAt = (c: number) => (c === 1 ? 36 : 60);
  const levels: Level[] = concurrencies.map((c) => ({
    concurrency: c,
    shots: quick ? Math.ceil(shotsAt(c) / 3) : shotsAt(c),
    rounds,
  }));
  const modes = (option('modes') ?? 'floor,naive,service').split(',') as Mode[];
  const browser = option('browser-concurrency') ?? 'level';
  const browserConcurrency: number | null | 'level' =
    browser === 'default' ? null : browser === 'level' ? 'level' : Number(browser);
  const cacheSeconds = Number(option('cache-seconds') ?? (quick ? 3 : 10));
  const contentCalls = Number(option('content-calls') ?? (quick ? 12 : 40));
  const crawlPages = Number(option('crawl-pages') ?? (quick ? 60 : 200));
  const crawlRounds = Number(option('crawl-rounds') ?? (quick ? 1 : 2));
  const crawlContent = option('crawl-content') !== '0';
  const extractionRounds = Number(option('extraction-rounds') ?? (quick ? 2 : 5));
  const devSet = !crawlOnly && option('dev-set') !== '0';
  const renderedPages = devSet ? Number(option('rendered-pages') ?? (quick ? 30 : 100)) : 0;
  return {
    crawlOnly,
    extractOnly,
    analysisOnly,
    contentQualityOnly,
    levels: crawlOnly ? levels.slice(-1) : levels,
    modes,
    browserConcurrency,
    cacheSeconds,
    contentCalls,
    crawlPages,
    crawlRounds,
    crawlContent,
    extractionRounds,
    devSet,
    renderedPages,
  };
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

function chromiumVersion(executablePath: string): string {
  try {
    return execFileSync(executablePath, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const {
    crawlOnly,
    extractOnly,
    analysisOnly,
    contentQualityOnly,
    levels,
    modes,
    browserConcurrency,
    cacheSeconds,
    contentCalls,
    crawlPages,
    crawlRounds,
    crawlContent,
    extractionRounds,
    devSet,
    renderedPages,
  } = parseArgs(process.argv.slice(2));
  const startedAt = new Date();
  const loadAverage = os.loadavg();
  // The service's own default, so the baselines run the very same executable.
  const chromiumPath = process.env.CHROMIUM_PATH;
  const executablePath = loadConfig({ CHROMIUM_PATH: chromiumPath }).browser.executablePath;
  const cpus = os.availableParallelism();
  console.log(
    `webcap bench: ${chromiumVersion(executablePath)} at ${executablePath}, ${cpus} cores, ` +
      `load average ${loadAverage.map((n) => n.toFixed(2)).join(' ')}`,
  );

  if (extractOnly) {
    console.log(`\n${formatExtractQuality(measureExtractQuality())}`);
    return;
  }
  if (analysisOnly) {
    console.log(`\n${formatAnalysisQuality(measureAnalysisQuality())}`);
    return;
  }
  if (contentQualityOnly) {
    console.log(`\n${formatDevSet(measureDevSet({ contentCalls: false }))}`);
    return;
  }
  const schemaExtraction: ExtractQuality | null = crawlOnly ? null : measureExtractQuality();
  const analysisQuality: AnalysisQuality | null = crawlOnly ? null : measureAnalysisQuality();
  const site = await startFixtureSite();
  const work = mkdtempSync(path.join(os.tmpdir(), 'webcap-bench-'));
  const resultsDir = path.join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const stamp = startedAt
    .toISOString()
    .replaceAll(':', '-')
    .replace(/\.\d+Z$/, 'Z');
  const logFile = path.join(resultsDir, `${stamp}-service.log`);
  const rows: Row[] = [];
  let cache: CacheHitResult | null = null;
  let contentHttp: ContentHttpResult | null = null;
  if (!crawlOnly) {
    console.log(
      `  content extraction without rendering, ${extractionRounds} rounds over the content fixtures...`,
    );
  }
  const extraction = crawlOnly ? null : measureExtraction(extractionRounds);
  let devSetResult: DevSetResult | null = null;
  if (devSet) {
    console.log('  main content on the development set, one page after the other on this thread...');
    devSetResult = measureDevSet();
  }
  let rendered: RenderedComparison | null = null;
  let crawlResult: CrawlBenchResult | null = null;
  try {
    for (const [index, level] of (crawlOnly ? [] : levels).entries()) {
      const last = index === levels.length - 1;
      console.log(
        `  c=${level.concurrency}: ${modes.join(', ')} in ${level.rounds} interleaved rounds, ` +
          `${level.shots} shots each...`,
      );
      const subjects: Subject[] = [];
      try {
        let service: Service | null = null;
        for (const mode of modes) {
          if (mode === 'service') {
            const subject = await serviceSubject(level, site, {
              browserConcurrency: browserConcurrency === 'level' ? level.concurrency : browserConcurrency,
              dataDir: path.join(work, `c${level.concurrency}`),
              logFile,
              chromiumPath,
            });
            service = subject.service;
            subjects.push(subject);
          } else {
            subjects.push(await baselineSubject(mode, level, site, executablePath));
          }
        }
        const measured = await measureLevel(subjects, level);
        rows.push(...measured);
        for (const row of measured) {
          console.log(
            `    ${row.mode}: ${row.shotsPerSecond.toFixed(2)} shots/s, p50 ${row.p50Ms.toFixed(0)} ms, ` +
              `peak ${(row.peakMemoryBytes / 1_048_576).toFixed(0)} MB`,
          );
        }
        if (last && service !== null && contentCalls > 0) {
          console.log(
            `  c=${level.concurrency}: ${contentCalls} content calls (include_markdown, use_defuddle)...`,
          );
          contentHttp = await measureContentHttp(service, site, level.concurrency, contentCalls);
        }
        if (last && service !== null && cacheSeconds > 0) {
          cache = await measureCacheHits(service, site.target(0).url, {
            durationSeconds: cacheSeconds,
            connections: 50,
          });
        }
      } finally {
        for (const subject of subjects) await subject.close();
      }
    }
    if (crawlPages > 0) {
      const concurrency = levels.at(-1)?.concurrency ?? 2;
      console.log(
        `  c=${concurrency}: a crawl of ${crawlPages} pages${crawlContent ? ' against /v1/content on them' : ''}, ${crawlRounds} rounds...`,
      );
      crawlResult = await measureCrawl(
        { pages: crawlPages, concurrency, rounds: crawlRounds, content: crawlContent },
        { dataDir: work, logFile, chromiumPath },
      );
    }
    if (devSetResult !== null && renderedPages > 0) {
      console.log(`  ${renderedPages} pages of the development set through the service, rendered...`);
      rendered = await compareRendered(
        renderedPages,
        new Map(devSetResult.pages.map((page) => [page.file, page.text])),
        { dataDir: path.join(work, 'dev-set'), logFile, chromiumPath },
      );
    }
  } finally {
    await site.close();
    rmSync(work, { recursive: true, force: true });
  }

  const finishedAt = new Date();
  if (rows.length > 0) console.log(`\n${formatTable(rows, cache)}`);
  const targets = checkTargets(rows);
  for (const t of targets) {
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(
      `targets at c=${t.concurrency}: throughput >= 0.85 x floor ${verdict(t.throughputAtLeast085Floor)}, ` +
        `p50 <= 1.2 x floor ${verdict(t.p50AtMost12Floor)}, above naive ${verdict(t.aboveNaive)}`,
    );
  }
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  if (extraction !== null) {
    console.log(
      `\ncontent extraction (${extraction.pages} pages of ${extraction.htmlKb.min.toFixed(0)}-${extraction.htmlKb.max.toFixed(0)} KB, ` +
        `median ${extraction.htmlKb.median.toFixed(0)} KB; ${extraction.rounds} rounds): median ${ms(extraction.extractMedianMs)}, ` +
        `p95 ${ms(extraction.extractP95Ms)}; parsing alone median ${ms(extraction.parseMedianMs)}, p95 ${ms(extraction.parseP95Ms)}`,
    );
    console.log(
      `  on the ${extraction.largePages} pages of 60 KB and more: median ${ms(extraction.largeExtractMedianMs)}, p95 ${ms(extraction.largeExtractP95Ms)}`,
    );
    console.log(`extraction median < 100 ms: ${extraction.extractMedianMs < 100 ? 'met' : 'MISSED'}`);
  }
  if (schemaExtraction !== null) console.log(`\n${formatExtractQuality(schemaExtraction)}`);
  if (analysisQuality !== null) console.log(`\n${formatAnalysisQuality(analysisQuality)}`);
  const quality = devSetResult as DevSetResult | null;
  if (quality !== null) console.log(`\n${formatDevSet(quality)}`);
  const renderedResult = rendered as RenderedComparison | null;
  if (renderedResult !== null) console.log(formatRendered(renderedResult));
  const contentResult = contentHttp as ContentHttpResult | null;
  if (contentResult !== null) {
    const capture = rows.find(
      (row) => row.mode === 'service' && row.concurrency === contentResult.concurrency,
    );
    const ratio = capture === undefined ? null : contentResult.callsPerSecond / capture.shotsPerSecond;
    console.log(
      `content through HTTP at c=${contentResult.concurrency}: ${contentResult.callsPerSecond.toFixed(2)} calls/s ` +
        `(captures ${capture?.shotsPerSecond.toFixed(2) ?? '-'} shots/s, ratio ${ratio?.toFixed(2) ?? '-'}), ` +
        `p50 ${ms(contentResult.p50Ms)}, p95 ${ms(contentResult.p95Ms)}, ${contentResult.failures} failed; ` +
        `/healthz meanwhile p99 ${ms(contentResult.healthP99Ms)}, max ${ms(contentResult.healthMaxMs)}; ` +
        `less the service's waits for a CPU, p99 ${ms(contentResult.healthOwnP99Ms)}`,
    );
    console.log(
      `/healthz p99 < 50 ms during content calls: as seen ${contentResult.healthP99Ms < 50 ? 'met' : 'MISSED'}, ` +
        `event loop's own ${contentResult.healthOwnP99Ms < 50 ? 'met' : 'MISSED'}`,
    );
  }
  const crawled = crawlResult as CrawlBenchResult | null;
  if (crawled !== null) {
    const perMinute = (values: readonly number[]) => values.map((n) => n.toFixed(0)).join(', ');
    const mb = (values: readonly number[]) => values.map((n) => `${n.toFixed(0)} MB`).join(', ');
    const against =
      crawled.ratio === null
        ? ''
        : ` against /v1/content in a loop ${perMinute(crawled.contentPagesPerMinute)}: ratio ${crawled.ratio.toFixed(2)} ` +
          `(>= 0.9: ${crawled.ratio >= 0.9 ? 'met' : 'MISSED'})`;
    console.log(
      `crawl of ${crawled.pages} pages at c=${crawled.concurrency}: ${perMinute(crawled.crawlPagesPerMinute)} pages/min${against}; ` +
        `service memory ${crawled.serviceRssBeforeMb.toFixed(0)} MB before, ${mb(crawled.serviceRssAfterCrawlMb)} after each crawl, ` +
        `peak ${crawled.serviceRssPeakMb.toFixed(0)} MB, ${crawled.serviceRssAfterMb.toFixed(0)} MB after; ` +
        `extractors ${crawled.extractorRssBeforeMb.toFixed(0)} MB before, ${crawled.extractorRssAfterMb.toFixed(0)} MB after`,
    );
  }
  const cacheResult = cache as CacheHitResult | null;
  if (cacheResult !== null) {
    console.log(`cache hits >= 3000 req/s: ${cacheResult.requestsPerSecond >= 3000 ? 'met' : 'MISSED'}`);
  }

  const file = path.join(resultsDir, `${stamp}.json`);
  const report = {
    startedAt: startedAt.toISOString(),
    durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    machine: {
      cpus,
      loadAverageAtStart: loadAverage,
      loadAverageAtEnd: os.loadavg(),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    chromium: { executablePath, version: chromiumVersion(executablePath), baselineArgs: directArgs() },
    commit: gitCommit(),
    viewport: '1280x1024 png',
    fixtureHosts: site.hosts,
    levels,
    service: {
      command: 'node dist/cli/main.js serve',
      browserConcurrency:
        browserConcurrency === 'level' ? 'the level' : (browserConcurrency ?? 'default (2)'),
    },
    rows: rows.map((row) => ({ ...row, ratios: row.mode === 'floor' ? null : ratios(rows, row) })),
    targets,
    cacheHits: cacheResult,
    contentExtraction: extraction,
    schemaExtraction,
    analysisQuality,
    contentHttp: contentResult,
    crawl: crawled,
    mainContentDevSet:
      quality === null
        ? null
        : {
            all: quality.all,
            halves: quality.halves,
            mainContentMedianMs: quality.mainContentMedianMs,
            mainContentP95Ms: quality.mainContentP95Ms,
            contentCallMedianMs: quality.contentCallMedianMs,
            contentCallP95Ms: quality.contentCallP95Ms,
          },
    mainContentRendered: renderedResult,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `\nwritten to ${path.relative(process.cwd(), file)} (service log: ${path.relative(process.cwd(), logFile)})`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
