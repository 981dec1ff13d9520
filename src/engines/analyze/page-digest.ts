import { parseHTML } from 'linkedom';
import { blockTagsFor, NO_TEXT } from '../content/html-blocks.js';
import { type JsonLdNode, readJsonLd } from '../content/json-ld.js';
import { extractMainContent, plainText } from '../content/main-content.js';
import { extractMetadata } from '../content/metadata.js';
import { furnitureFor } from '../content/page-furniture.js';

/** Where a heading, paragraph or list item sits on the page: what analyzers need beyond the flat lists. */
export interface OutlineEntry {
  readonly kind: 'heading' | 'paragraph' | 'item';
  /** 2-4 for a heading, 0 otherwise. */
  readonly level: number;
  readonly text: string;
  /** The nearest heading above the entry of a higher rank (for an h3, the h2 it is under; for a paragraph or item, any h1-h4). */
  readonly section: string;
  /** Lower-cased class and id words of the elements around the entry, nearest first (`features grid card`). */
  readonly hint: string;
  /**
   * Whether its text is part of the main content (`mainText`): what a page says about itself, as
   * opposed to menus, sidebars and promos that no class name gives away.
   */
  readonly inMain: boolean;
}

/** What an analyzer reads from a rendered page; every string is trimmed, whitespace-collapsed and capped. */
export interface PageDigest {
  readonly url: string;
  readonly title: string;
  readonly description: string;
  readonly language: string;
  /** The first visible h1. */
  readonly h1: string;
  /** The first paragraph-like text after the h1 within its hero, else the meta description. */
  readonly subtitle: string;
  /** Visible h2-h4 in page order, deduplicated. */
  readonly headings: readonly string[];
  readonly paragraphs: readonly string[];
  readonly listItems: readonly string[];
  /** Headings, paragraphs and list items in page order with their section and container hints. */
  readonly outline: readonly OutlineEntry[];
  /** The main content's plain text, one block per line. */
  readonly mainText: string;
  /** Whom the page's schema.org markup says it is for (an `audience`'s `audienceType` or `name`), or ''. */
  readonly audience: string;
}

/** Caps on every count and length of a digest, and on the work of reading one page. */
export const DIGEST_LIMITS = Object.freeze({
  titleChars: 300,
  descriptionChars: 1_000,
  headingChars: 200,
  paragraphChars: 1_000,
  itemChars: 300,
  headings: 80,
  paragraphs: 300,
  listItems: 300,
  mainTextChars: 50_000,
  // Elements the page walk visits; a page with more is read only this far.
  elements: 200_000,
  // Nodes read for the text of one element, so that a huge paragraph cannot cost more than its cap.
  textNodes: 2_000,
  hintWords: 12,
  audienceChars: 200,
});

// Never visible text.
const SKIP_TAGS = new Set([
  ...NO_TEXT,
  'IFRAME',
  'OBJECT',
  'CANVAS',
  'HEAD',
  'SELECT',
  'TEXTAREA',
  'BUTTON',
  'DIALOG',
]);
// Site furniture (page-furniture.ts): menus, footers and sidebars (most read, related, table of
// contents) say nothing about this page.
const FURNITURE = furnitureFor('digest');
const HEADING = /^H([1-4])$/;
const PARAGRAPH_TAGS = new Set(['P', 'ADDRESS', 'DD', 'FIGCAPTION', 'SUMMARY']);
const BLOCK_TAGS = blockTagsFor('digest');
const LIST_TAGS = new Set(['UL', 'OL']);
const WHITESPACE = /\s+/g;
const WORD_SPLIT = /[^a-z0-9]+/;

function clean(text: string, maxChars: number): string {
  const t = text.replace(WHITESPACE, ' ').trim();
  if (t.length <= maxChars) return t;
  // Cut at a word boundary when one is near, so a capped text does not end mid-word.
  const cut = t.slice(0, maxChars);
  const space = cut.lastIndexOf(' ');
  return (space > maxChars * 0.8 ? cut.slice(0, space) : cut).trimEnd();
}

function classWords(el: Element): string[] {
  const raw = `${el.getAttribute('class') ?? ''} ${el.id ?? ''}`.toLowerCase();
  return raw.split(WORD_SPLIT).filter((w) => w !== '');
}

function isHidden(el: Element): boolean {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return true;
  // Only inline styles can be read here: the input is serialized DOM without computed styles.
  const style = (el.getAttribute('style') ?? '').toLowerCase().replace(WHITESPACE, '');
  return style.includes('display:none') || style.includes('visibility:hidden');
}

function isFurniture(el: Element, name: string, words: readonly string[]): boolean {
  if (FURNITURE.tags.has(name)) return true;
  const role = el.getAttribute('role');
  if (role && FURNITURE.roles.has(role.toLowerCase())) return true;
  return words.some((w) => FURNITURE.words.has(w));
}

interface BoundedText {
  readonly text: string;
  /** True when all of the text is inside links of the element: a menu entry or a teaser of another page. */
  readonly linkOnly: boolean;
}

/**
 * The text of `el` read through at most DIGEST_LIMITS.textNodes nodes and about `maxChars`
 * characters, skipping SKIP_TAGS, hidden elements and (for list items) nested lists.
 */
function boundedText(el: Element, maxChars: number, skipLists: boolean): BoundedText {
  const parts: string[] = [];
  let chars = 0;
  let linkChars = 0;
  let visited = 0;
  const lineBreak = el.tagName.toUpperCase() === 'ADDRESS' ? ', ' : ' ';
  const stack: { node: Node; inLink: boolean }[] = [{ node: el, inLink: false }];
  while (stack.length > 0 && chars < maxChars && visited < DIGEST_LIMITS.textNodes) {
    const { node, inLink } = stack.pop() as { node: Node; inLink: boolean };
    visited++;
    if (node.nodeType === 3) {
      const value = node.nodeValue ?? '';
      parts.push(value);
      const visible = value.trim().length;
      chars += visible;
      if (inLink) linkChars += visible;
      continue;
    }
    if (node.nodeType !== 1) continue;
    const child = node as Element;
    const name = child.tagName.toUpperCase();
    if (name === 'BR') {
      parts.push(lineBreak);
      continue;
    }
    if (node !== el && (SKIP_TAGS.has(name) || isHidden(child) || (skipLists && LIST_TAGS.has(name))))
      continue;
    if (node !== el && BLOCK_TAGS.has(name)) parts.push(' ');
    const link = inLink || name === 'A';
    for (let c = node.lastChild; c; c = c.previousSibling) stack.push({ node: c, inLink: link });
  }
  const text = clean(parts.join(''), maxChars)
    .replace(/ ,/g, ',')
    .replace(/^,\s*|,\s*$/g, '');
  return { text, linkOnly: chars > 0 && linkChars >= chars };
}

// Cells of a table row read this far; a row is a paragraph ("Weight: 2.4 kg").
const ROW_CELLS = 8;

/** A table row as one line: "label: value" for two cells, cells joined by " | " otherwise. */
function rowText(tr: Element): string {
  const cells: string[] = [];
  for (let c = tr.firstElementChild; c && cells.length < ROW_CELLS; c = c.nextElementSibling) {
    const name = c.tagName.toUpperCase();
    if (name !== 'TD' && name !== 'TH') continue;
    const { text } = boundedText(c, DIGEST_LIMITS.itemChars, false);
    if (text !== '') cells.push(text);
  }
  return clean(cells.length === 2 ? cells.join(': ') : cells.join(' | '), DIGEST_LIMITS.paragraphChars);
}

/** A div whose children are all inline: the paragraph of pages built from divs only. */
function isTextDiv(el: Element): boolean {
  let hasText = false;
  let n = 0;
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (++n > 50) return false;
    if (c.nodeType === 3 && (c.nodeValue ?? '').trim() !== '') hasText = true;
    if (c.nodeType === 1 && BLOCK_TAGS.has((c as Element).tagName.toUpperCase())) return false;
  }
  return hasText;
}

// A subtitle shorter than this is a label (a price, a rating, a date), not a sentence about the page.
const SUBTITLE_MIN_WORDS = 6;
// Elements after the h1 looked at for its subtitle.
const SUBTITLE_LOOKAHEAD = 40;
const HERO_CONTAINERS = 'section, header, article, main, [class*="hero"]';

/** The element after `el` in document order inside `root`, entering `el` only when `descend`. */
function nextInOrder(el: Element, root: Element, descend: boolean): Element | null {
  if (descend && el.firstElementChild) return el.firstElementChild;
  for (let at: Element | null = el; at && at !== root; at = at.parentElement) {
    if (at.nextElementSibling) return at.nextElementSibling;
  }
  return null;
}

function letterWords(text: string): number {
  let n = 0;
  for (const w of text.split(' ')) if (/\p{L}/u.test(w)) n++;
  return n;
}

/** The first paragraph-like text of at least SUBTITLE_MIN_WORDS words after `h1` inside its hero container. */
function heroSubtitle(h1: Element): string {
  const hero = h1.closest(HERO_CONTAINERS) ?? h1.ownerDocument.body;
  let el = nextInOrder(h1, hero, false);
  for (let seen = 0; el && seen < SUBTITLE_LOOKAHEAD; seen++) {
    const name = el.tagName.toUpperCase();
    // The next section's heading ends the hero.
    if (HEADING.test(name)) return '';
    let descend = !SKIP_TAGS.has(name) && !isHidden(el);
    if (descend && (PARAGRAPH_TAGS.has(name) || (name === 'DIV' && isTextDiv(el)))) {
      const { text, linkOnly } = boundedText(el, DIGEST_LIMITS.descriptionChars, false);
      // Words with letters only: a price or a rating line is not a subtitle.
      if (!linkOnly && letterWords(text) >= SUBTITLE_MIN_WORDS) return text;
      descend = false;
    }
    el = nextInOrder(el, hero, descend);
  }
  return '';
}

interface Frame {
  readonly el: Element;
  /** Class and id words of the ancestors, nearest first. */
  readonly hint: readonly string[];
  /** Inside a list item: its paragraphs are part of the item's text. */
  readonly inItem: boolean;
}

function mainTextOf(html: string): string {
  const { document: fragment } = parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`);
  const lines: string[] = [];
  let total = 0;
  for (const line of plainText(fragment.body).split('\n')) {
    const t = line.replace(WHITESPACE, ' ').trim();
    if (t === '') continue;
    lines.push(t);
    total += t.length + 1;
    if (total >= DIGEST_LIMITS.mainTextChars) break;
  }
  return lines.join('\n').slice(0, DIGEST_LIMITS.mainTextChars);
}

const NOT_WORD = /[^\p{L}\p{N}]+/gu;

/** `text` as lower-cased words between single spaces, so that a table row "Weight: 2.4 kg" meets its cells' lines. */
function wordKey(text: string): string {
  return ` ${text.toLowerCase().replace(NOT_WORD, ' ').trim()} `;
}

function audienceOf(value: unknown): string {
  for (const item of Array.isArray(value) ? value : [value]) {
    if (typeof item === 'string' && item.trim() !== '') return item;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const node = item as JsonLdNode;
    for (const key of ['audienceType', 'name']) {
      const stated = audienceOf(node[key]);
      if (stated !== '') return stated;
    }
  }
  return '';
}

/** The first `audience` the page's JSON-LD states for one of its nodes (schema.org `Audience`), or ''. */
function statedAudience(document: Document): string {
  for (const node of readJsonLd(document).nodes) {
    const stated = audienceOf(node.audience);
    if (stated !== '') return clean(stated, DIGEST_LIMITS.audienceChars);
  }
  return '';
}

/**
 * What an analyzer reads from `document` (the rendered page at `pageUrl`): metadata, hero,
 * visible headings, paragraphs and list items (nav, footer, aside, hidden, consent banners and
 * link-only entries skipped; deduplicated), and the main content's text (`mainHtml`, the page's
 * extractMainContent, when the caller has it already). One iterative walk of at most
 * DIGEST_LIMITS.elements elements; every count and length is capped; never mutates `document`.
 */
export function digestPage(
  document: Document,
  pageUrl: string,
  mainHtml: string = extractMainContent(document, pageUrl).html,
): PageDigest {
  const meta = extractMetadata(document, pageUrl);
  const description = clean(meta.description, DIGEST_LIMITS.descriptionChars);
  const headings: string[] = [];
  const paragraphs: string[] = [];
  const listItems: string[] = [];
  const outline: OutlineEntry[] = [];
  const mainText = mainTextOf(mainHtml);
  const mainKey = wordKey(mainText);
  const seen = { heading: new Set<string>(), paragraph: new Set<string>(), item: new Set<string>() };
  // The latest heading text at each rank 1-4, so that an entry knows the section it is under.
  const current: string[] = ['', '', '', '', ''];
  let h1: Element | null = null;
  let h1Text = '';

  const sectionAbove = (level: number): string => {
    for (let l = level - 1; l >= 1; l--) if (current[l]) return current[l] as string;
    return '';
  };
  const add = (kind: OutlineEntry['kind'], level: number, text: string, hint: readonly string[]): void => {
    const list = kind === 'heading' ? headings : kind === 'paragraph' ? paragraphs : listItems;
    const cap =
      kind === 'heading'
        ? DIGEST_LIMITS.headings
        : kind === 'paragraph'
          ? DIGEST_LIMITS.paragraphs
          : DIGEST_LIMITS.listItems;
    const key = text.toLowerCase();
    if (text === '' || list.length >= cap || seen[kind].has(key)) return;
    seen[kind].add(key);
    list.push(text);
    const textKey = wordKey(text);
    outline.push({
      kind,
      level,
      text,
      section: sectionAbove(level || 5),
      hint: hint.join(' '),
      inMain: textKey.trim() !== '' && mainKey.includes(textKey),
    });
  };

  const stack: Frame[] = document.body ? [{ el: document.body, hint: [], inItem: false }] : [];
  let visited = 0;
  const full = (): boolean =>
    headings.length >= DIGEST_LIMITS.headings &&
    paragraphs.length >= DIGEST_LIMITS.paragraphs &&
    listItems.length >= DIGEST_LIMITS.listItems;
  // Once every list is full the rest of the page cannot add anything (the h1 is looked for first
  // in document order, so it has been seen by then if it comes before the capped content).
  while (stack.length > 0 && visited < DIGEST_LIMITS.elements && !full()) {
    const { el, hint, inItem } = stack.pop() as Frame;
    visited++;
    const name = el.tagName.toUpperCase();
    const words = classWords(el);
    // The one element that says what its text is; the custom-field matcher reads hints.
    if (name === 'ADDRESS') words.push('address');
    if (SKIP_TAGS.has(name) || isHidden(el) || isFurniture(el, name, words)) continue;
    const here = words.length > 0 ? [...words, ...hint].slice(0, DIGEST_LIMITS.hintWords) : hint;
    const heading = HEADING.exec(name);
    if (heading) {
      const level = Number(heading[1]);
      const { text, linkOnly } = boundedText(el, DIGEST_LIMITS.headingChars, false);
      if (text === '' || linkOnly) continue;
      current[level] = text;
      for (let l = level + 1; l < current.length; l++) current[l] = '';
      if (level === 1) {
        if (!h1) {
          h1 = el;
          h1Text = text;
        }
      } else add('heading', level, text, here);
      continue;
    }
    if (name === 'TR') {
      const text = rowText(el);
      if (text !== '') add('paragraph', 0, text, here);
      continue;
    }
    if (name === 'LI') {
      const { text, linkOnly } = boundedText(el, DIGEST_LIMITS.itemChars, true);
      if (!linkOnly) add('item', 0, text, here);
    } else if (!inItem && (PARAGRAPH_TAGS.has(name) || (name === 'DIV' && isTextDiv(el)))) {
      const { text, linkOnly } = boundedText(el, DIGEST_LIMITS.paragraphChars, false);
      if (!linkOnly) add('paragraph', 0, text, here);
      continue;
    }
    const child: Frame = { el, hint: here, inItem: inItem || name === 'LI' };
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push({ ...child, el: c });
  }

  return {
    url: pageUrl,
    title: clean(meta.title, DIGEST_LIMITS.titleChars),
    description,
    language: meta.language,
    h1: h1Text,
    subtitle: (h1 ? heroSubtitle(h1) : '') || description,
    headings,
    paragraphs,
    listItems,
    outline,
    mainText,
    audience: statedAudience(document),
  };
}
