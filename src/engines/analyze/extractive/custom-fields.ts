import type { OutlineEntry, PageDigest } from '../page-digest.js';
import { EXTRACTIVE_LIMITS } from './limits.js';
import { capChars, contentStems, PRICE, stem } from './text.js';

// Words of a field's meaning that describe the request rather than the answer.
const QUERY_STOP: ReadonlySet<string> = new Set(
  [
    'page',
    'website',
    'site',
    'web',
    'information',
    'info',
    'detail',
    'describe',
    'description',
    'list',
    'mention',
    'text',
    'section',
    'provide',
    'available',
    'field',
    'value',
    'answer',
    'string',
  ].map(stem),
);
// Words that ask for the same thing, folded onto one stem on both sides.
const SYNONYMS: ReadonlyMap<string, string> = new Map([
  ['cost', 'pric'],
  ['fee', 'pric'],
  ['telephon', 'phone'],
  ['tel', 'phone'],
  ['mobil', 'phone'],
  ['mail', 'email'],
  ['locat', 'address'],
]);
// A field's name is its label: its words count twice those of the meaning.
const NAME_WEIGHT = 2;
const CUSTOM_MIN_COVERAGE = 0.4;
// Class and id words of a passage's container that count as its words ("price", "hours", "address").
const HINT_WORDS = 3;
const STREET =
  /\b\d+[a-z]?,? (?:[\p{Lu}][\p{L}'-]* ){1,3}(?:road|street|st|lane|avenue|ave|way|drive|place|square|boulevard|blvd|rd)\b/iu;
const EMAIL = /@[\p{L}\p{N}-]+\.\p{L}{2,}/u;

function canonical(stems: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const s of stems) out.add(SYNONYMS.get(s) ?? s);
  return out;
}

/** True when `text` holds a run of at least nine digits among spaces, dashes and brackets; one pass. */
function hasPhoneLike(text: string): boolean {
  let digits = 0;
  for (const ch of text) {
    if (ch >= '0' && ch <= '9') {
      if (++digits >= 9) return true;
    } else if (ch !== ' ' && ch !== '-' && ch !== '(' && ch !== ')' && ch !== '+' && ch !== '.') digits = 0;
  }
  return false;
}

/** Stems a passage is about: its words, its section heading, its container's hint and what its text looks like. */
function passageStems(text: string, entry: OutlineEntry | null): Set<string> {
  const hint = entry ? entry.hint.split(' ').slice(0, HINT_WORDS).join(' ') : '';
  const stems = canonical(contentStems(`${entry?.section ?? ''} ${hint} ${text}`));
  if (PRICE.test(text)) stems.add('pric');
  if (hasPhoneLike(text)) stems.add('phone');
  if (EMAIL.test(text)) stems.add('email');
  if (STREET.test(text)) stems.add('address');
  return stems;
}

interface Passage {
  readonly text: string;
  readonly stems: ReadonlySet<string>;
  readonly entry: OutlineEntry | null;
  readonly index: number;
}

/** The query of one custom field: its stems with their weights (name words count more). */
function fieldQuery(name: string, meaning: string): Map<string, number> {
  const spaced = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ');
  const query = new Map<string, number>();
  for (const s of canonical(contentStems(meaning))) if (!QUERY_STOP.has(s)) query.set(s, 1);
  for (const s of canonical(contentStems(spaced))) if (!QUERY_STOP.has(s)) query.set(s, NAME_WEIGHT);
  return query;
}

/** The list items under the same heading as `outline[index]`, joined, when the best passage is a list item. */
function wholeList(outline: readonly OutlineEntry[], index: number): string {
  const entry = outline[index] as OutlineEntry;
  let from = index;
  while (from > 0 && outline[from - 1]?.kind === 'item' && outline[from - 1]?.section === entry.section)
    from--;
  const items: string[] = [];
  for (let i = from; i < outline.length; i++) {
    const e = outline[i] as OutlineEntry;
    if (e.kind !== 'item' || e.section !== entry.section) break;
    items.push(e.text.replace(/[.;]$/, ''));
  }
  return items.join('; ');
}

/**
 * Each custom field's answer: the passage (paragraph, list item, table row or the hero) whose stems
 * cover most of the field's query, weighted by rarity on the page (idf), or '' below
 * CUSTOM_MIN_COVERAGE; a list item brings its whole list.
 */
export function answerCustom(
  digest: PageDigest,
  customFields: Readonly<Record<string, string>>,
): Record<string, string> {
  const names = Object.keys(customFields);
  if (names.length === 0) return {};
  const passages: Passage[] = [];
  for (const text of [digest.h1, digest.subtitle]) {
    if (text !== '') passages.push({ text, stems: passageStems(text, null), entry: null, index: -1 });
  }
  // The main content only: a sidebar's or footer's passage answers for another page or the site.
  digest.outline.forEach((entry, index) => {
    if (entry.kind !== 'heading' && entry.inMain)
      passages.push({ text: entry.text, stems: passageStems(entry.text, entry), entry, index });
  });
  const documentFrequency = new Map<string, number>();
  for (const p of passages)
    for (const s of p.stems) documentFrequency.set(s, (documentFrequency.get(s) ?? 0) + 1);
  const idf = (s: string): number =>
    Math.log(1 + (passages.length + 1) / (1 + (documentFrequency.get(s) ?? 0)));

  // Built with fromEntries: a field named "__proto__" becomes a plain property, not the prototype.
  const answers: [string, string][] = [];
  for (const name of names) {
    const query = fieldQuery(name, customFields[name] ?? '');
    let total = 0;
    for (const [s, weight] of query) total += weight * idf(s);
    let best: { p: Passage; coverage: number } | null = null;
    for (const p of passages) {
      let matched = 0;
      for (const [s, weight] of query) if (p.stems.has(s)) matched += weight * idf(s);
      const coverage = total > 0 ? matched / total : 0;
      // Strictly better only: of equal passages the first in page order wins (the product's own
      // price comes before the prices of related products, the pricing text before the plan cards).
      if (coverage > 0 && (!best || coverage > best.coverage)) best = { p, coverage };
    }
    if (!best || best.coverage < CUSTOM_MIN_COVERAGE) {
      answers.push([name, '']);
      continue;
    }
    const text = best.p.entry?.kind === 'item' ? wholeList(digest.outline, best.p.index) : best.p.text;
    answers.push([name, capChars(text, EXTRACTIVE_LIMITS.customChars)]);
  }
  return Object.fromEntries(answers);
}
