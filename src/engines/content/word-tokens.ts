// Letters and digits of any script; one pass, no backtracking.
const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased word tokens of `text` (runs of Unicode letters and digits), in order. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}
