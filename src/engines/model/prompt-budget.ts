/**
 * How much of a page goes into a model's prompt: ANALYZE_MAX_INPUT_TOKENS, counted at
 * CHARS_PER_TOKEN characters a token, shared by every use of the model (analysis, extraction) so
 * that one setting bounds them all the same way.
 */

/** The budget is in tokens; text is counted at this many characters per token (English BPE averages ~4). */
export const CHARS_PER_TOKEN = 4;

const TRUNCATED = '\n[… the rest of the page is cut]';

/** Cuts text to at most `max` characters at the last paragraph (else line, else word) boundary. */
export function cutAtBoundary(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  for (const boundary of ['\n\n', '\n', ' ']) {
    const at = head.lastIndexOf(boundary);
    if (at > max * 0.5) return head.slice(0, at);
  }
  return head;
}

/** The parts of a page block, in order of priority. */
export interface PageParts {
  /** What identifies the page (URL, title): first, cut to the budget only if it alone exceeds it. */
  readonly head: string;
  /** What comes next (an outline, hints): cut to `asideShare` of the budget, left out if it does not fit after the head. */
  readonly aside: string;
  readonly asideShare: number;
  /** The page's content: what room is left, cut at a paragraph boundary and marked as cut. */
  readonly body: string;
}

/** The page block within `maxInputTokens` × CHARS_PER_TOKEN characters. */
export function fitPage(parts: PageParts, maxInputTokens: number): string {
  const budget = maxInputTokens * CHARS_PER_TOKEN;
  let text = cutAtBoundary(parts.head, budget);
  const aside = cutAtBoundary(parts.aside, Math.floor(budget * parts.asideShare));
  if (text.length + aside.length <= budget) text += aside;
  const room = budget - text.length;
  if (parts.body.length <= room) return text + parts.body;
  if (room > TRUNCATED.length + 100) text += cutAtBoundary(parts.body, room - TRUNCATED.length) + TRUNCATED;
  return text;
}
