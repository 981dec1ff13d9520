import { STOP_WORDS } from './text.js';

/** Phrases after cue words, found by plain string search: what use cases and the target audience read. */

// A clause ends at these; a phrase after a cue word is read up to the first of them.
const CLAUSE_END = new Set(['.', ';', ':', '!', '?', '(', '—', '–', '|']);
const CLAUSE_JOINERS = [', and ', ', but ', ', so ', ', which ', ' so that ', ' because '];

/** Up to `maxWords` words of `sentence` from `from`, stopping at the end of the clause. */
export function phraseAt(sentence: string, from: number, maxWords: number): string {
  let end = sentence.length;
  for (let i = from; i < sentence.length; i++) {
    if (
      CLAUSE_END.has(sentence[i] as string) &&
      (sentence[i] !== '.' || /\s|$/.test(sentence[i + 1] ?? ''))
    ) {
      end = i;
      break;
    }
  }
  let text = sentence.slice(from, end);
  const lower = text.toLowerCase();
  for (const joiner of CLAUSE_JOINERS) {
    const at = lower.indexOf(joiner);
    if (at >= 0 && at < text.length) text = text.slice(0, at);
  }
  const kept = text
    .split(' ')
    .filter((w) => w !== '')
    .slice(0, maxWords);
  // A phrase cut short should not end on "to" or "the".
  while (kept.length > 1 && STOP_WORDS.has((kept[kept.length - 1] as string).toLowerCase())) kept.pop();
  return kept.join(' ').replace(/[,"'”’)]+$/, '');
}

/** Each place in `sentence` (lower-cased in `lower`) where `cue` starts at a word boundary. */
export function* cueHits(lower: string, cue: string): Generator<number> {
  for (let at = lower.indexOf(cue); at >= 0; at = lower.indexOf(cue, at + 1)) {
    if (at === 0 || !/[\p{L}\p{N}]/u.test(lower[at - 1] as string)) yield at + cue.length;
  }
}

// "Ideal for X": a use case when X is an activity ("ideal for baking"), an audience otherwise.
export const FIT_CUES = [
  'ideal for ',
  'perfect for ',
  'great for ',
  'built for ',
  'designed for ',
  'made for ',
  'created for ',
  'tailored for ',
  'aimed at ',
];
// -ing words that are not activities.
const NOT_ACTIVITIES: ReadonlySet<string> = new Set([
  'nothing',
  'something',
  'anything',
  'everything',
  'morning',
  'evening',
  'thing',
  'things',
  'during',
  'king',
  'spring',
  'ceiling',
  'building',
  'wedding',
  'string',
  'ring',
]);

export function isActivity(word: string): boolean {
  const w = word.toLowerCase();
  return w.length > 4 && w.endsWith('ing') && !NOT_ACTIVITIES.has(w);
}

export function dedupeNested(phrases: readonly string[], max: number): string[] {
  const out: string[] = [];
  for (const p of phrases) {
    const lower = p.toLowerCase();
    const inside = out.findIndex((o) => o.toLowerCase().includes(lower) || lower.includes(o.toLowerCase()));
    if (inside < 0) {
      if (out.length < max) out.push(p);
    } else if (p.length > (out[inside] as string).length) out[inside] = p;
  }
  return out;
}
