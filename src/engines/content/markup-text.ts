/*
 * Markup that a page shows as text: a tag escaped into a paragraph (`<img src=...>` of a tracking
 * pixel, `<video controls>`), or the attribute tail of a tag a template broke
 * (`src="/clip.mp4" type="video/mp4">`). No reader wants it as words, and in Markdown it reads
 * as markup that is not there. Every quantifier is bounded, and a match starts only at a `<` or an
 * attribute name, so a page's text is scanned in linear time whatever it holds.
 */

// Element names of HTML that a page's own markup leaks as text; a `<T x=1>` in prose stays.
const TAG_NAMES: ReadonlySet<string> = new Set(
  (
    'a abbr audio b blockquote br button div em embed figure form h1 h2 h3 h4 h5 h6 hr i iframe img ' +
    'input label li link meta noscript object ol p param picture script section source span strong ' +
    'style svg table td th tr track ul video'
  ).split(' '),
);

// A tag with an attribute: `<img>` or `<ul>` alone is more often prose about HTML ("a single <img>").
const TAG = /<([a-z][a-z0-9]{0,10})\s[^<>=]{0,200}=[^<>]{0,1000}>/gi;
const ATTRIBUTE_TAIL = /(?:^|\s)(?:[a-z][\w:-]{0,30}=(?:"[^"<>]{0,500}"|'[^'<>]{0,500}')\s*){1,20}\/?>/gi;

/** `text` without the HTML tags and broken tag tails written in it; unchanged when it has none. */
export function withoutMarkupText(text: string): string {
  if (!text.includes('>')) return text;
  return text
    .replace(TAG, (tag, name: string) => (TAG_NAMES.has(name.toLowerCase()) ? '' : tag))
    .replace(ATTRIBUTE_TAIL, '');
}
