import type { PageDigest } from '../page-digest.js';
import { EXTRACTIVE_LIMITS } from './limits.js';

// Abbreviations after which a period does not end a sentence even before a capital ("Dr. Lindqvist").
const ABBREVIATIONS: ReadonlySet<string> = new Set([
  'e.g',
  'i.e',
  'cf',
  'dr',
  'mr',
  'mrs',
  'ms',
  'prof',
  'st',
  'vs',
  'no',
  'fig',
  'inc',
  'ltd',
  'jr',
  'sr',
  'mt',
  'approx',
  'u.s',
  'u.k',
]);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']']);

function isSentenceStart(ch: string): boolean {
  return /[\p{Lu}\p{N}"'“‘(]/u.test(ch);
}

/**
 * Sentences of `text` in order: each line is split at . ! ? followed by a space and a capital, a
 * digit or a quote, except after an abbreviation or an initial. One pass per line, no regex over it.
 */
export function splitSentences(text: string, maxSentences: number): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let start = 0;
    for (let i = 0; i < line.length && out.length < maxSentences; i++) {
      const ch = line[i] as string;
      if (ch !== '.' && ch !== '!' && ch !== '?') continue;
      let end = i + 1;
      while (end < line.length && CLOSERS.has(line[end] as string)) end++;
      if (end >= line.length || line[end] !== ' ') continue;
      let next = end;
      while (next < line.length && line[next] === ' ') next++;
      if (next >= line.length || !isSentenceStart(line[next] as string)) continue;
      if (ch === '.') {
        let w = i;
        while (w > start && line[w - 1] !== ' ') w--;
        const before = line
          .slice(w, i)
          .toLowerCase()
          .replace(/^[("'“‘]+/, '');
        if (ABBREVIATIONS.has(before) || /^\p{L}$/u.test(before)) continue;
      }
      const sentence = line.slice(start, end).trim();
      if (sentence !== '') out.push(sentence);
      start = next;
      i = next - 1;
    }
    const rest = line.slice(start).trim();
    if (rest !== '' && out.length < maxSentences) out.push(rest);
    if (out.length >= maxSentences) break;
  }
  return out;
}

/** The hero's texts: h1, subtitle, description and title, those the page has. */
export function heroTexts(digest: PageDigest): string[] {
  return [digest.h1, digest.subtitle, digest.description, digest.title].filter((t) => t !== '');
}

/** Texts of the main content's headings or paragraphs, in page order (never menus, sidebars or promos). */
export function mainTexts(digest: PageDigest, kind: 'heading' | 'paragraph'): string[] {
  return digest.outline.filter((e) => e.kind === kind && e.inMain).map((e) => e.text);
}

/** Sentences of the hero, then the main content's headings and paragraphs, capped. */
export function pageSentences(digest: PageDigest): string[] {
  const blocks = [...heroTexts(digest), ...mainTexts(digest, 'heading'), ...mainTexts(digest, 'paragraph')];
  return splitSentences(blocks.join('\n'), EXTRACTIVE_LIMITS.sentences);
}
