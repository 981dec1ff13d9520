import { Readability } from '@mozilla/readability';
import { DefuddleClass } from 'defuddle/node';
import { parseHTML } from 'linkedom';
import { wordTokens } from './token-f1.js';

export interface MainContent {
  /** The main content as an HTML fragment (serialised), absolute URLs kept as in the page. */
  readonly html: string;
  /** True when no main content was found and the cleaned body was returned instead. */
  readonly fallback: boolean;
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
// Page furniture by tag or role; the fallback body drops these too.
const FURNITURE = new Set(['NAV', 'HEADER', 'FOOTER', 'ASIDE']);
const FURNITURE_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'dialog',
  'alertdialog',
]);
// Comment threads and consent banners by their conventional ids; both extractors drop them anyway,
// and on comment-heavy pages they are most of the elements defuddle's selector pass walks.
const FURNITURE_IDS = new Set([
  'comments',
  'disqus_thread',
  'respond',
  'cookie-consent',
  'cookie-banner',
  'onetrust-consent-sdk',
]);

function isFurniture(el: Element): boolean {
  const name = el.tagName.toUpperCase();
  if (FURNITURE.has(name)) {
    // A header inside the article holds its title block; a page header holding the article is rare
    // but real (the article would go with it), so keep any furniture that contains an article.
    if (name === 'HEADER' && el.closest('article, main, [role="main"]')) return false;
    return el.querySelector('article, main, [role="main"]') === null;
  }
  const role = el.getAttribute('role');
  if (role && FURNITURE_ROLES.has(role.toLowerCase())) return el.querySelector('article, main') === null;
  return FURNITURE_IDS.has(el.id.toLowerCase());
}

/** Removes what is never main content from `root` (scripts except JSON-LD, styles, embeds, nav/header/footer/aside, comment threads); iterative. */
function prune(root: Element): void {
  const doomed: Element[] = [];
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const el = stack.pop() as Element;
    const name = el.tagName.toUpperCase();
    // defuddle reads schema.org data (articleBody, headline) from JSON-LD.
    const keep = name === 'SCRIPT' && el.getAttribute('type') === 'application/ld+json';
    if (!keep && el !== root && (NEVER.has(name) || isFurniture(el) || el.hasAttribute('hidden'))) {
      doomed.push(el);
      continue;
    }
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  }
  for (const el of doomed) el.remove();
}

function pruned(document: Document): Document {
  const copy = document.cloneNode(true) as Document;
  if (copy.documentElement) prune(copy.documentElement);
  return copy;
}

/** Defuddle's main content of a copy of `document` (never calls out: useAsync is off). */
export function defuddleHtml(document: Document, pageUrl: string): string {
  const copy = document.cloneNode(true) as Document;
  return new DefuddleClass(copy, { url: pageUrl, useAsync: false }).parse().content;
}

/** Readability's article HTML of a copy of `document`, or '' when it finds none. */
export function readabilityHtml(document: Document): string {
  const copy = document.cloneNode(true) as Document;
  return new Readability(copy, { charThreshold: 250 }).parse()?.content ?? '';
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

function overlap(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const t of b) counts.set(t, (counts.get(t) ?? 0) + 1);
  let n = 0;
  for (const t of a) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      n++;
      counts.set(t, left - 1);
    }
  }
  return n;
}

/**
 * Chooses between defuddle's (d) and Readability's (r) candidates by how their words overlap:
 * defuddle's cleaning is finer (share bars, tag lists, teasers inside the article), Readability's
 * choice of container is steadier (defuddle's class rules sometimes delete the article itself, and
 * it falls back to the whole body more often).
 */
function choose(d: Candidate, r: Candidate, bodyTokens: number): Candidate {
  if (r.tokens.length === 0) return d;
  if (d.tokens.length === 0) return r;
  const common = overlap(d.tokens, r.tokens);
  const dInR = common / d.tokens.length; // how much of defuddle's text Readability also kept
  const rInD = common / r.tokens.length; // how much of Readability's text defuddle also kept
  if (dInR >= 0.85) return rInD >= 0.55 ? d : r; // d is r cleaned, unless it cut most of it away
  if (rInD >= 0.85) return d.tokens.length >= 0.9 * bodyTokens ? r : d; // d is r plus more: body fallback or a part r missed
  return r;
}

/** The page's main content; must not mutate `document` (every method works on its own clone). */
export function extractMainContent(document: Document, pageUrl: string): MainContent {
  const work = pruned(document);
  const body = work.body ? work.body.innerHTML : '';
  const bodyTokens = work.body ? wordTokens(plainText(work.body)).length : 0;
  const dHtml = new DefuddleClass(work.cloneNode(true) as Document, { url: pageUrl, useAsync: false }).parse()
    .content;
  const r = candidate(
    new Readability(work.cloneNode(true) as Document, { charThreshold: 250 }).parse()?.content ?? '',
  );
  // defuddle returns the whole <body> when it found no content element: that is no candidate.
  const d = dHtml.trimStart().slice(0, 5).toLowerCase() === '<body' ? NO_CANDIDATE : candidate(dHtml);
  const best = choose(d, r, bodyTokens);
  if (best.tokens.length < MIN_WORDS) return { html: body, fallback: true };
  dropLeadingTitle(best.root, pageTitles(document));
  absoluteUrls(best.root, pageUrl);
  return { html: best.root.innerHTML, fallback: false };
}
