import type { PageDigest } from '../page-digest.js';
import { EXTRACTIVE_LIMITS } from './limits.js';
import { mainTexts } from './sentences.js';
import { CATEGORY_TAXONOMY } from './taxonomy.js';
import { stem, words } from './text.js';

// Where a keyword is found counts this much; occurrences per keyword and source are capped so that a
// long page does not win by repeating one word.
const SOURCE_WEIGHTS = { title: 3, h1: 3, description: 2, headings: 1.5, mainText: 1 } as const;
const OCCURRENCE_CAP = 3;
const CATEGORY_MIN_SCORE = 8;
const CATEGORY_MIN_SHARE = 0.35;

interface CompiledRow {
  readonly name: string;
  readonly kind: 'type' | 'topic';
  readonly keywords: readonly { readonly key: string; readonly weight: number }[];
}

// An -ing noun names an activity that its stem does not ("marketing" is not "market", "booking" not
// "book", "training" not "train"): such a keyword is matched as the whole word, and such a word on
// the page counts only as itself.
const ACTIVITY = /^\p{L}{3,}ing$/u;
const term = (word: string): string => (ACTIVITY.test(word) ? `=${word}` : stem(word));

const COMPILED: readonly CompiledRow[] = CATEGORY_TAXONOMY.map((row) => ({
  name: row.name,
  kind: row.kind,
  keywords: Object.entries(row.keywords).map(([k, weight]) => {
    const ws = words(k);
    return { key: ws.length === 1 ? term(ws[0] as string) : ws.map(stem).join(' '), weight };
  }),
}));

// A capitalised word with a possessive is a name ("Student's t-test", "Parkinson's disease",
// "McDonald's"): it says nothing about what kind of page this is. Linear: a match can start only
// at the first letter of a run of letters, and the run is read once.
const NAMED = /(?<![\p{L}\p{N}])\p{Lu}\p{L}*['’]s(?![\p{L}\p{N}])/gu;

/** Counts of the terms and stem pairs of `text` (pairs over all words, so "add to" and "on call" match). */
function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  let previous = '';
  for (const w of words(text.replace(NAMED, ' '))) {
    const t = term(w);
    counts.set(t, (counts.get(t) ?? 0) + 1);
    const s = stem(w);
    if (previous !== '') {
      const pair = `${previous} ${s}`;
      counts.set(pair, (counts.get(pair) ?? 0) + 1);
    }
    previous = s;
  }
  return counts;
}

/** A category's evidence on one page. */
export interface CategoryEvidence {
  readonly name: string;
  readonly kind: 'type' | 'topic';
  readonly score: number;
  /** Distinct keywords found. */
  readonly keywords: number;
  /** Whether a keyword is in what the page says it is: its title, h1, description or headings. */
  readonly stated: boolean;
  /** Whether a keyword is in its main text. */
  readonly inBody: boolean;
}

/** Every category's evidence on `digest`, in taxonomy order. */
export function categoryEvidence(digest: PageDigest): CategoryEvidence[] {
  const sources = [
    { counts: termCounts(digest.title), weight: SOURCE_WEIGHTS.title, stated: true },
    { counts: termCounts(digest.h1), weight: SOURCE_WEIGHTS.h1, stated: true },
    { counts: termCounts(digest.description), weight: SOURCE_WEIGHTS.description, stated: true },
    {
      counts: termCounts(mainTexts(digest, 'heading').join('\n')),
      weight: SOURCE_WEIGHTS.headings,
      stated: true,
    },
    { counts: termCounts(digest.mainText), weight: SOURCE_WEIGHTS.mainText, stated: false },
  ];
  return COMPILED.map((row) => {
    let score = 0;
    let keywords = 0;
    let stated = false;
    let inBody = false;
    for (const { key, weight } of row.keywords) {
      let found = false;
      for (const source of sources) {
        const n = source.counts.get(key) ?? 0;
        if (n === 0) continue;
        found = true;
        if (source.stated) stated = true;
        else inBody = true;
        score += weight * source.weight * Math.min(n, OCCURRENCE_CAP);
      }
      if (found) keywords++;
    }
    return { name: row.name, kind: row.kind, score, keywords, stated, inBody };
  });
}

/**
 * Whether the evidence is enough to name the category: a score of at least CATEGORY_MIN_SCORE from
 * at least two distinct keywords, found both where the page says what it is (title, h1,
 * description, headings) and in its main text. One word, or words only in passing in the body,
 * are how an article on a statistics method comes to look like a local business.
 */
function confident(c: CategoryEvidence): boolean {
  return c.score >= CATEGORY_MIN_SCORE && c.keywords >= 2 && c.stated && c.inBody;
}

/** At most one type and then the topics `digest` gives confident evidence of, best first (docs/analyze-extractive.md). */
export function categories(digest: PageDigest): string[] {
  const scored = categoryEvidence(digest)
    .map((c, order) => ({ ...c, order }))
    .filter(confident)
    .sort((a, b) => b.score - a.score || a.order - b.order);
  // Types and topics are ranked apart: a news story about trams scores higher on its topic than on
  // being news, and both answers are wanted.
  const type = scored.find((c) => c.kind === 'type');
  const topics = scored.filter((c) => c.kind === 'topic');
  const top = topics[0]?.score ?? 0;
  return [
    ...(type ? [type.name] : []),
    ...topics.filter((c) => c.score >= top * CATEGORY_MIN_SHARE).map((c) => c.name),
  ].slice(0, EXTRACTIVE_LIMITS.categories);
}
