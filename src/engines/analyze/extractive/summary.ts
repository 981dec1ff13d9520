import type { PageDigest } from '../page-digest.js';
import { EXTRACTIVE_LIMITS } from './limits.js';
import { splitSentences } from './sentences.js';
import { capChars, contentStems } from './text.js';

interface Candidate {
  readonly index: number;
  readonly text: string;
  readonly stems: ReadonlySet<string>;
}

function isProse(sentence: string): boolean {
  const n = sentence.split(' ').length;
  if (n < 8 || n > 60 || sentence.length > 400 || sentence.endsWith(':')) return false;
  // A line without final punctuation is a heading, a label or a list entry unless it is long.
  return /[.!?]["'”’)]*$/.test(sentence) || n >= 12;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let common = 0;
  for (const w of a) if (b.has(w)) common++;
  const union = a.size + b.size - common;
  return union === 0 ? 0 : common / union;
}

// Tuned on the fixtures of test/fixtures/analyze: a title word counts like a word shared by ten
// sentences; the score is divided by length^0.7 (between favouring long and short sentences); the
// first sentence gets x2, the second x1.5, the third x1.33.
const TOPIC_BONUS = 3;
const LENGTH_DAMPING = 0.7;
const LEAD_BONUS = 1;

/**
 * Centroid summary: a sentence scores by how many other sentences share its content words (words
 * found once say nothing about the page as a whole), words of the title, h1 and description count
 * extra, and earlier sentences get a small lead bonus (news and docs put the gist first).
 */
export function summarize(digest: PageDigest): string {
  const candidates: Candidate[] = [];
  for (const text of splitSentences(digest.mainText, EXTRACTIVE_LIMITS.sentences)) {
    if (isProse(text))
      candidates.push({ index: candidates.length, text, stems: new Set(contentStems(text)) });
  }
  if (candidates.length === 0) return capChars(digest.description, EXTRACTIVE_LIMITS.summaryChars);
  const frequency = new Map<string, number>();
  for (const c of candidates) for (const w of c.stems) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const topic = new Set(contentStems(`${digest.title} ${digest.h1} ${digest.description}`));
  const score = (c: Candidate): number => {
    if (c.stems.size === 0) return 0;
    let sum = 0;
    // sqrt: a word in every sentence ("check" on a monitoring page) should not drown the rest.
    for (const w of c.stems) sum += Math.sqrt((frequency.get(w) ?? 1) - 1) + (topic.has(w) ? TOPIC_BONUS : 0);
    return (sum / c.stems.size ** LENGTH_DAMPING) * (1 + LEAD_BONUS / (1 + c.index));
  };
  const ranked = candidates
    .map((c) => ({ c, s: score(c) }))
    .sort((a, b) => b.s - a.s || a.c.index - b.c.index);
  const chosen: Candidate[] = [];
  let chars = 0;
  for (const { c } of ranked) {
    if (chosen.length >= EXTRACTIVE_LIMITS.summarySentences) break;
    if (chars + c.text.length + 1 > EXTRACTIVE_LIMITS.summaryChars) continue;
    if (chosen.some((d) => jaccard(d.stems, c.stems) > 0.5)) continue;
    chosen.push(c);
    chars += c.text.length + 1;
  }
  return chosen
    .sort((a, b) => a.index - b.index)
    .map((c) => c.text)
    .join(' ');
}
