/** Words, stems and text shaping shared by the extractive analyzer's fields. */

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

// English function words and page chrome; the analyzer's keyword methods are English-only anyway.
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have having ' +
    'he her here hers herself him himself his how i if in into is it its itself just let me more most my myself ' +
    'no nor not now of off on once only or other our ours ourselves out over own same she should so some such ' +
    'than that the their theirs them themselves then there these they this those through to too under until up ' +
    'very was we were what when where which while who whom why will with would you your yours yourself ' +
    "yourselves it's you're we're they're don't can't won't isn't one two get got may might must per via use used " +
    'using like new every many much well way make makes made within without even still yet'
  ).split(' '),
);

/** A light suffix stripper: enough for "pricing" to meet "price" and "hours" to meet "hour". */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ed', 'es', 's', 'e']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      if (suffix === 's' && word.endsWith('ss')) return word;
      return word.slice(0, -suffix.length);
    }
  }
  return word;
}

/** Lower-cased words of `text` (letters and digits, with an inner apostrophe), in order. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Stems of the content words of `text`: no stop words, no bare numbers, no single letters. */
export function contentStems(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (w.length < 2 || STOP_WORDS.has(w) || /^\p{N}+$/u.test(w)) continue;
    out.push(stem(w));
  }
  return out;
}

/** `text` with its first character upper-cased. */
export function capitalize(text: string): string {
  return text === '' ? text : text.charAt(0).toUpperCase() + text.slice(1);
}

/** `text` cut to at most `max` characters, at a word boundary when one is near, with an ellipsis. */
export function capChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '')}…`;
}

/** A price in the text ("$29", "44.95 EUR", "/mo"): not a feature, and what a custom "price" field asks for. */
export const PRICE = /[$€£¥₹]\s?\d|\d\s?(?:usd|eur|gbp|€|£|\$)(?:\b|$)|\/mo\b|per month/i;
