import type { PageDigest } from '../page-digest.js';
import { EXTRACTIVE_LIMITS } from './limits.js';
import { capChars } from './text.js';

/** The hero: `h1. subtitle`, the subtitle alone when it contains the h1, or the subtitle or description without an h1. */
export function valueProposition(digest: PageDigest): string {
  const h1 = digest.h1;
  const sub = digest.subtitle || digest.description;
  let text: string;
  if (h1 === '') text = sub;
  else if (sub === '' || sub.toLowerCase().includes(h1.toLowerCase())) text = sub || h1;
  else text = /[.!?:]$/.test(h1) ? `${h1} ${sub}` : `${h1}. ${sub}`;
  return capChars(text, EXTRACTIVE_LIMITS.valuePropositionChars);
}
