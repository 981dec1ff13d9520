import { analyzeExtractive } from '../src/engines/analyze/extractive.js';
import { readPage } from '../src/engines/analyze/read-page.js';
import { type AnalysisFixture, analysisFixtures } from './analysis-fixtures.js';

/**
 * The built-in analyzer's precision and recall of `categories` and `targetAudience` on its
 * labelled set (analysis-fixtures.ts), per half, read the way the service reads a page (readPage,
 * then the extractive analyzer) without rendering. Silence is never wrong: an empty answer
 * counts against recall only.
 * - categories: precision is the returned categories that are in the page's acceptable set over
 *   all returned; recall is the pages that got at least one acceptable category over the pages
 *   that have one.
 * - audience: the answer's parts (it joins phrases with "; ") are each compared with the page's
 *   acceptable phrases, lower-cased, without a leading article: a part is right when it holds an
 *   acceptable phrase at word boundaries with at most 3 words more. An answer is right when all
 *   its parts are; precision is right answers over non-empty answers, recall right answers over
 *   the pages that state an audience.
 * Run alone: npx tsx bench/analysis-quality.ts
 */

export interface Rate {
  readonly right: number;
  readonly of: number;
  readonly value: number;
}

export interface HalfScore {
  readonly pages: number;
  readonly categoryPrecision: Rate;
  readonly categoryRecall: Rate;
  readonly audiencePrecision: Rate;
  readonly audienceRecall: Rate;
}

export interface AnalysisQuality {
  readonly halves: { readonly a: HalfScore; readonly b: HalfScore };
  readonly wrong: readonly string[];
  readonly missed: readonly string[];
}

const PRECISION_BAR = 0.9;
const EXTRA_WORDS = 3;

function rate(right: number, of: number): Rate {
  return { right, of, value: of === 0 ? 1 : right / of };
}

function normal(phrase: string): string {
  return phrase
    .toLowerCase()
    .replace(/[.,;:!?"“”]+$/g, '')
    .replace(/^(?:a|an|the)\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function partIsRight(part: string, acceptable: readonly string[]): boolean {
  const said = normal(part);
  const saidWords = said.split(' ').length;
  return acceptable.some((phrase) => {
    const want = normal(phrase);
    const at = ` ${said} `.indexOf(` ${want} `);
    return at >= 0 && saidWords - want.split(' ').length <= EXTRA_WORDS;
  });
}

interface Counts {
  pages: number;
  categoriesReturned: number;
  categoriesRight: number;
  pagesWithCategories: number;
  pagesCategorized: number;
  audienceAnswers: number;
  audienceRight: number;
  pagesWithAudience: number;
}

const zero = (): Counts => ({
  pages: 0,
  categoriesReturned: 0,
  categoriesRight: 0,
  pagesWithCategories: 0,
  pagesCategorized: 0,
  audienceAnswers: 0,
  audienceRight: 0,
  pagesWithAudience: 0,
});

/** What the analyzer answers for one fixture, read as the service reads a rendered page. */
export function analyzeFixture(fixture: AnalysisFixture) {
  const { digest } = readPage({ html: fixture.html, pageUrl: fixture.url, withMarkdown: false });
  return analyzeExtractive(digest, {}).fields;
}

export function measureAnalysisQuality(): AnalysisQuality {
  const counts = { a: zero(), b: zero() };
  const wrong: string[] = [];
  const missed: string[] = [];
  for (const fixture of analysisFixtures()) {
    const fields = analyzeFixture(fixture);
    const c = counts[fixture.half];
    c.pages++;
    const accepted = new Set(fixture.categories);
    let anyRight = false;
    for (const category of fields.categories) {
      c.categoriesReturned++;
      if (accepted.has(category)) {
        c.categoriesRight++;
        anyRight = true;
      } else
        wrong.push(
          `${fixture.id}.categories: "${category}", acceptable ${JSON.stringify(fixture.categories)}`,
        );
    }
    if (accepted.size > 0) {
      c.pagesWithCategories++;
      if (anyRight) c.pagesCategorized++;
      else missed.push(`${fixture.id}.categories: acceptable ${JSON.stringify(fixture.categories)}`);
    }
    const audience = fields.targetAudience;
    const right =
      audience !== '' && audience.split('; ').every((part) => partIsRight(part, fixture.audience));
    if (audience !== '') {
      c.audienceAnswers++;
      if (right) c.audienceRight++;
      else
        wrong.push(
          `${fixture.id}.targetAudience: "${audience}", acceptable ${JSON.stringify(fixture.audience)}`,
        );
    }
    if (fixture.audience.length > 0) {
      c.pagesWithAudience++;
      if (!right && audience === '')
        missed.push(`${fixture.id}.targetAudience: acceptable ${JSON.stringify(fixture.audience)}`);
    }
  }
  const score = (c: Counts): HalfScore => ({
    pages: c.pages,
    categoryPrecision: rate(c.categoriesRight, c.categoriesReturned),
    categoryRecall: rate(c.pagesCategorized, c.pagesWithCategories),
    audiencePrecision: rate(c.audienceRight, c.audienceAnswers),
    audienceRecall: rate(c.audienceRight, c.pagesWithAudience),
  });
  return { halves: { a: score(counts.a), b: score(counts.b) }, wrong, missed };
}

/** Whether both halves meet the precision bar for categories and audience. */
export function meetsPrecisionBar(quality: AnalysisQuality): boolean {
  return Object.values(quality.halves).every(
    (h) => h.categoryPrecision.value >= PRECISION_BAR && h.audiencePrecision.value >= PRECISION_BAR,
  );
}

/** The analysis row as the bench prints it. */
export function formatAnalysisQuality(quality: AnalysisQuality): string {
  const r = (x: Rate) => `${x.value.toFixed(3)} (${x.right}/${x.of})`;
  const line = (name: string, h: HalfScore) =>
    `  ${name}: ${h.pages} pages; categories precision ${r(h.categoryPrecision)}, recall ${r(h.categoryRecall)}; ` +
    `audience precision ${r(h.audiencePrecision)}, recall ${r(h.audienceRecall)}`;
  return [
    'built-in analyzer on its labelled set (bench/analysis-fixtures.ts):',
    line('half a (rules tuned on)', quality.halves.a),
    line('half b (confirmation)', quality.halves.b),
    ...quality.wrong.map((w) => `    wrong ${w}`),
    ...quality.missed.map((m) => `    missed ${m}`),
    `categories and audience precision >= ${PRECISION_BAR} on both halves: ${meetsPrecisionBar(quality) ? 'met' : 'MISSED'}`,
  ].join('\n');
}

if (process.argv[1]?.endsWith('analysis-quality.ts'))
  console.log(formatAnalysisQuality(measureAnalysisQuality()));
