import type { OutlineEntry, PageDigest } from '../page-digest.js';
import { EXTRACTIVE_LIMITS } from './limits.js';
import { PRICE, stem, words } from './text.js';

// Section headings or container classes that announce features (stems).
const FEATURE_CUES: ReadonlySet<string> = new Set(
  ['feature', 'benefit', 'why', 'capability', 'highlight', 'advantage', 'key'].map(stem),
);
// Sections that list what a business offers (stems and phrases).
const OFFER_CUES: ReadonlySet<string> = new Set(['service', 'offer', 'product', 'include', 'menu'].map(stem));
const OFFER_PHRASES = ['what we ', 'what you get', "what's included", 'what is included'];
const YEAR = /\b(?:19|20)\d\d\b/;
const TIME = /\b\d{1,2}[:.]\d{2}\b/;

function cueWords(entry: OutlineEntry): Set<string> {
  return new Set([...words(entry.section), ...entry.hint.split(' ')].map(stem));
}

function hasCue(set: ReadonlySet<string>, cues: ReadonlySet<string>): boolean {
  for (const w of set) if (cues.has(w)) return true;
  return false;
}

/** Whether a list item or heading reads as a feature: 2-16 words, not a question, no price. */
export function readsAsFeature(text: string): boolean {
  const n = text.split(' ').length;
  return (
    n >= 2 &&
    n <= 16 &&
    text.length <= EXTRACTIVE_LIMITS.featureChars &&
    !text.endsWith('?') &&
    !PRICE.test(text)
  );
}

/** Short headings and list items of the main content's feature or offer sections; loose list items when nothing is announced. */
export function keyFeatures(digest: PageDigest): string[] {
  // Only the main content: a sidebar's promo list reads just like a feature list.
  const outline = digest.outline.filter((e) => e.inMain);
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (text: string): void => {
    const key = text.toLowerCase();
    if (out.length < EXTRACTIVE_LIMITS.keyFeatures && !seen.has(key) && readsAsFeature(text)) {
      seen.add(key);
      out.push(text.replace(/[.;,]$/, ''));
    }
  };
  // 1. Headings and list items of feature sections. A heading that names the section ("Features")
  // is skipped, and of headings at several levels only the deepest count: "Everything you need" over
  // six h3 cards is the section's title, the cards are the features.
  const inFeatures = outline.filter(
    (e) =>
      e.kind !== 'paragraph' &&
      hasCue(cueWords(e), FEATURE_CUES) &&
      !(e.kind === 'heading' && hasCue(new Set(words(e.text).map(stem)), FEATURE_CUES)),
  );
  const deepest = inFeatures.reduce((max, e) => Math.max(max, e.level), 0);
  for (const e of inFeatures) if (e.kind === 'item' || e.level === deepest) push(e.text);
  // 2. List items of sections that say what is offered ("What we bake", "Services", "Menu").
  for (const e of outline) {
    if (e.kind !== 'item') continue;
    const section = `${e.section.toLowerCase()} `;
    if (hasCue(cueWords(e), OFFER_CUES) || OFFER_PHRASES.some((p) => section.includes(p))) push(e.text);
  }
  // 3. Nothing announced: capitalised, short list items that are not dates, times or prices, if a
  // page has at least three of them (one stray bullet is not a feature list).
  if (out.length === 0) {
    const loose = outline.filter(
      (e) =>
        e.kind === 'item' &&
        /^[\p{Lu}]/u.test(e.text) &&
        !YEAR.test(e.text) &&
        !TIME.test(e.text) &&
        readsAsFeature(e.text),
    );
    if (loose.length >= 3) for (const e of loose) push(e.text);
  }
  return out;
}
