import { tokenOverlap, wordTokens } from '../../src/engines/content/word-tokens.js';

export interface TokenScore {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
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
