import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/*
 * The main-content development set (../shared/eval/trafilatura/, its README says what it is and
 * how it is scored), read where it lies at run time: its pages are never copied into this
 * repository.
 */

/** Where the set lies beside the checkout; DEV_SET_DIR overrides it. */
export const DEV_SET_DIR =
  process.env.DEV_SET_DIR ?? fileURLToPath(new URL('../../shared/eval/trafilatura/', import.meta.url));

/** Published F1 (and P, R where given) on this set, as its README quotes them. */
export const PUBLISHED = [
  { name: 'trafilatura 2.2.0', precision: 0.906, recall: 0.943, f1: 0.924 },
  { name: 'trafilatura 2.2.0, precision mode', precision: null, recall: null, f1: 0.92 },
  { name: 'magic-html', precision: null, recall: null, f1: 0.889 },
  { name: 'justext', precision: null, recall: null, f1: 0.862 },
  { name: 'readability-lxml', precision: null, recall: null, f1: 0.826 },
  { name: 'goose3', precision: 0.936, recall: null, f1: 0.81 },
  { name: 'webcap before issue 24', precision: 0.895, recall: 0.901, f1: 0.898 },
] as const;

export interface DevPage {
  readonly url: string;
  /** The gzipped page under html/. */
  readonly file: string;
  /** Segments the main content must hold. */
  readonly with: readonly string[];
  /** Segments it must not hold. */
  readonly without: readonly string[];
  /** 'a' or 'b': a fixed random half (by a hash of the file name), to check that a change generalizes. */
  readonly half: 'a' | 'b';
}

/** The set's pages in its own order; throws with a clear message when the set is not there. */
export function loadDevSet(dir = DEV_SET_DIR): DevPage[] {
  const index = path.join(dir, 'evaldata.json');
  if (!existsSync(index)) throw new Error(`the development set is not at ${dir} (set DEV_SET_DIR)`);
  const data = JSON.parse(readFileSync(index, 'utf8')) as Record<
    string,
    { file: string; with: string[]; without: string[] }
  >;
  return Object.entries(data).map(([url, entry]) => ({
    url,
    file: entry.file,
    with: entry.with,
    without: entry.without,
    half: (createHash('sha256').update(entry.file).digest()[0] ?? 0) % 2 === 0 ? 'a' : 'b',
  }));
}

/** The page's bytes as served (gunzipped). */
export function devPageBytes(page: DevPage, dir = DEV_SET_DIR): Buffer {
  return gunzipSync(readFileSync(path.join(dir, 'html', page.file)));
}

// A browser looks for <meta charset> / http-equiv in the document's head; 64 KB covers every head
// of this set (a few declare it after their first 1,024 bytes, which Chromium still honours).
const PRESCAN_BYTES = 65_536;
const META_CHARSET = /<meta\b[^>]{0,500}?charset\s*=\s*["']?\s*([a-z0-9_:.-]{1,40})/i;

/** The charset a browser would decode `bytes` with, absent an HTTP header: BOM, then meta, then UTF-8 if valid, else windows-1252. */
export function sniffCharset(bytes: Buffer): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  const head = bytes.subarray(0, PRESCAN_BYTES).toString('latin1');
  const declared = META_CHARSET.exec(head.slice(0, head.search(/<body[\s>]/i) >>> 0))?.[1]?.toLowerCase();
  if (declared !== undefined) {
    try {
      // As browsers do, a page that declares a UTF-16 charset in ASCII is read as UTF-8.
      const label = declared.startsWith('utf-16') ? 'utf-8' : declared;
      return new TextDecoder(label).encoding;
    } catch {
      // An unknown label: fall through to the byte checks.
    }
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return 'utf-8';
  } catch {
    return 'windows-1252';
  }
}

/** The page decoded as a browser would (sniffCharset). */
export function devPageHtml(page: DevPage, dir = DEV_SET_DIR): string {
  const bytes = devPageBytes(page, dir);
  return new TextDecoder(sniffCharset(bytes)).decode(bytes);
}

export interface SegmentCounts {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

const normalizeSpace = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The README's counts for one page: each `with` segment found is a TP (else FN), each `without` found an FP (else TN). */
export function scorePage(text: string, page: DevPage): SegmentCounts {
  const got = normalizeSpace(text);
  const counts: SegmentCounts = { tp: 0, fn: 0, fp: 0, tn: 0 };
  for (const segment of page.with) {
    if (got.includes(normalizeSpace(segment))) counts.tp++;
    else counts.fn++;
  }
  for (const segment of page.without) {
    if (got.includes(normalizeSpace(segment))) counts.fp++;
    else counts.tn++;
  }
  return counts;
}

export interface SetScore extends SegmentCounts {
  readonly pages: number;
  readonly precision: number;
  readonly recall: number;
  readonly accuracy: number;
  readonly f1: number;
}

/** Counts summed over the pages, then precision, recall, accuracy and F1 = 2TP / (2TP + FP + FN). */
export function sumScores(perPage: readonly SegmentCounts[]): SetScore {
  const sum: SegmentCounts = { tp: 0, fn: 0, fp: 0, tn: 0 };
  for (const c of perPage) {
    sum.tp += c.tp;
    sum.fn += c.fn;
    sum.fp += c.fp;
    sum.tn += c.tn;
  }
  const { tp, fn, fp, tn } = sum;
  return {
    ...sum,
    pages: perPage.length,
    precision: tp / Math.max(1, tp + fp),
    recall: tp / Math.max(1, tp + fn),
    accuracy: (tp + tn) / Math.max(1, tp + tn + fp + fn),
    f1: (2 * tp) / Math.max(1, 2 * tp + fp + fn),
  };
}
