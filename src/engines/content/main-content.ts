import { Readability } from '@mozilla/readability';
import { DefuddleClass } from 'defuddle/node';
import { parseHTML } from 'linkedom';
import { elementBudget } from './element-budget.js';
import { isJsonLdScript, jsonLdWithinBounds } from './json-ld.js';
import { furnitureFor } from './page-furniture.js';
import { tokenOverlap, wordTokens } from './word-tokens.js';

export interface MainContent {
  /** The main content as an HTML fragment (serialised), absolute URLs kept as in the page. */
  readonly html: string;
  /** True when no main content was found and the cleaned body was returned instead. */
  readonly fallback: boolean;
  /** True when the page (after pruning) had more elements than the main-content search takes. */
  readonly tooLarge: boolean;
  /** Elements kept after pruning. */
  readonly elements: number;
}

const BLOCK = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BR',
  'DD',
  'DIV',
  'DL',
  'DT',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'TABLE',
  'TD',
  'TH',
  'TR',
  'UL',
]);
const NO_TEXT = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG']);

/** The visible text of `root`: text nodes in document order, a newline between blocks; no recursion. */
export function plainText(root: Node): string {
  const out: string[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.nodeType === 3) {
      out.push(node.nodeValue ?? '');
      continue;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) continue;
    const name = (node as Element).tagName?.toUpperCase() ?? '';
    if (NO_TEXT.has(name)) continue;
    if (BLOCK.has(name)) out.push('\n');
    for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
  }
  return out.join('');
}

// Never content, whatever the page: removed before either extractor sees the page.
const NEVER = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'CANVAS',
  'LINK',
  'META',
  'INPUT',
  'SELECT',
  'TEXTAREA',
  'BUTTON',
  'DIALOG',
]);
// Page furniture (page-furniture.ts); the fallback body drops it too.
const FURNITURE = furnitureFor('main-content');

function isFurniture(el: Element): boolean {
  const name = el.tagName.toUpperCase();
  if (FURNITURE.tags.has(name)) {
    // A header inside the article holds its title block; a page header holding the article is rare
    // but real (the article would go with it), so keep any furniture that contains an article.
    if (name === 'HEADER' && el.closest('article, main, [role="main"]')) return false;
    return el.querySelector('article, main, [role="main"]') === null;
  }
  const role = el.getAttribute('role');
  if (role && FURNITURE.roles.has(role.toLowerCase())) return el.querySelector('article, main') === null;
  return FURNITURE.ids.has(el.id.toLowerCase());
}

// Both extractors slow down superlinearly with nesting depth (a chain of 200 divs costs defuddle
// ~600 ms, 10,000 never finishes); article text rarely sits deeper than 30 levels, so anything below
// this depth is kept as its text only.
const MAX_DEPTH = 64;

/**
 * Removes what is never main content from `root` (scripts except JSON-LD, styles, embeds,
 * nav/header/footer/aside, comment threads) and flattens nesting beyond MAX_DEPTH; iterative.
 */
function prune(root: Element): number {
  let kept = 0;
  const doomed: Element[] = [];
  const stack: { el: Element; depth: number }[] = [{ el: root, depth: 0 }];
  while (stack.length > 0) {
    const { el, depth } = stack.pop() as { el: Element; depth: number };
    const name = el.tagName.toUpperCase();
    // defuddle reads schema.org data (articleBody, headline) from JSON-LD, recursively: only
    // what is within json-ld.ts's bounds reaches it.
    const keep = name === 'SCRIPT' && isJsonLdScript(el) && jsonLdWithinBounds(el.textContent ?? '');
    if (!keep && el !== root && (NEVER.has(name) || isFurniture(el) || el.hasAttribute('hidden'))) {
      doomed.push(el);
      continue;
    }
    kept++;
    if (depth >= MAX_DEPTH && el.firstElementChild) {
      el.textContent = plainText(el);
      continue;
    }
    for (let c = el.lastElementChild; c; c = c.previousElementSibling)
      stack.push({ el: c, depth: depth + 1 });
  }
  for (const el of doomed) el.remove();
  return kept;
}

/** A copy of `document` without what is never content, and how many elements it kept. */
function pruned(document: Document): { readonly work: Document; readonly elements: number } {
  const work = document.cloneNode(true) as Document;
  return { work, elements: work.documentElement ? prune(work.documentElement) : 0 };
}

interface Candidate {
  /** The candidate parsed into a document of its own, so that finishing it never touches the page. */
  readonly root: HTMLElement;
  readonly tokens: readonly string[];
}

const NO_CANDIDATE: Candidate = { root: parseHTML('<html><body></body></html>').document.body, tokens: [] };

function candidate(html: string): Candidate {
  const { document } = parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`);
  return { root: document.body, tokens: wordTokens(plainText(document.body)) };
}

// Below this many words, what an extractor returns is a stray line, not the page's content.
const MIN_WORDS = 25;

function normalised(text: string): string {
  return wordTokens(text).join(' ');
}

/**
 * Drops the article's own title from the top of the content: the page's title is metadata, and
 * extractors differ in whether they keep it (defuddle drops an h1 it recognises, Readability keeps
 * headings inside its container, role="heading" divs pass both).
 */
function dropLeadingTitle(root: HTMLElement, titles: readonly string[]): void {
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const el = stack.pop() as Element;
    const name = el.tagName.toUpperCase();
    const text = normalised(el.textContent ?? '');
    // Extractors strip the attributes that mark a title (role="heading", classes), so any element
    // whose whole text is the title counts; a heading may also be the title without the site's name.
    const isHeading = /^H[1-3]$/.test(name);
    if (text !== '' && titles.some((t) => t === text || (isHeading && t.startsWith(`${text} `)))) {
      el.remove();
      return;
    }
    // Stop at the first real paragraph: a title further down is a heading of the article.
    if (name === 'P' && text.split(' ').length > 25) return;
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  }
}

/** Resolves relative href and src values against the page (Readability keeps them as written). */
function absoluteUrls(root: HTMLElement, pageUrl: string): void {
  for (const [selector, attr] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const el of root.querySelectorAll(selector)) {
      const value = el.getAttribute(attr) ?? '';
      if (URL.canParse(value)) continue;
      try {
        el.setAttribute(attr, new URL(value, pageUrl).href);
      } catch {
        // An unresolvable URL stays as written; the Markdown converter drops it.
      }
    }
  }
}

function pageTitles(document: Document): string[] {
  const titles = [normalised(document.title ?? '')];
  const h1 = document.querySelector('h1');
  if (h1) titles.push(normalised(h1.textContent ?? ''));
  return titles.filter((t) => t !== '');
}

/**
 * defuddle's cleaning of Readability's article (d) unless it cut most of it away: its class rules
 * sometimes delete the article itself (a paragraph component named "card-content"), and then
 * Readability's article (r) is the better answer.
 */
function cleanedOrWhole(d: Candidate, r: Candidate): Candidate {
  if (d.tokens.length === 0) return r;
  const common = tokenOverlap(d.tokens, r.tokens);
  return common / r.tokens.length >= 0.55 && common / d.tokens.length >= 0.85 ? d : r;
}

/**
 * `tight` when it is a tighter container than `base`: inside it (85 % of its words are in `base`),
 * shorter, and still holding most of `base` (Readability takes a whole layout table where defuddle
 * takes the article's cell).
 */
function tighter(tight: Candidate, base: Candidate): Candidate {
  if (tight.tokens.length === 0 || tight.tokens.length >= base.tokens.length) return base;
  const common = tokenOverlap(tight.tokens, base.tokens);
  return common / tight.tokens.length >= 0.85 && common / base.tokens.length >= 0.55 ? tight : base;
}

// Pages up to this many elements (after pruning) also get defuddle's own search of the whole page,
// a second opinion on Readability's container; above it that costs more than the time budget
// (linkedom's selector matching makes defuddle ~0.1-0.3 ms per element).
const SECOND_OPINION_MAX_ELEMENTS = 1500;
// An article larger than this (a very long page, or a comment section Readability took for the
// article) is returned as Readability has it: cleaning it would cost defuddle seconds.
const CLEANING_MAX_ELEMENTS = 2000;

/** defuddle's content of `document` (which it mutates), or no candidate when it fell back to the whole body. */
function defuddled(document: Document, pageUrl: string): Candidate {
  const html = new DefuddleClass(document, { url: pageUrl, useAsync: false }).parse().content;
  return html.trimStart().slice(0, 5).toLowerCase() === '<body' ? NO_CANDIDATE : candidate(html);
}

/**
 * The page's main content as HTML with relative href/src resolved against `pageUrl`, or the cleaned
 * body with `fallback` set when none is found; never mutates `document` (all work is on copies).
 */
export function extractMainContent(
  document: Document,
  pageUrl: string,
  maxElements = elementBudget().mainContentElements,
): MainContent {
  const { work, elements } = pruned(document);
  const body = () => (work.body ? work.body.innerHTML : '');
  if (elements > maxElements) return { html: body(), fallback: true, tooLarge: true, elements };
  // Classes are kept for defuddle's rules below.
  const rHtml =
    new Readability(work.cloneNode(true) as Document, { keepClasses: true }).parse()?.content ?? '';
  const r = candidate(rHtml);
  let best: Candidate;
  if (r.tokens.length >= MIN_WORDS && r.root.querySelectorAll('*').length > CLEANING_MAX_ELEMENTS) {
    best = r;
  } else if (r.tokens.length >= MIN_WORDS) {
    // Readability chooses the container, defuddle cleans it (share bars, teasers, tag lists inside
    // the article): defuddle over the whole page costs 5-10x Readability and, on a real news set,
    // falls back to the whole body on one page in six.
    const article = parseHTML(
      `<!DOCTYPE html><html><head>${work.head?.innerHTML ?? ''}</head><body><article>${rHtml}</article></body></html>`,
    ).document;
    best = cleanedOrWhole(defuddled(article, pageUrl), r);
    if (elements <= SECOND_OPINION_MAX_ELEMENTS)
      best = tighter(defuddled(work.cloneNode(true) as Document, pageUrl), best);
  } else {
    // Readability found nothing: defuddle's own search of the page is the second opinion.
    best = defuddled(work.cloneNode(true) as Document, pageUrl);
  }
  if (best.tokens.length < MIN_WORDS) return { html: body(), fallback: true, tooLarge: false, elements };
  dropLeadingTitle(best.root, pageTitles(document));
  absoluteUrls(best.root, pageUrl);
  return { html: best.root.innerHTML, fallback: false, tooLarge: false, elements };
}
