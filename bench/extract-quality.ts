import { performance } from 'node:perf_hooks';
import { parsePage } from '../src/engines/content/parse-page.js';
import { checkSchema } from '../src/engines/extract/schema/check-schema.js';
import { extractBySchema } from '../src/engines/extract/schema/extract-by-schema.js';
import { type ExtractFixture, extractFixtures } from './extract-fixtures.js';

/**
 * The built-in schema extractor's quality on the fixture set (extract-fixtures.ts): field
 * precision (the values it returned that equal the truth) and recall (the truth's values it
 * returned), per half, with every wrong or missed field listed; and its time on a 1 MB page.
 * A value is compared after trimming and lower-casing text, phones by their digits, lists item by item.
 * Run alone: npx tsx bench/extract-quality.ts
 */

export interface Score {
  readonly pages: number;
  readonly returned: number;
  readonly right: number;
  readonly stated: number;
  readonly precision: number;
  readonly recall: number;
}

export interface ExtractQuality {
  readonly all: Score;
  readonly halves: { readonly a: Score; readonly b: Score };
  readonly wrong: readonly string[];
  readonly missed: readonly string[];
  readonly largePageKb: number;
  /** linkedom's parse of the page, which the content pipeline does once for all its readers. */
  readonly largePageParseMedianMs: number;
  readonly largePageExtractMedianMs: number;
}

function normal(field: string, value: unknown): unknown {
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    return field === 'telephone' ? text.replace(/[^0-9]/g, '').replace(/^0+/, '') : text;
  }
  if (Array.isArray(value)) return value.map((item) => normal(field, item));
  return value;
}

const same = (field: string, a: unknown, b: unknown) =>
  JSON.stringify(normal(field, a)) === JSON.stringify(normal(field, b));

function scoreOf(counts: { pages: number; returned: number; right: number; stated: number }): Score {
  return {
    ...counts,
    precision: counts.returned === 0 ? 1 : counts.right / counts.returned,
    recall: counts.stated === 0 ? 1 : counts.right / counts.stated,
  };
}

function largePage(fixture: ExtractFixture): string {
  const paragraph = `<p>${'Filler words about nothing in particular, '.repeat(20)}</p>`;
  const filler = paragraph.repeat(Math.ceil(1_000_000 / paragraph.length));
  return fixture.html.replace('</main>', `${filler}</main>`);
}

function median(values: number[]): number {
  values.sort((x, y) => x - y);
  return values[Math.floor(values.length / 2)] ?? 0;
}

export function measureExtractQuality(): ExtractQuality {
  const fixtures = extractFixtures();
  const counts = {
    a: { pages: 0, returned: 0, right: 0, stated: 0 },
    b: { pages: 0, returned: 0, right: 0, stated: 0 },
  };
  const wrong: string[] = [];
  const missed: string[] = [];
  for (const fixture of fixtures) {
    const checked = checkSchema(fixture.schema);
    const { data } = extractBySchema(fixture.html, fixture.url, checked);
    if (!checked.validateFound(data)) throw new Error(`${fixture.id}: the answer does not validate`);
    const half = counts[fixture.half];
    half.pages++;
    for (const [field, truth] of Object.entries(fixture.truth)) {
      const got = data[field];
      const returned = got !== null && got !== undefined;
      if (truth !== null) half.stated++;
      if (returned) half.returned++;
      if (returned && same(field, got, truth)) half.right++;
      else if (returned)
        wrong.push(`${fixture.id}.${field}: ${JSON.stringify(got)}, truth ${JSON.stringify(truth)}`);
      else if (truth !== null) missed.push(`${fixture.id}.${field}: truth ${JSON.stringify(truth)}`);
    }
  }
  const sum = (key: 'pages' | 'returned' | 'right' | 'stated') => counts.a[key] + counts.b[key];
  const all = scoreOf({
    pages: sum('pages'),
    returned: sum('returned'),
    right: sum('right'),
    stated: sum('stated'),
  });

  const first = fixtures[0] as ExtractFixture;
  const html = largePage(first);
  const checked = checkSchema(first.schema);
  const parseTimes: number[] = [];
  const extractTimes: number[] = [];
  for (let round = 0; round < 7; round++) {
    const started = performance.now();
    const { document } = parsePage(html);
    const parsed = performance.now();
    extractBySchema(document, first.url, checked);
    parseTimes.push(parsed - started);
    extractTimes.push(performance.now() - parsed);
  }
  return {
    all,
    halves: { a: scoreOf(counts.a), b: scoreOf(counts.b) },
    wrong,
    missed,
    largePageKb: html.length / 1024,
    largePageParseMedianMs: median(parseTimes),
    largePageExtractMedianMs: median(extractTimes),
  };
}

/** The quality row as the bench prints it. */
export function formatExtractQuality(quality: ExtractQuality): string {
  const line = (name: string, s: Score) =>
    `  ${name}: ${s.pages} pages, precision ${s.precision.toFixed(3)} (${s.right}/${s.returned}), recall ${s.recall.toFixed(3)} (${s.right}/${s.stated})`;
  return [
    `schema extraction without a model (${quality.all.pages} fixture pages):`,
    line('all', quality.all),
    line('half a (rules written against)', quality.halves.a),
    line('half b (confirmation)', quality.halves.b),
    ...quality.wrong.map((w) => `    wrong ${w}`),
    ...quality.missed.map((m) => `    missed ${m}`),
    `  a ${quality.largePageKb.toFixed(0)} KB page: extraction median ${quality.largePageExtractMedianMs.toFixed(1)} ms ` +
      `(its parsing before, median ${quality.largePageParseMedianMs.toFixed(1)} ms)`,
    `field precision >= 0.98: ${quality.all.precision >= 0.98 ? 'met' : 'MISSED'}`,
  ].join('\n');
}

if (process.argv[1]?.endsWith('extract-quality.ts'))
  console.log(formatExtractQuality(measureExtractQuality()));
