// Letters and digits of any script; one pass, no backtracking.
const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased word tokens of `text` (runs of Unicode letters and digits), in order. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** How many tokens `a` and `b` share, counted as multisets (a word twice in both counts twice). */
export function tokenOverlap(a: readonly string[], b: readonly string[]): number {
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
