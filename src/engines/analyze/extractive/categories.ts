import type { PageDigest } from '../page-digest.js';
import { EXTRACTIVE_LIMITS } from './limits.js';
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

const COMPILED: readonly CompiledRow[] = CATEGORY_TAXONOMY.map((row) => ({
  name: row.name,
  kind: row.kind,
  keywords: Object.entries(row.keywords).map(([k, weight]) => ({
    key: words(k).map(stem).join(' '),
    weight,
  })),
}));

/** Counts of the stems and stem pairs of `text` (pairs over all words, so "add to" and "on call" match). */
function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  let previous = '';
  for (const w of words(text)) {
    const s = stem(w);
    counts.set(s, (counts.get(s) ?? 0) + 1);
    if (previous !== '') {
      const pair = `${previous} ${s}`;
      counts.set(pair, (counts.get(pair) ?? 0) + 1);
    }
    previous = s;
  }
  return counts;
}

/** At most one type and then the topics `digest` scores high enough on, best first (docs/analyze-extractive.md). */
export function categories(digest: PageDigest): string[] {
  const sources = [
    { counts: termCounts(digest.title), weight: SOURCE_WEIGHTS.title },
    { counts: termCounts(digest.h1), weight: SOURCE_WEIGHTS.h1 },
    { counts: termCounts(digest.description), weight: SOURCE_WEIGHTS.description },
    { counts: termCounts(digest.headings.join('\n')), weight: SOURCE_WEIGHTS.headings },
    { counts: termCounts(digest.mainText), weight: SOURCE_WEIGHTS.mainText },
  ];
  const scored = COMPILED.map((row, order) => {
    let score = 0;
    for (const { key, weight } of row.keywords) {
      for (const source of sources)
        score += weight * source.weight * Math.min(source.counts.get(key) ?? 0, OCCURRENCE_CAP);
    }
    return { name: row.name, kind: row.kind, score, order };
  })
    .filter((c) => c.score >= CATEGORY_MIN_SCORE)
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
