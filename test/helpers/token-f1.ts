import { wordTokens } from '../../src/engines/content/word-tokens.js';

export interface TokenScore {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

/** How many tokens `a` and `b` share, counted as multisets (a word twice in both counts twice). */
function tokenOverlap(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const t of b) counts.set(t, (counts.get(t) ?? 0) + 1);
  let n = 0;
  for (const t of a) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      n++;
      counts.set(t, left - 1);
    }
  }
  return n;
}

/**
 * Token-level precision, recall and F1 of `extracted` against `reference`, counting tokens as a
 * multiset (a word found twice in the reference can match twice). Two empty texts score 1.
 */
export function tokenF1(extracted: string, reference: string): TokenScore {
  const got = wordTokens(extracted);
  const want = wordTokens(reference);
  if (got.length === 0 && want.length === 0) return { precision: 1, recall: 1, f1: 1 };
  const overlap = tokenOverlap(got, want);
  const precision = got.length === 0 ? 0 : overlap / got.length;
  const recall = want.length === 0 ? 0 : overlap / want.length;
  const f1 = overlap === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}
