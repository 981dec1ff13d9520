import type { OutlineEntry, PageDigest } from '../page-digest.js';
import { readsAsFeature } from './key-features.js';
import { EXTRACTIVE_LIMITS } from './limits.js';
import { cueHits, dedupeNested, FIT_CUES, isActivity, phraseAt } from './phrases.js';
import { capitalize } from './text.js';

const USE_CASE_CUES = [
  'use it to ',
  'use it for ',
  'helps you ',
  'help you ',
  'lets you ',
  'allows you to ',
  'enables you to ',
  'so you can ',
  'helps teams ',
  'helps businesses ',
];

function isUseCaseSection(entry: OutlineEntry): boolean {
  const text = ` ${entry.section.toLowerCase()} ${entry.hint} `;
  return (
    text.includes('use case') ||
    text.includes('usecase') ||
    text.includes(' use-case') ||
    text.includes(' solutions ') ||
    text.includes('what you can do')
  );
}

/** Entries of use-case sections, then clauses after "lets you", "ideal for <activity>"...; nested duplicates merged. */
export function useCases(digest: PageDigest, sentences: readonly string[]): string[] {
  const found: string[] = [];
  for (const e of digest.outline) {
    if (!e.inMain || e.kind === 'paragraph' || !isUseCaseSection(e) || !readsAsFeature(e.text)) continue;
    // The section's own heading ("Use cases") is not one of them.
    if (e.kind === 'heading' && isUseCaseSection({ ...e, section: e.text, hint: '' })) continue;
    found.push(e.text.replace(/[.;]$/, ''));
  }
  for (const sentence of sentences) {
    const lower = sentence.toLowerCase();
    for (const cue of USE_CASE_CUES) {
      for (const at of cueHits(lower, cue))
        found.push(phraseAt(sentence, at, EXTRACTIVE_LIMITS.useCaseWords));
    }
    for (const cue of FIT_CUES) {
      for (const at of cueHits(lower, cue)) {
        const phrase = phraseAt(sentence, at, EXTRACTIVE_LIMITS.useCaseWords);
        if (isActivity(phrase.split(' ')[0] ?? '')) found.push(phrase);
      }
    }
  }
  return dedupeNested(
    found.filter((p) => p.split(' ').length >= 2).map(capitalize),
    EXTRACTIVE_LIMITS.useCases,
  );
}
