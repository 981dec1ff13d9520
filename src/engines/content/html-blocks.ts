/**
 * HTML's blocks as the text readers see them: the elements where one piece of a page's text ends
 * and the next begins. Three readers take them, each entry naming which:
 * - `plain-text`: main-content.ts's plainText, a newline before each block (the text main content
 *   counts words in, the digest's main text, the development set's scoring);
 * - `text-blocks`: text-blocks.ts's countText, where each text node belongs to its nearest block,
 *   which main content chooses its container and cleans it by;
 * - `digest`: the analyzer's page-digest.ts, a space before a nested block's text, and a div of
 *   inline children only read as a paragraph.
 * Where a tag is not a block for every reader and no other reason is given, the difference is kept
 * because the readers' output is measured with it (main content on the development set,
 * bench/content-dev-quality.ts): changing an entry changes the extraction, to be measured.
 */

export type BlockReader = 'plain-text' | 'text-blocks' | 'digest';

/** `tag` an element name, lower-case; matched against an element's tagName case-insensitively. */
export interface BlockEntry {
  readonly tag: string;
  readonly readers: readonly BlockReader[];
}

const ALL = ['plain-text', 'text-blocks', 'digest'] as const;

export const HTML_BLOCKS = [
  { tag: 'address', readers: ALL },
  { tag: 'article', readers: ALL },
  { tag: 'aside', readers: ALL },
  { tag: 'blockquote', readers: ALL },
  { tag: 'div', readers: ALL },
  { tag: 'dl', readers: ALL },
  { tag: 'figure', readers: ALL },
  { tag: 'footer', readers: ALL },
  { tag: 'form', readers: ALL },
  { tag: 'h1', readers: ALL },
  { tag: 'h2', readers: ALL },
  { tag: 'h3', readers: ALL },
  { tag: 'h4', readers: ALL },
  { tag: 'h5', readers: ALL },
  { tag: 'h6', readers: ALL },
  { tag: 'header', readers: ALL },
  { tag: 'li', readers: ALL },
  { tag: 'main', readers: ALL },
  { tag: 'nav', readers: ALL },
  { tag: 'ol', readers: ALL },
  { tag: 'p', readers: ALL },
  { tag: 'pre', readers: ALL },
  { tag: 'section', readers: ALL },
  { tag: 'table', readers: ALL },
  { tag: 'ul', readers: ALL },
  // Not a line of its own in plain text.
  { tag: 'details', readers: ['text-blocks', 'digest'] },
  // The digest reads these as units of their own (a dd or figcaption is a paragraph, a row's cells
  // are joined by rowText), not as breaks inside a larger block's text.
  { tag: 'dd', readers: ['plain-text', 'text-blocks'] },
  { tag: 'dt', readers: ['plain-text', 'text-blocks'] },
  { tag: 'figcaption', readers: ['plain-text', 'text-blocks'] },
  { tag: 'tr', readers: ['plain-text', 'text-blocks'] },
  { tag: 'td', readers: ['plain-text', 'text-blocks'] },
  { tag: 'th', readers: ['plain-text', 'text-blocks'] },
  // Line breaks without text of their own: nothing to count in them, and the digest writes a br
  // itself (a comma in an address).
  { tag: 'br', readers: ['plain-text'] },
  { tag: 'hr', readers: ['plain-text'] },
  // The page's top: text written straight into the body is a block of its own for the counts.
  { tag: 'html', readers: ['text-blocks'] },
  { tag: 'body', readers: ['text-blocks'] },
  // A table's parts: plain text already breaks at each row.
  { tag: 'caption', readers: ['text-blocks'] },
  { tag: 'thead', readers: ['text-blocks'] },
  { tag: 'tbody', readers: ['text-blocks'] },
  { tag: 'tfoot', readers: ['text-blocks'] },
  // The digest reads a summary as a paragraph.
  { tag: 'summary', readers: ['text-blocks'] },
  { tag: 'center', readers: ['text-blocks'] },
  { tag: 'fieldset', readers: ['text-blocks'] },
] as const satisfies readonly BlockEntry[];

/** The tags `reader` takes as blocks, upper-case as an HTML element's tagName is. */
export function blockTagsFor(reader: BlockReader): ReadonlySet<string> {
  const entries: readonly BlockEntry[] = HTML_BLOCKS;
  return new Set(entries.filter((e) => e.readers.includes(reader)).map((e) => e.tag.toUpperCase()));
}

/**
 * Elements whose content is never text a reader of the page sees: scripts, styles, templates,
 * drawings, and noscript (what a page shows only without scripts). Upper-case.
 */
export const NO_TEXT: ReadonlySet<string> = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG']);
