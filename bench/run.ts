import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { type AgainstCheckout, checkoutAgainst } from './against.js';
import { type AnalysisQuality, formatAnalysisQuality, measureAnalysisQuality } from './analysis-quality.js';
import { directArgs } from './baselines.js';
import { type CacheHitResult, type CacheHitRun, formatCacheHits, measureCacheHits } from './cache-hits.js';
import { type ContentHttpResult, measureContentHttp, measureExtraction } from './content.js';
import { type DevSetResult, formatDevSet, measureDevSet } from './content-dev-quality.js';
import { compareRendered, formatRendered, type RenderedComparison } from './content-dev-rendered.js';
import { type CrawlBenchResult, measureCrawl } from './crawl.js';
import { onExit } from './exit-hooks.js';
import { type ExtractQuality, formatExtractQuality, measureExtractQuality } from './extract-quality.js';
import { startFixtureSite } from './fixture-site.js';
import { baselineSubject, type Level, measureLevel, type Subject, serviceSubject } from './modes.js';
import { checkTargets, formatTable, type Mode, type Row, ratios } from './report.js';
import type { Service } from './service.js';
import { type SideBySide, sideBySide } from './side-by-side.js';
import { UsageError } from './usage-error.js';

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
 *   --cache-seconds=N  length of the measured cache-hit run of each row (default 10; 0 skips it): the
 *                      service with its key and through a signed link, and a bare node:http server
 *                      answering the same bytes (the floor), in slices taken in turn
 *   --content-calls=N  content calls through HTTP at the last level (default 40; 0 skips them)
 *   --crawl-pages=N    a crawl of N pages against /v1/content on them, at the last level (default 200; 0 skips)
 *   --crawl-rounds=N   crawl and content loop alternations (default 2)
 *   --crawl-content=0  crawls only, no content loop (and no ratio): a long crawl measured for its memory
 *   --only=cache-hits  the cache-hit rows alone, at the last level: the priming capture, no capture
 *                      levels, content calls, crawl, extraction or development set (takes --against)
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
 *   --against=REF      also the service built from git ref REF (in a temporary worktree), in the same
 *                      interleaved rounds as this checkout's at every level, then in turn with it for
 *                      cache hits and content calls: every service row gets its new/old ratios
 *   --slices=N         cache hits (and with --against content calls) in N slices per row, taken in
 *                      turn (default 4; 2 with --quick)
 */

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const CHECKOUT = path.dirname(BENCH_DIR);

type Options = ReturnType<typeof parseArgs>;

/** The modes --modes takes; 'against' comes with --against. */
const MODES = ['floor', 'naive', 'service'] as const satisfies readonly Mode[];
type CliMode = (typeof MODES)[number];

function parseArgs(argv: readonly string[]) {
  const option = (name: string) =>
    argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(`--${name}=`.length);
  const quick = argv.includes('--quick');
  const crawlOnly = option('only') === 'crawl';
  const cacheOnly = option('only') === 'cache-hits';
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
  const modes = (option('modes') ?? 'floor,naive,service').split(',');
  const unknown = modes.filter((mode) => !MODES.includes(mode as CliMode));
  if (unknown.length > 0) {
    throw new UsageError(`--modes=${unknown.join(',')}: the modes are ${MODES.join(', ')}`);
  }
  const browser = option('browser-concurrency') ?? 'level';
  const browserConcurrency: number | null | 'level' =
    browser === 'default' ? null : browser === 'level' ? 'level' : Number(browser);
  const cacheSeconds = Number(option('cache-seconds') ?? (quick ? 3 : 10));
  const contentCalls = cacheOnly ? 0 : Number(option('content-calls') ?? (quick ? 12 : 40));
  const crawlPages = cacheOnly ? 0 : Number(option('crawl-pages') ?? (quick ? 60 : 200));
  const crawlRounds = Number(option('crawl-rounds') ?? (quick ? 1 : 2));
  const crawlContent = option('crawl-content') !== '0';
  const extractionRounds = Number(option('extraction-rounds') ?? (quick ? 2 : 5));
  const devSet = !crawlOnly && !cacheOnly && option('dev-set') !== '0';
  const renderedPages = devSet ? Number(option('rendered-pages') ?? (quick ? 30 : 100)) : 0;
  const against = option('against') ?? null;
  if (against !== null && option('only') !== undefined && !cacheOnly) {
    throw new UsageError(`--against compares the service's rows; --only=${option('only')} has none`);
  }
  if (against !== null && !modes.includes('service')) {
    throw new UsageError('--against compares the service with the other ref: --modes must include service');
  }
  const slices = Number(option('slices') ?? (quick ? 2 : 4));
  return {
    crawlOnly,
    cacheOnly,
    extractOnly,
    analysisOnly,
    contentQualityOnly,
    levels: crawlOnly || cacheOnly ? levels.slice(-1) : levels,
    modes: (cacheOnly ? ['service'] : modes) as CliMode[],
    browserConcurrency,
    cacheSeconds,
    contentCalls,
    crawlPages,
    crawlRounds,
    crawlContent,
    extractionRounds,
    devSet,
    renderedPages,
    against,
    slices,
  };
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** Whether this checkout's tracked files differ from its commit: then the bench measured more than that commit. */
function gitChanged(): boolean {
  try {
    return (
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !==
      ''
    );
  } catch {
    return false;
  }
}

function chromiumVersion(executablePath: string): string {
  try {
    return execFileSync(executablePath, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** The options read, `--against`'s checkout built, the run, and that checkout removed however the run ends. */
async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const startedAt = new Date();
  const resultsDir = path.join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const stamp = startedAt
    .toISOString()
    .replaceAll(':', '-')
    .replace(/\.\d+Z$/, 'Z');
  const against =
    options.against === null
      ? null
      : await checkoutAgainst(options.against, {
          root: CHECKOUT,
          buildLog: path.join(resultsDir, `${stamp}-against-build.log`),
        });
  try {
    await run(options, against, { startedAt, resultsDir, stamp });
  } finally {
    against?.remove();
  }
}

async function run(
  options: Options,
  against: AgainstCheckout | null,
  output: { readonly startedAt: Date; readonly resultsDir: string; readonly stamp: string },
): Promise<void> {
  const {
    crawlOnly,
    cacheOnly,
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
    slices,
  } = options;
  const { startedAt, resultsDir, stamp } = output;
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
  const measuresQuality = !crawlOnly && !cacheOnly;
  const schemaExtraction: ExtractQuality | null = measuresQuality ? measureExtractQuality() : null;
  const analysisQuality: AnalysisQuality | null = measuresQuality ? measureAnalysisQuality() : null;
  const site = await startFixtureSite();
  const work = mkdtempSync(path.join(os.tmpdir(), 'webcap-bench-'));
  const removeWork = () => rmSync(work, { recursive: true, force: true });
  const forgetWork = onExit(removeWork);
  const logFile = path.join(resultsDir, `${stamp}-service.log`);
  const againstLogFile =
    against === null ? logFile : path.join(resultsDir, `${stamp}-service-${against.shortCommit}.log`);
  const rows: Row[] = [];
  let cache: CacheHitResult | null = null;
  let cacheRun: CacheHitRun | null = null;
  let contentHttp: ContentHttpResult | null = null;
  // The --against service's, measured in turn with the above.
  let cacheOld: CacheHitResult | null = null;
  let contentHttpOld: ContentHttpResult | null = null;
  // --extraction-rounds=0 skips the row rather than reporting a median of nothing as missed.
  const measuresExtraction = measuresQuality && extractionRounds > 0;
  if (measuresExtraction) {
    console.log(
      `  content extraction without rendering, ${extractionRounds} rounds over the content fixtures...`,
    );
  }
  const extraction = measuresExtraction ? measureExtraction(extractionRounds) : null;
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
      const names = modes.flatMap((mode) =>
        mode === 'service' && against !== null ? [mode, against.label] : [mode],
      );
      if (!cacheOnly) {
        console.log(
          `  c=${level.concurrency}: ${names.join(', ')} in ${level.rounds} interleaved rounds, ` +
            `${level.shots} shots each...`,
        );
      }
      const subjects: Subject[] = [];
      try {
        let service: Service | null = null;
        let serviceOld: Service | null = null;
        for (const mode of modes) {
          if (mode === 'service') {
            const settings = {
              browserConcurrency: browserConcurrency === 'level' ? level.concurrency : browserConcurrency,
              dataDir: path.join(work, `c${level.concurrency}`),
              logFile,
              chromiumPath,
            };
            const subject = await serviceSubject(level, site, settings);
            service = subject.service;
            subjects.push(subject);
            if (against !== null) {
              const old = await serviceSubject(level, site, {
                ...settings,
                dataDir: path.join(work, `c${level.concurrency}-against`),
                logFile: againstLogFile,
                mode: 'against',
                root: against.root,
              });
              serviceOld = old.service;
              subjects.push(old);
            }
          } else {
            subjects.push(await baselineSubject(mode, level, site, executablePath));
          }
        }
        const measured = cacheOnly ? [] : await measureLevel(subjects, level);
        rows.push(...measured);
        for (const row of measured) {
          console.log(
            `    ${row.mode === 'against' ? against?.label : row.mode}: ${row.shotsPerSecond.toFixed(2)} shots/s, p50 ${row.p50Ms.toFixed(0)} ms, ` +
              `peak ${(row.peakMemoryBytes / 1_048_576).toFixed(0)} MB`,
          );
        }
        const services = [service, serviceOld].filter((s): s is Service => s !== null);
        const inTurn = services.length > 1 ? `, in ${slices} slices each, taken in turn` : '';
        const contentSlices = services.length > 1 ? slices : 1;
        if (last && service !== null && contentCalls > 0) {
          console.log(
            `  c=${level.concurrency}: ${contentCalls} content calls (include_markdown, use_defuddle)${inTurn}...`,
          );
          [contentHttp = null, contentHttpOld = null] = await measureContentHttp(
            services,
            site,
            level.concurrency,
            contentCalls,
            contentSlices,
          );
        }
        if (last && service !== null && cacheSeconds > 0) {
          console.log(
            `  cache hits, ${cacheSeconds} s measured per row (with a key, through a signed link, the bare floor), ` +
              `in ${slices} slices each, taken in turn...`,
          );
          const labels = ['service', against?.label ?? 'against'];
          cacheRun = await measureCacheHits(
            services.map((s, i) => ({ service: s, label: labels[i] ?? 'service' })),
            site.target(0).url,
            { durationSeconds: cacheSeconds, connections: 50, slices },
          );
          [cache = null, cacheOld = null] = cacheRun.withKey;
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
    forgetWork();
    removeWork();
  }

  const finishedAt = new Date();
  if (rows.length > 0) console.log(`\n${formatTable(rows, null, against?.label ?? null)}`);
  const hitRun = cacheRun as CacheHitRun | null;
  if (hitRun !== null) console.log(`\n${formatCacheHits(hitRun)}`);
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
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(
      `cache hits (issue 37) >= 10000 req/s: ${verdict(cacheResult.requestsPerSecond >= 10_000)}; ` +
        `<= 0.15 ms of service CPU per hit: ${verdict(cacheResult.serviceCpuMsPerRequest <= 0.15)}` +
        (hitRun === null
          ? ''
          : ` (the floor here: ${hitRun.floor.requestsPerSecond.toFixed(0)} req/s, ${hitRun.floor.serviceCpuMsPerRequest.toFixed(3)} ms per answer)`),
    );
  }
  const commit = gitCommit();
  const cacheResultOld = cacheOld as CacheHitResult | null;
  const contentResultOld = contentHttpOld as ContentHttpResult | null;
  let compared: SideBySide | null = null;
  if (against !== null) {
    compared = sideBySide(
      against,
      `${commit ?? 'no commit'}${gitChanged() ? ' with uncommitted changes' : ''}`,
      rows,
      cacheResult !== null && cacheResultOld !== null ? { newer: cacheResult, older: cacheResultOld } : null,
      contentResult !== null && contentResultOld !== null
        ? { newer: contentResult, older: contentResultOld }
        : null,
    );
    console.log(`\n${compared.summary.join('\n')}`);
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
    commit,
    viewport: '1280x1024 png',
    fixtureHosts: site.hosts,
    levels,
    service: {
      command: 'node dist/cli/main.js serve',
      browserConcurrency:
        browserConcurrency === 'level' ? 'the level' : (browserConcurrency ?? 'default (2)'),
    },
    rows: rows.map((row) => ({
      ...row,
      ratios: row.mode === 'floor' ? null : ratios(rows, row),
      newOverOld:
        compared?.captures.find((c) => row.mode === 'service' && c.concurrency === row.concurrency) ?? null,
    })),
    targets,
    cacheHits: cacheResult,
    cacheHitRows: hitRun,
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
    against:
      against === null || compared === null
        ? null
        : {
            ref: against.ref,
            commit: against.commit,
            label: against.label,
            nodeModules: against.nodeModules,
            buildSeconds: against.buildSeconds,
            cacheHits: cacheResultOld,
            contentHttp: contentResultOld,
            newOverOld: {
              captures: compared.captures,
              cacheHits: compared.cacheHits,
              contentHttp: compared.contentHttp,
            },
            summary: compared.summary,
          },
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `\nwritten to ${path.relative(process.cwd(), file)} (service log: ${path.relative(process.cwd(), logFile)})`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`webcap bench: ${error.message}`);
      process.exit(2);
    }
    console.error(error);
    process.exit(1);
  },
);
