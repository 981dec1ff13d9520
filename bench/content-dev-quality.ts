import { writeFileSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { extractContent } from '../src/engines/content/extract.js';
import { extractMainContent, plainText } from '../src/engines/content/main-content.js';
import { parsePage } from '../src/engines/content/parse-page.js';
import { bootstrapInterval, type Interval } from './bootstrap.js';
import {
  type DevPage,
  devPageHtml,
  loadDevSet,
  PUBLISHED,
  type SegmentCounts,
  type SetScore,
  scorePage,
  sumScores,
} from './content-dev-set.js';
import {
  averageScores,
  htmlText,
  loadReadabilitySet,
  type PagePR,
  READABILITY_PAGE_URL,
  type ShingleScore,
  scoreShingles,
} from './content-readability-set.js';
import { quantile } from './load.js';

/*
 * The content-quality row of `npm run bench`: webcap's main content (use_defuddle) on the
 * development set, scored as its README says, timed on this one thread as an extractor process
 * would run it. Alone: `npx tsx bench/content-dev-quality.ts [--pages=N] [--errors=FILE]
 * [--readability-errors=FILE] [--no-calls] [--no-readability]`; with the readability set
 * (content-readability-set.ts) and bootstrap intervals of each half and of that set.
 */

export interface DevSetResult {
  readonly all: SetScore;
  readonly halves: { readonly a: SetScore; readonly b: SetScore };
  /** 95 % bootstrap intervals of each half's F1 (pages resampled). */
  readonly intervals: { readonly a: Interval; readonly b: Interval };
  /** The second set (content-readability-set.ts), with its F1's bootstrap interval; null when skipped. */
  readonly readability: ReadabilityResult | null;
  /** Parse + main content, per page, on one thread (after WARM_UP_PAGES unmeasured). */
  readonly mainContentMedianMs: number;
  readonly mainContentP95Ms: number;
  /** The whole extraction of a content call with use_defuddle and Markdown (metadata, links, main content, Markdown). */
  readonly contentCallMedianMs: number;
  readonly contentCallP95Ms: number;
  readonly pages: readonly PageOutcome[];
}

export interface PageOutcome {
  readonly url: string;
  readonly file: string;
  readonly half: 'a' | 'b';
  readonly counts: SegmentCounts;
  readonly ms: number;
  readonly text: string;
}

const WARM_UP_PAGES = 50;

/** Parse + main content of `html`, as an extractor process does it: the HTML field of a use_defuddle call. */
function mainContentHtml(html: string, pageUrl: string): string {
  return extractMainContent(parsePage(html).document, pageUrl, undefined, { inPlace: true }).html;
}

/** Visible text of an HTML fragment, the way the set is scored. */
function textOf(fragment: string): string {
  return plainText(parseHTML(`<!DOCTYPE html><html><body>${fragment}</body></html>`).document.body);
}

/** The main content of `html` as text, the way the set is scored: the html field's visible text. */
export function mainContentText(html: string, pageUrl: string): string {
  return textOf(mainContentHtml(html, pageUrl));
}

export interface ReadabilityResult {
  readonly score: ShingleScore;
  readonly interval: Interval;
  readonly pages: readonly { readonly name: string; readonly pr: PagePR }[];
}

/** The second set's score: each page's main content (the html field's text) against Readability's article. */
export function measureReadabilitySet(): ReadabilityResult {
  const pages = loadReadabilitySet().map((page) => ({
    name: page.name,
    pr: scoreShingles(htmlText(mainContentHtml(page.source, READABILITY_PAGE_URL)), page.expected),
  }));
  const prs = pages.map((p) => p.pr);
  return { score: averageScores(prs), interval: bootstrapInterval(prs, (s) => averageScores(s).f1), pages };
}

const f1Interval = (pages: readonly PageOutcome[]) =>
  bootstrapInterval(pages, (sample) => sumScores(sample.map((p) => p.counts)).f1);

/** Runs the set: text and time of each page, then the scores of the whole set and of each half. */
export function measureDevSet(
  options: { readonly limit?: number; readonly contentCalls?: boolean; readonly readability?: boolean } = {},
): DevSetResult {
  const set = loadDevSet().slice(0, options.limit ?? Number.POSITIVE_INFINITY);
  const htmls = set.map((page) => devPageHtml(page));
  // Pages first, unmeasured, so that module loading and JIT compilation are not a page's time: an
  // extractor process has seen many pages before most of the ones it extracts.
  for (const [i, html] of htmls.slice(0, WARM_UP_PAGES).entries()) mainContentText(html, set[i]?.url ?? '');
  const pages: PageOutcome[] = [];
  for (const [i, page] of set.entries()) {
    const html = htmls[i] as string;
    const started = performance.now();
    const fragment = mainContentHtml(html, page.url);
    const ms = performance.now() - started;
    const text = textOf(fragment);
    pages.push({ url: page.url, file: page.file, half: page.half, counts: scorePage(text, page), ms, text });
  }
  const call: number[] = [];
  for (const [i, page] of options.contentCalls === false ? [] : set.entries()) {
    const started = performance.now();
    extractContent({
      html: htmls[i] as string,
      pageUrl: page.url,
      scoped: false,
      includeHtml: true,
      includeMarkdown: true,
      useDefuddle: true,
      maxLinks: 5000,
    });
    call.push(performance.now() - started);
  }
  const score = (keep: (p: PageOutcome) => boolean) => sumScores(pages.filter(keep).map((p) => p.counts));
  const times = pages.map((p) => p.ms);
  return {
    all: score(() => true),
    halves: { a: score((p) => p.half === 'a'), b: score((p) => p.half === 'b') },
    intervals: {
      a: f1Interval(pages.filter((p) => p.half === 'a')),
      b: f1Interval(pages.filter((p) => p.half === 'b')),
    },
    readability: options.readability === false ? null : measureReadabilitySet(),
    mainContentMedianMs: quantile(times, 0.5),
    mainContentP95Ms: quantile(times, 0.95),
    contentCallMedianMs: quantile(call, 0.5),
    contentCallP95Ms: quantile(call, 0.95),
    pages,
  };
}

const f3 = (n: number | null) => (n === null ? '  -  ' : n.toFixed(3));

/** The row as printed by the bench: ours beside the published figures. */
export function formatDevSet(result: DevSetResult): string {
  const line = (
    name: string,
    s: { precision: number | null; recall: number | null; f1: number },
    extra = '',
  ) => `  ${name.padEnd(36)} ${f3(s.precision)}  ${f3(s.recall)}  ${extra.padEnd(5)}  ${f3(s.f1)}`;
  const ours = (name: string, s: SetScore, ci?: Interval) =>
    line(name, s, f3(s.accuracy)) + (ci === undefined ? '' : `  [${f3(ci.low)}, ${f3(ci.high)}]`);
  const r = result.readability;
  return [
    `main content on the development set (${result.all.pages} pages; TP ${result.all.tp}, FP ${result.all.fp}, FN ${result.all.fn}, TN ${result.all.tn}):`,
    `  ${''.padEnd(36)} P      R      acc    F1     95 % bootstrap interval`,
    ours('webcap (this run)', result.all),
    ours(`  half a (${result.halves.a.pages} pages)`, result.halves.a, result.intervals.a),
    ours(`  half b (${result.halves.b.pages} pages)`, result.halves.b, result.intervals.b),
    ...PUBLISHED.map((p) => line(`${p.name} (published)`, p)),
    `  time per page, one thread: parse + main content median ${result.mainContentMedianMs.toFixed(1)} ms, ` +
      `p95 ${result.mainContentP95Ms.toFixed(1)} ms` +
      (Number.isNaN(result.contentCallMedianMs)
        ? ''
        : `; a whole content call's extraction (metadata, links, main content, Markdown) median ` +
          `${result.contentCallMedianMs.toFixed(1)} ms, p95 ${result.contentCallP95Ms.toFixed(1)} ms`),
    ...(r === null
      ? []
      : [
          `main content on the readability set (${r.score.pages} pages; 4-token shingles, P and R averaged over pages):`,
          `  ${'webcap (this run)'.padEnd(36)} ${f3(r.score.precision)}  ${f3(r.score.recall)}  ${''.padEnd(5)}  ${f3(r.score.f1)}  [${f3(r.interval.low)}, ${f3(r.interval.high)}]`,
          `  ${'defuddle 0.19.4 (README)'.padEnd(36)}   -      -    ${''.padEnd(5)}  0.941`,
        ]),
  ].join('\n');
}

/** Pages that lost segments, worst first: what the error analysis reads. */
function errorReport(result: DevSetResult, set: readonly DevPage[]): string {
  const byFile = new Map(set.map((p) => [p.file, p]));
  return result.pages
    .filter((p) => p.counts.fp + p.counts.fn > 0)
    .sort((x, y) => y.counts.fp + y.counts.fn - (x.counts.fp + x.counts.fn))
    .map((p) => {
      const page = byFile.get(p.file) as DevPage;
      const text = p.text.replace(/\s+/g, ' ').trim();
      const has = (s: string) => text.includes(s.replace(/\s+/g, ' ').trim());
      return [
        `## [${p.half}] ${p.file} ${p.url} fp=${p.counts.fp} fn=${p.counts.fn} words=${text.split(' ').length} ms=${p.ms.toFixed(0)}`,
        ...page.with.filter((s) => !has(s)).map((s) => `  MISSING: ${s}`),
        ...page.without.filter(has).map((s) => `  EXTRA:   ${s}`),
        `  TEXT: ${text.slice(0, 600)}`,
      ].join('\n');
    })
    .join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const limit = option('pages');
  const result = measureDevSet({
    ...(limit === undefined ? {} : { limit: Number(limit) }),
    contentCalls: !process.argv.includes('--no-calls'),
    readability: !process.argv.includes('--no-readability'),
  });
  console.log(formatDevSet(result));
  const errors = option('errors');
  if (errors !== undefined) writeFileSync(errors, `${errorReport(result, loadDevSet())}\n`);
  const worst = option('readability-errors');
  if (worst !== undefined && result.readability !== null)
    writeFileSync(
      worst,
      `${[...result.readability.pages]
        .sort((x, y) => x.pr.precision + x.pr.recall - (y.pr.precision + y.pr.recall))
        .map((p) => `${p.name} P=${f3(p.pr.precision)} R=${f3(p.pr.recall)}`)
        .join('\n')}\n`,
    );
}
