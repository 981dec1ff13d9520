import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { parseHTML } from 'linkedom';
import { plainText } from '../src/engines/content/main-content.js';

/*
 * The second main-content set (../shared/eval/readability/: Mozilla Readability's 130 test pages
 * with Readability's own article as the reference), read where it lies at run time and never
 * copied here, scored as its README says the held-out benchmark scores: 4-token shingles of
 * `[\p{L}\p{N}_]+` words, precision and recall per page, each averaged over the pages, F1 from
 * the two averages.
 */

/** Where the set lies beside the checkout; READABILITY_SET_DIR overrides it. */
export const READABILITY_SET_DIR =
  process.env.READABILITY_SET_DIR ??
  fileURLToPath(new URL('../../shared/eval/readability/', import.meta.url));

// The address Readability's own test suite reads every page at.
export const READABILITY_PAGE_URL = 'http://fakehost/test/page.html';

export interface ReadabilityPage {
  readonly name: string;
  readonly source: string;
  /** The reference article's text (block elements end lines). */
  readonly expected: string;
}

/** The set's pages by name; throws with a clear message when the set is not there. */
export function loadReadabilitySet(dir = READABILITY_SET_DIR): ReadabilityPage[] {
  const pagesDir = path.join(dir, 'pages');
  if (!existsSync(pagesDir))
    throw new Error(`the readability set is not at ${dir} (set READABILITY_SET_DIR)`);
  const read = (name: string, file: string) =>
    gunzipSync(readFileSync(path.join(pagesDir, name, file))).toString('utf8');
  return readdirSync(pagesDir)
    .sort()
    .map((name) => ({
      name,
      source: read(name, 'source.html.gz'),
      expected: htmlText(read(name, 'expected.html.gz')),
    }));
}

/** The text of an HTML fragment with a newline at each block element, as the README scores it. */
export function htmlText(fragment: string): string {
  return plainText(parseHTML(`<!DOCTYPE html><html><body>${fragment}</body></html>`).document.body);
}

const TOKEN = /[\p{L}\p{N}_]+/gu;
const SHINGLE = 4;

/** 4-token shingles of `text` as a multiset; a text of fewer tokens is one shingle of them all. */
function shingles(text: string): Map<string, number> {
  const tokens = text.match(TOKEN) ?? [];
  const out = new Map<string, number>();
  const last = Math.max(0, tokens.length - SHINGLE);
  for (let i = 0; i <= last && tokens.length > 0; i++) {
    const key = tokens.slice(i, i + SHINGLE).join(' ');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

export interface PagePR {
  readonly precision: number;
  readonly recall: number;
}

/** Precision and recall of one page's extracted text against its reference (an empty side scores 0, both empty 1). */
export function scoreShingles(extracted: string, expected: string): PagePR {
  const got = shingles(extracted);
  const want = shingles(expected);
  const size = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const gotSize = size(got);
  const wantSize = size(want);
  if (gotSize === 0 && wantSize === 0) return { precision: 1, recall: 1 };
  let common = 0;
  for (const [key, n] of got) common += Math.min(n, want.get(key) ?? 0);
  return { precision: gotSize === 0 ? 0 : common / gotSize, recall: wantSize === 0 ? 0 : common / wantSize };
}

export interface ShingleScore {
  readonly pages: number;
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

/** Precision and recall averaged over the pages, F1 from the two averages. */
export function averageScores(perPage: readonly PagePR[]): ShingleScore {
  const n = Math.max(1, perPage.length);
  const precision = perPage.reduce((s, p) => s + p.precision, 0) / n;
  const recall = perPage.reduce((s, p) => s + p.recall, 0) / n;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { pages: perPage.length, precision, recall, f1 };
}
