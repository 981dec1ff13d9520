import { writeFileSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { extractContent } from '../src/engines/content/extract.js';
import { extractMainContent, plainText } from '../src/engines/content/main-content.js';
import { parsePage } from '../src/engines/content/parse-page.js';
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
import { quantile } from './load.js';

/*
 * The content-quality row of `npm run bench`: webcap's main content (use_defuddle) on the
 * development set, scored as its README says, timed on this one thread as an extractor process
 * would run it. Alone: `npx tsx bench/content-dev-quality.ts [--pages=N] [--errors=FILE]`.
 */

export interface DevSetResult {
  readonly all: SetScore;
  readonly halves: { readonly a: SetScore; readonly b: SetScore };
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

/** Runs the set: text and time of each page, then the scores of the whole set and of each half. */
export function measureDevSet(
  options: { readonly limit?: number; readonly contentCalls?: boolean } = {},
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
  const ours = (name: string, s: SetScore) => line(name, s, f3(s.accuracy));
  return [
    `main content on the development set (${result.all.pages} pages; TP ${result.all.tp}, FP ${result.all.fp}, FN ${result.all.fn}, TN ${result.all.tn}):`,
    `  ${''.padEnd(36)} P      R      acc    F1`,
    ours('webcap (this run)', result.all),
    ours(`  half a (${result.halves.a.pages} pages)`, result.halves.a),
    ours(`  half b (${result.halves.b.pages} pages)`, result.halves.b),
    ...PUBLISHED.map((p) => line(`${p.name} (published)`, p)),
    `  time per page, one thread: parse + main content median ${result.mainContentMedianMs.toFixed(1)} ms, ` +
      `p95 ${result.mainContentP95Ms.toFixed(1)} ms; a whole content call's extraction (metadata, links, ` +
      `main content, Markdown) median ${result.contentCallMedianMs.toFixed(1)} ms, p95 ${result.contentCallP95Ms.toFixed(1)} ms`,
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
  });
  console.log(formatDevSet(result));
  const errors = option('errors');
  if (errors !== undefined) writeFileSync(errors, `${errorReport(result, loadDevSet())}\n`);
}
