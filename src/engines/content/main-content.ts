import { furnitureName, hasContentName, isIngredientList } from './boilerplate-names.js';
import { elementBudget } from './element-budget.js';
import { blockTagsFor, NO_TEXT } from './html-blocks.js';
import { removeInvisible } from './invisible.js';
import { withoutMarkupText } from './markup-text.js';
import { furnitureFor } from './page-furniture.js';
import { countText, PROSE_MAX_LINK_DENSITY, type TextCounts } from './text-blocks.js';
import { wordTokens } from './word-tokens.js';

export interface MainContent {
  /** The main content as an HTML fragment (serialised), absolute URLs kept as in the page. */
  readonly html: string;
  /** True when no main content was found and the cleaned body was returned instead. */
  readonly fallback: boolean;
  /** True when the page (after pruning) had more elements than the main-content search takes. */
  readonly tooLarge: boolean;
  /** Elements kept after pruning. */
  readonly elements: number;
  /** With `fallback`, the words of the body's first h1s (the page's own title among them, when kept). */
  readonly h1s: readonly string[];
  /** The heading dropped from the top of the content as the article's title, as the page showed it; null when none was. */
  readonly title: string | null;
}

const BLOCK = blockTagsFor('plain-text');

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
  ...NO_TEXT,
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
  'HEAD',
  'TITLE',
  // Captions and credits of pictures: the picture is not in the text, and neither is what labels it.
  'FIGCAPTION',
  // Players: a picture of their own, and their text is the fallback for browsers without them.
  'VIDEO',
  'AUDIO',
  // Ruby annotations (the reading of Japanese and Chinese characters): between the characters they
  // annotate, they would break the text's words apart.
  'RT',
  'RP',
]);
// Page furniture (page-furniture.ts); the fallback body drops it too.
const FURNITURE = furnitureFor('main-content');

// A header inside one of these is that section's own header (an article's title, standfirst and
// byline), not the page's banner: https://www.w3.org/TR/html-aam-1.0/#el-header
const SECTIONING = 'article, aside, main, nav, section';

/** The element's role when it is one of page furniture's (navigation, banner, dialog...), else null. */
function furnitureRole(el: Element): string | null {
  const role = el.getAttribute('role')?.toLowerCase();
  return role !== undefined && FURNITURE.roles.has(role) ? role : null;
}

/** A landmark that is page furniture by its tag, role or id (page-furniture.ts). */
function isFurniture(el: Element, name: string): boolean {
  const sectionHeader = name === 'HEADER' && el.parentElement?.closest(SECTIONING) != null;
  if (FURNITURE.tags.has(name) && !sectionHeader) return true;
  if (furnitureRole(el) !== null) return true;
  return FURNITURE.ids.has(el.id.toLowerCase());
}

/**
 * A landmark the page declares furniture by its tag or role (nav, aside, footer, complementary,
 * dialog...), as against one only named so: a declaration, not a convention, so its size does not
 * keep it. A page header is the exception: it may hold the article (the page's h1 keeps it).
 */
function declaredLandmark(el: Element, name: string): boolean {
  if (name === 'HEADER') return false;
  if (FURNITURE.tags.has(name)) return true;
  const role = furnitureRole(el);
  return role !== null && role !== 'banner';
}

// Both extractors slow down superlinearly with nesting depth (a chain of 200 divs costs defuddle
// ~600 ms, 10,000 never finishes); article text rarely sits deeper than 30 levels, so anything below
// this depth is kept as its text only.
const MAX_DEPTH = 64;

// How far above a noscript an article body's name is looked for.
const NOSCRIPT_BODY_LEVELS = 3;

/**
 * A noscript that holds the article for clients without scripts (Blogger serves its posts so): one
 * in an element named as an article's body (boilerplate-names.ts) that has no other text. Where a
 * script has filled the body (a rendered page), it has text and the noscript goes as usual.
 */
function articleInNoscript(noscript: Element): boolean {
  let body: Element | null = noscript.parentElement;
  for (let level = 1; body !== null && level < NOSCRIPT_BODY_LEVELS && !hasContentName(body); level++)
    body = body.parentElement;
  return body !== null && hasContentName(body) && plainText(body).trim() === '';
}

/**
 * Removes what is never main content from `root` (scripts, styles, embeds, form controls, hidden
 * elements) and flattens nesting beyond MAX_DEPTH; iterative. An article served in a noscript
 * (articleInNoscript) is taken out of it.
 */
function prune(root: Element): number {
  let kept = 0;
  const doomed: Element[] = [];
  const unwrapped: Element[] = [];
  const stack: { el: Element; depth: number }[] = [{ el: root, depth: 0 }];
  while (stack.length > 0) {
    const { el, depth } = stack.pop() as { el: Element; depth: number };
    const name = el.tagName.toUpperCase();
    if (name === 'NOSCRIPT' && articleInNoscript(el)) unwrapped.push(el);
    else if (el !== root && (NEVER.has(name) || el.hasAttribute('hidden'))) {
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
  for (const el of unwrapped) el.replaceWith(...el.childNodes);
  return kept;
}

/** `document` (or a copy of it) without what is never content, and how many elements it kept. */
function pruned(
  document: Document,
  inPlace: boolean,
): { readonly work: Document; readonly elements: number } {
  const work = inPlace ? document : (document.cloneNode(true) as Document);
  return { work, elements: work.documentElement ? prune(work.documentElement) : 0 };
}

// Below this many words, what was found is a stray line, not the page's content.
const MIN_WORDS = 25;

function normalized(text: string): string {
  return wordTokens(text).join(' ');
}

/** A title as a reader sees it: its case and punctuation kept, its whitespace one space. */
function asShown(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

// How much a container loses for each character of link text and of stray short text it holds,
// against each character of prose it gains.
const LINK_COST = 1;
const SHORT_COST = 0.3;

const STYLE_MAX_CHARS = 300;

/** An inline style that hides the element (display: none, visibility: hidden). */
function hiddenByStyle(el: Element): boolean {
  const style = el.getAttribute('style');
  if (style === null) return false;
  const compact = style.slice(0, STYLE_MAX_CHARS).toLowerCase().replaceAll(' ', '');
  return compact.includes('display:none') || compact.includes('visibility:hidden');
}

/** Hidden from assistive technology: decoration, or a copy of text shown elsewhere (a carousel's clones). */
function ariaHidden(el: Element): boolean {
  return el.getAttribute('aria-hidden')?.trim().toLowerCase() === 'true';
}

// Elements a class or id never removes: WordPress and others put the article's tags and categories
// in the classes of its <article> and <body>.
const NEVER_BY_NAME: ReadonlySet<string> = new Set(['HTML', 'BODY', 'ARTICLE', 'MAIN']);
// Furniture is kept when it holds more than this share of the page's text (a layout wrapper named
// "has-sidebar" around the article), prose counting fully, stray fragments less, links not at all;
// on a page without prose there is no article to keep.
const FURNITURE_MAX_TEXT_SHARE = 0.5;

// A prose block this long (weighted characters) is a paragraph of the article; shorter ones between
// the title and the standfirst are bylines and datelines ("Ein Artikel von ..., veröffentlicht am ...").
const STANDFIRST_ENDS_CHARS = 150;

function textWeight(c: TextCounts): number {
  return c.prose + SHORT_COST * c.short;
}

/**
 * The elements that hold a formula (MathML): a formula is never furniture, whatever its renderer
 * names its wrappers (MathJax's "CtxtMenu_Attached"). One walk up from each formula.
 */
function formulaHolders(body: Element): Set<Element> {
  const holders = new Set<Element>();
  for (const math of body.querySelectorAll('math')) {
    for (let up: Element | null = math; up !== null && !holders.has(up); up = up.parentElement)
      holders.add(up);
  }
  return holders;
}

/**
 * Removes page furniture: landmarks (nav, header, footer, aside and their roles), elements named
 * so by class or id (boilerplate-names.ts; never one that holds a formula), unless one holds the
 * page's h1, or most of its text and is not a declared landmark (declaredLandmark): a name is a
 * convention, not a proof (a page header may hold the article, a wrapper named "has-sidebar" does).
 * Comment threads and consent notices go whatever their size: they often outweigh a short article,
 * and are never one. So do elements hidden by an inline style, as the rendered path removes what
 * the browser did not display (a hidden copy of the article is as long as the article), unless
 * they hold all of the page's prose (a body hidden until a script shows it).
 */
function removeNamedFurniture(body: Element): void {
  const counts = countText(body);
  const formulas = formulaHolders(body);
  const named: Element[] = [];
  const always: Element[] = [];
  const hidden = new Set<Element>();
  let hiddenProse = 0;
  // A teaser that links elsewhere is another page's; one without a link, after the page's title and
  // before the article's first paragraph (counts run in document order), is the article's own
  // standfirst. A byline or a dateline written as a sentence is not that paragraph.
  let afterTitle = counts.get(body)?.h1 !== true;
  let proseSeen = false;
  for (const [el, c] of counts) {
    const tag = el.tagName.toUpperCase();
    if (tag === 'H1') afterTitle = true;
    const name = NEVER_BY_NAME.has(tag) ? null : furnitureName(el);
    const protectedEl = c.h1 || hasContentName(el);
    const byName = name !== null && !formulas.has(el);
    if (name === 'teaser' && !protectedEl) {
      if (c.links > 0 || !afterTitle || proseSeen) named.push(el);
    } else if ((name === 'thread' || name === 'consent') && !protectedEl) always.push(el);
    else if (hiddenByStyle(el) && !protectedEl) {
      // Counts run in document order: an outer hidden element is met before what it holds.
      let outer = true;
      for (let up = el.parentElement; up !== null && outer; up = up.parentElement) outer = !hidden.has(up);
      if (outer) hiddenProse += c.prose;
      hidden.add(el);
    } else if ((isFurniture(el, tag) || byName || ariaHidden(el)) && !protectedEl) named.push(el);
    if (afterTitle && c.kind === 'prose' && c.own >= STANDFIRST_ENDS_CHARS) proseSeen = true;
  }
  const weight = (el: Element) => textWeight(counts.get(el) as TextCounts);
  const all = counts.get(body) as TextCounts;
  for (const el of hidden) (all.prose > hiddenProse ? always : named).push(el);
  let page = textWeight(all);
  // Smallest first, each against what is left: of two large ones (a dialog's long text and a
  // wrapper named "sidebar_right" around the article) the first to go leaves the other holding most
  // of the page.
  named.sort((x, y) => weight(x) - weight(y));
  const removed = new Set<Element>(always);
  const gone = (el: Element) => {
    for (let up: Element | null = el; up !== null; up = up.parentElement) if (removed.has(up)) return true;
    return false;
  };
  for (const el of always) if (el.parentElement === null || !gone(el.parentElement)) page -= weight(el);
  for (const el of named) {
    if (gone(el)) continue;
    const guarded = !declaredLandmark(el, el.tagName.toUpperCase());
    if (guarded && all.prose > 0 && weight(el) > page * FURNITURE_MAX_TEXT_SHARE) continue;
    removed.add(el);
    page -= weight(el);
  }
  for (const el of removed) el.remove();
}

function containerScore(c: TextCounts): number {
  return c.prose - LINK_COST * c.links - SHORT_COST * c.short;
}

/** The element whose subtree holds the most prose for the least link text and stray fragments; the deepest on a tie. */
function bestContainer(body: Element, counts: ReadonlyMap<Element, TextCounts>): Element {
  let best = body;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const [el, c] of counts) {
    const score = containerScore(c);
    if (score >= bestScore) {
      best = el;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The container's parent, and so on up, while the paragraphs beside the container (its parent's
 * children that are prose blocks themselves) hold at least as much prose as it does: the container
 * was then one part of the article (a wiki page's list among its paragraphs, one section of a
 * report), chosen over the whole because link lists elsewhere in the whole (navigation boxes at a
 * wiki page's end) weigh against it. Teasers beside an article are seldom bare paragraphs; the link
 * blocks taken in with the whole go later (removeLinkBlocks). Never up to the body.
 */
function widenToSiblings(
  container: Element,
  body: Element,
  counts: ReadonlyMap<Element, TextCounts>,
): Element {
  let widened = container;
  for (
    let up = widened.parentElement;
    up !== null && widened !== body && up !== body;
    up = up.parentElement
  ) {
    let beside = 0;
    for (let child = up.firstElementChild; child; child = child.nextElementSibling) {
      const c = counts.get(child);
      if (child !== widened && c?.kind === 'prose') beside += c.prose;
    }
    if (beside === 0 || beside < (counts.get(widened) as TextCounts).prose) break;
    widened = up;
  }
  return widened;
}

/** The first element of `el`'s subtree (itself included) with text of its own, or null; iterative. */
function firstBlock(el: Element, counts: ReadonlyMap<Element, TextCounts>): Element | null {
  const stack: Element[] = [el];
  while (stack.length > 0) {
    const next = stack.pop() as Element;
    if ((counts.get(next)?.own ?? 0) > 0) return next;
    for (let c = next.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  }
  return null;
}

/** The heading (h2-h6) an element opens with, as its tag, or null. */
function openingHeading(el: Element, counts: ReadonlyMap<Element, TextCounts>): string | null {
  const first = firstBlock(el, counts);
  const tag = first?.tagName.toUpperCase() ?? '';
  return SECTION_HEADINGS.has(tag) ? tag : null;
}

// The article's core is the part of the container that holds at least this share of its score.
const CORE_SHARE = 0.7;

/**
 * Ends the container where its core ends. The core is found by going down from the container into
 * the child (a wrapper, not a block of text) that holds CORE_SHARE of the container's score, as long
 * as one does. What follows the core inside the container is mostly the site's (author boxes,
 * related articles, newsletter pitches, contacts); what precedes it is mostly the article's (its
 * lead, subtitle, first picture), so only the tail goes.
 */
function cutAfterCore(container: Element, counts: ReadonlyMap<Element, TextCounts>): void {
  const total = containerScore(counts.get(container) as TextCounts);
  // A container that holds more link text than prose (widenToSiblings') has no core to end at.
  if (total <= 0) return;
  let core = container;
  for (let next: Element | null = container; next !== null; ) {
    core = next;
    next = null;
    for (let c = core.firstElementChild; c; c = c.nextElementSibling) {
      const k = counts.get(c);
      if (k && k.own === 0 && containerScore(k) >= CORE_SHARE * total) next = c;
    }
  }
  for (let e = core; e !== container; e = e.parentElement as Element) {
    let next = continuationEnd(e, counts);
    while (next !== null) {
      const doomed = next;
      next = next.nextElementSibling;
      doomed.remove();
    }
  }
}

const SECTION_HEADINGS: ReadonlySet<string> = new Set(['H2', 'H3', 'H4', 'H5', 'H6']);

/**
 * The first sibling after `core` that no longer continues the article, or null. The article goes
 * on after its core when the core is followed by a heading of a rank the core itself uses, and then
 * up to the first sibling that is more link text than prose (a share bar, related links): code,
 * formulas and short lines between sections are the article's (a long technical page whose later
 * sections stand outside the wrapper of its first ones).
 */
function continuationEnd(core: Element, counts: ReadonlyMap<Element, TextCounts>): Element | null {
  const first = core.nextElementSibling;
  // A heading, or a section that opens as the core does (documentation nests a section per
  // heading); a wrapper that opens with a heading after a core that does not is the site's (a
  // "Related posts" box).
  const opening = openingHeading(core, counts);
  const sectionHeading = (el: Element) => {
    const own = el.tagName.toUpperCase();
    if (!SECTION_HEADINGS.has(own)) {
      const c = counts.get(el);
      return (
        opening !== null && c !== undefined && containerScore(c) > 0 && openingHeading(el, counts) === opening
      );
    }
    return core.querySelector(own) !== null;
  };
  if (first === null || !sectionHeading(first)) return first;
  let next: Element | null = first;
  while (next !== null) {
    const c = counts.get(next);
    if (!sectionHeading(next) && c !== undefined && c.links > 0 && c.links >= c.prose) return next;
    next = next.nextElementSibling;
  }
  return null;
}

// A lead is at most this many blocks, holding at most this share of the container's prose: more is
// another part of the page.
const LEAD_MAX_BLOCKS = 4;
const LEAD_MAX_SHARE = 0.5;
// A subtitle has this many weighted characters at least: shorter headings there are labels.
const SUBTITLE_MIN_CHARS = 20;

/**
 * Moves into the container, at its start, the article's lead when it stands outside it: the prose
 * and subtitles between the page's last h1 before the container and the container (a standfirst in
 * the article's header, a subtitle under the title). Bylines, dates and labels there are short
 * fragments and stay out; the title itself stays out too (the page's title is metadata).
 */
function takeLead(container: Element, counts: ReadonlyMap<Element, TextCounts>): void {
  let lead: Element[] = [];
  let title: Element | null = null;
  // Counts run in document order.
  for (const [el, c] of counts) {
    if (el === container) break;
    if (el.tagName.toUpperCase() === 'H1') {
      title = el;
      lead = [];
      continue;
    }
    if (title === null || c.kind === null || title.contains(el) || el.contains(container)) continue;
    if (lead.some((block) => block.contains(el))) continue;
    const subtitle =
      c.kind === 'heading' && c.own >= SUBTITLE_MIN_CHARS && c.ownLinks <= PROSE_MAX_LINK_DENSITY * c.own;
    if (c.kind === 'prose' || subtitle) lead.push(el);
  }
  if (lead.length === 0 || lead.length > LEAD_MAX_BLOCKS) return;
  const prose = lead.reduce((sum, el) => sum + (counts.get(el) as TextCounts).own, 0);
  if (prose > LEAD_MAX_SHARE * (counts.get(container) as TextCounts).prose) return;
  for (let i = lead.length - 1; i >= 0; i--) container.insertBefore(lead[i] as Element, container.firstChild);
}

// A recipe's ingredients are taken from this many levels above the container at most: further
// away they are another recipe's.
const INGREDIENTS_LEVELS = 4;

/**
 * Moves into the container a recipe's ingredient lists that stand beside it (isIngredientList):
 * short lines, they never hold the prose that chooses a container, which is the method's steps.
 */
function takeIngredients(container: Element, counts: ReadonlyMap<Element, TextCounts>): void {
  let near: Element = container;
  for (let i = 0; i < INGREDIENTS_LEVELS && near.parentElement !== null; i++) near = near.parentElement;
  const before: Element[] = [];
  const after: Element[] = [];
  // Counts run in document order: an outer list comes before what it holds, and the lists before
  // the container go before its content, the others after it.
  let passed = false;
  for (const el of counts.keys()) {
    if (el === container) passed = true;
    if (!isIngredientList(el) || !near.contains(el) || container.contains(el) || el.contains(container))
      continue;
    if (![...before, ...after].some((list) => list.contains(el))) (passed ? after : before).push(el);
  }
  const first = container.firstChild;
  for (const list of before) container.insertBefore(list, first);
  for (const list of after) container.appendChild(list);
}

const CELLS: ReadonlySet<string> = new Set(['TD', 'TH']);

/**
 * Whether `el` is a cell of a table row that also holds prose, among other rows: a record (a
 * film's linked title beside its year and synopsis), whose linked cells are its data, not a link
 * list. A row of links and short lines (a forum's latest topics and their dates) is still a link
 * list, and so is the one row of a layout table (columns side by side).
 */
function recordCell(el: Element, counts: ReadonlyMap<Element, TextCounts>): boolean {
  if (!CELLS.has(el.tagName.toUpperCase())) return false;
  const row = el.parentElement;
  if (row === null || row.tagName.toUpperCase() !== 'TR') return false;
  if (row.previousElementSibling === null && row.nextElementSibling === null) return false;
  const c = counts.get(row);
  return c !== undefined && c.prose > 0;
}

/**
 * Removes from the container the blocks that are link lists or link lines without prose (related
 * links, tag lists, "read more"); a linked cell of a record is data (recordCell).
 */
function removeLinkBlocks(container: Element, counts: ReadonlyMap<Element, TextCounts>): void {
  const doomed: Element[] = [];
  const stack: Element[] = [];
  for (let c = container.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  while (stack.length > 0) {
    const el = stack.pop() as Element;
    const c = counts.get(el);
    if (c === undefined) continue;
    if (c.prose === 0 && c.links > 0 && c.links >= c.short + c.headings && !recordCell(el, counts)) {
      doomed.push(el);
      continue;
    }
    for (let k = el.lastElementChild; k; k = k.previousElementSibling) stack.push(k);
  }
  for (const el of doomed) el.remove();
}

// A label above a title: a section name, a date.
const LABEL_MAX_WORDS = 3;

/**
 * Drops the article's own title from the top of the content, with the fragments above it (a
 * section label, a date): the page's title is metadata, and what stands above it is the page's
 * furniture. A title is any element whose whole text is the page's title or h1 (role="heading"
 * divs, classes lost), before the first real paragraph. Returns the dropped title's text when it
 * was a heading (h1-h3), the headline a reader's view puts back on top; else null.
 */
function dropLeadingTitle(
  root: Element,
  titles: readonly string[],
  counts: ReadonlyMap<Element, TextCounts>,
): string | null {
  const above: Element[] = [];
  let prose = false;
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const el = stack.pop() as Element;
    const name = el.tagName.toUpperCase();
    const text = normalized(el.textContent ?? '');
    // A heading may also be the title without the site's name.
    const isHeading = /^H[1-3]$/.test(name);
    if (text !== '' && titles.some((t) => t === text || (isHeading && t.startsWith(`${text} `)))) {
      if (!prose) {
        for (const fragment of above) if (!fragment.contains(el)) fragment.remove();
        // A label beside it in its block (a section name in a span before the h1).
        for (let label = el.previousElementSibling; label !== null; label = el.previousElementSibling) {
          if (wordTokens(label.textContent ?? '').length > LABEL_MAX_WORDS) break;
          label.remove();
        }
      }
      el.remove();
      return isHeading ? asShown(el.textContent ?? '') : null;
    }
    // Stop at the first real paragraph: a title further down is a heading of the article.
    if (name === 'P' && text.split(' ').length > 25) return null;
    const c = counts.get(el);
    if (c?.kind === 'prose') prose = true;
    if (c?.kind === 'short' && c.prose === 0) above.push(el);
    for (let k = el.lastElementChild; k; k = k.previousElementSibling) stack.push(k);
  }
  return null;
}

/**
 * Removes every h1 left in the content: the article's title is metadata (dropLeadingTitle took it
 * with what stood above it), and any other is the site's (a section's name, a call for support);
 * the article's own sections are headings of lower rank.
 */
function removeTopHeadings(container: Element): void {
  for (const h1 of container.querySelectorAll('h1')) h1.remove();
}

// Where markup written as text is the content itself: code samples.
const CODE: ReadonlySet<string> = new Set(['PRE', 'CODE', 'KBD', 'SAMP', 'TT', 'XMP']);

/** Replaces a run of adjacent text nodes with one holding its text without markup (markup-text.ts). */
function cleanTextRun(run: readonly Node[]): void {
  const text = run.map((node) => node.nodeValue ?? '').join('');
  const clean = withoutMarkupText(text);
  if (clean === text) return;
  (run[0] as Node).nodeValue = clean;
  for (const node of run.slice(1)) node.parentNode?.removeChild(node);
}

/**
 * Takes markup written as text out of the container's text, code aside; iterative. Text is read in
 * runs of adjacent text nodes: linkedom splits a text at each character reference (`&lt;`).
 */
function removeMarkupText(container: Element): void {
  const stack: Element[] = [container];
  while (stack.length > 0) {
    const el = stack.pop() as Element;
    let run: Node[] = [];
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        run.push(child);
        continue;
      }
      if (run.length > 0) cleanTextRun(run);
      run = [];
      if (child.nodeType === 1 && !CODE.has((child as Element).tagName.toUpperCase()))
        stack.push(child as Element);
    }
    if (run.length > 0) cleanTextRun(run);
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

/** The container's blocks with text of their own, in document order. */
function blocksOf(container: Element, counts: ReadonlyMap<Element, TextCounts>): Element[] {
  const blocks: Element[] = [];
  const stack: Element[] = [container];
  while (stack.length > 0) {
    const el = stack.pop() as Element;
    if ((counts.get(el)?.own ?? 0) > 0) blocks.push(el);
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  }
  return blocks;
}

// A run of teasers: at least this many siblings alike, each at most this much prose (weighted
// characters; about 60 words), each a card of its own blocks led by a link to another page.
const TEASER_RUN_MIN = 3;
const TEASER_MAX_PROSE = 450;
const TEASERS_MAX_SHARE = 0.5;

// A table's rows and cells are data, each row often led by a linked name: never a card.
const TABULAR: ReadonlySet<string> = new Set(['TABLE', 'THEAD', 'TBODY', 'TFOOT', 'TR', 'TD', 'TH']);

/** The address `href` names, without its fragment; null when it cannot be read. */
function linkTarget(href: string, pageUrl: string): string | null {
  try {
    const url = new URL(href, pageUrl);
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/**
 * Whether `el` is another page's teaser card (the page it links to, else null): no text of its own,
 * its text in blocks, the first of which (its title) is mostly a link to a page other than this one,
 * and no more prose than an excerpt.
 */
function teaserCard(
  el: Element,
  counts: ReadonlyMap<Element, TextCounts>,
  pageUrl: string,
  self: string | null,
): string | null {
  const c = counts.get(el);
  if (c === undefined || c.own > 0 || c.prose > TEASER_MAX_PROSE || c.links === 0) return null;
  if (TABULAR.has(el.tagName.toUpperCase())) return null;
  const first = blocksOf(el, counts)[0];
  const kind = first === undefined ? null : counts.get(first)?.kind;
  // A title that is a link: a section whose heading holds a link ("History [edit]") is not a card.
  if (first === undefined || kind !== 'links') return null;
  const link = first.querySelector('a[href]') ?? first.closest('a[href]');
  const target = link === null ? null : linkTarget(link.getAttribute('href') ?? '', pageUrl);
  return target === null || target === self ? null : target;
}

/** Siblings read as alike: the same tag and classes. */
function signature(el: Element): string {
  return `${el.tagName} ${(el.getAttribute('class') ?? '').trim().split(/\s+/).sort().join(' ')}`;
}

/**
 * Removes runs of teasers (TEASER_RUN_MIN siblings alike, each a teaserCard to a page of its own):
 * related stories, "More from ..." lists and tickers whose 25-60-word excerpts read as prose;
 * unless they hold more than TEASERS_MAX_SHARE of the container's prose (an index of stories).
 */
function removeTeaserRuns(
  container: Element,
  counts: ReadonlyMap<Element, TextCounts>,
  pageUrl: string,
): void {
  const self = linkTarget(pageUrl, pageUrl);
  const doomed: Element[] = [];
  const stack: Element[] = [container];
  while (stack.length > 0) {
    const el = stack.pop() as Element;
    let run: Element[] = [];
    const targets = new Set<string>();
    const flush = () => {
      if (run.length >= TEASER_RUN_MIN) doomed.push(...run);
      else for (const kept of run) stack.push(kept);
      run = [];
      targets.clear();
    };
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
      const target = teaserCard(child, counts, pageUrl, self);
      const alike = run.length === 0 || signature(run[0] as Element) === signature(child);
      if (target === null || !alike || targets.has(target)) flush();
      if (target === null) {
        stack.push(child);
        continue;
      }
      run.push(child);
      targets.add(target);
    }
    flush();
  }
  // Teasers that hold most of the prose are the page: a list of stories is what an index shows.
  const teaserProse = doomed.reduce((sum, el) => sum + (counts.get(el) as TextCounts).prose, 0);
  if (teaserProse > TEASERS_MAX_SHARE * (counts.get(container) as TextCounts).prose) return;
  for (const el of doomed) el.remove();
}

// How much of a block's text is searched for an email address (weighted characters).
const CONTACT_MAX_CHARS = 1200;
const EMAIL = /[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){1,4}/u;

/** Whether `el` gives a way to reach someone: a mailto: or tel: link, or an email address. */
function contactBlock(el: Element): boolean {
  if (el.querySelector('a[href^="mailto:" i], a[href^="tel:" i]') !== null) return true;
  return EMAIL.test((el.textContent ?? '').slice(0, CONTACT_MAX_CHARS));
}

/**
 * Removes the contact and service blocks that end the container (a press contact, a customer
 * service's lines): blocks without prose that give a way to reach someone, taken from the end while
 * they are, below a container that has prose. An article's closing sentence that names its
 * author's address is prose, and stays.
 */
function removeTrailingContacts(container: Element, counts: ReadonlyMap<Element, TextCounts>): void {
  // Under no prose the contacts are the page (a contact page, a stub): what it says, not an aside.
  if ((counts.get(container) as TextCounts).prose === 0) return;
  const blocks = blocksOf(container, counts);
  for (let i = blocks.length - 1; i >= 0; i--) {
    const el = blocks[i] as Element;
    const c = counts.get(el) as TextCounts;
    if (!el.isConnected || c.prose > 0 || !contactBlock(el)) break;
    el.remove();
  }
}

// Below a heading of any level: "Read more:" or a bold line standing for a heading.
const LABEL_LEVEL = 7;
const EMPHASIS: ReadonlySet<string> = new Set(['STRONG', 'B']);

/** The level of a heading (1-6), of a short label standing for one (LABEL_LEVEL), or null for text. */
function headingLevel(el: Element, counts: TextCounts): number | null {
  const name = el.tagName.toUpperCase();
  if (/^H[1-6]$/.test(name)) return Number(name[1]);
  if (counts.kind !== 'short') return null;
  const text = (el.textContent ?? '').trim();
  if (text.endsWith(':')) return LABEL_LEVEL;
  const only = el.firstElementChild;
  const bold =
    only !== null &&
    only === el.lastElementChild &&
    EMPHASIS.has(only.tagName.toUpperCase()) &&
    (only.textContent ?? '').trim() === text;
  return bold ? LABEL_LEVEL : null;
}

/**
 * Removes headings left with nothing under them (a "Related articles" whose links are gone): a
 * heading or a label standing for one, followed by no text, or by a heading of its level or above.
 */
function removeEmptySections(container: Element, counts: ReadonlyMap<Element, TextCounts>): void {
  const blocks = blocksOf(container, counts);
  let next: number | null = 0;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const el = blocks[i] as Element;
    const level = headingLevel(el, counts.get(el) as TextCounts);
    if (level === null) {
      next = null;
      continue;
    }
    if (next === 0 || (next !== null && next <= level)) el.remove();
    else next = level;
  }
}

// A picture's credit or caption line, whatever element holds it: a copyright sign, or a picture
// word and a colon ("Foto: dpa", "(Bild: Getty)", "Crédits photos : ...", "Titelbild: ...").
const CREDIT =
  /©|(?:^|[\s(])(?:fotos?|photos?|bild|bilder|beitragsbild|titelbild|symbolbild|images?|imagen|immagine|pictures?|credits?|crédits?(?: photos?)?|kuva|zdjęcie|fot\.)\s*:/iu;
// Longer than this (weighted characters), a block with a credit in it is a paragraph that has one.
const CREDIT_MAX_CHARS = 160;

/** Removes the container's picture credits and captions written as text (CREDIT). */
function removeCredits(container: Element, counts: ReadonlyMap<Element, TextCounts>): void {
  for (const el of blocksOf(container, counts)) {
    const c = counts.get(el) as TextCounts;
    // Only a block with no other block in it: a credit at the end of a section is not the section.
    const nested = c.prose + c.links + c.short + c.headings > c.own;
    if (c.kind === 'heading' || c.own > CREDIT_MAX_CHARS || nested) continue;
    if (CREDIT.test((el.textContent ?? '').slice(0, 4 * CREDIT_MAX_CHARS))) el.remove();
  }
}

// A teaser is compared with the blocks after it from this many characters, up to the first few.
const TEASER_MIN_CHARS = 60;
const TEASER_BLOCKS = 8;

/**
 * Removes a standfirst that repeats the article's opening (a summary cut from its first paragraph,
 * often ending in an ellipsis): among the first blocks, one whose text starts a later block's.
 */
function removeRepeatedTeaser(container: Element, counts: ReadonlyMap<Element, TextCounts>): void {
  const texts = blocksOf(container, counts)
    .slice(0, TEASER_BLOCKS)
    .map((el) => ({ el, text: normalized(el.textContent ?? '') }));
  for (const [i, { el, text }] of texts.entries()) {
    // Its last word may be cut ("...four yea").
    const stem = text.slice(0, Math.max(0, text.lastIndexOf(' ')));
    if (stem.length < TEASER_MIN_CHARS) continue;
    const repeats = (later: { el: Element; text: string }) =>
      later.text.length > text.length &&
      !later.el.contains(el) &&
      !el.contains(later.el) &&
      later.text.startsWith(stem);
    if (texts.slice(i + 1).some(repeats)) el.remove();
  }
}

// h1s read for the article's title: a page's first few; further down they are sections'.
const TITLE_H1S = 10;

/**
 * The article's title, for the head of its Markdown: of the page's first h1s, the longest whose
 * words the `<title>` (or `fallback`, the metadata's title) holds, so the title without the site's
 * name (a logo's h1 holds fewer of its words); else `fallback`, whitespace collapsed.
 */
export function articleTitle(document: Document, fallback: string): string {
  const titles = [document.title ?? '', fallback].map((t) => ` ${normalized(t)} `);
  let best = '';
  let bestWords = 0;
  for (const h1 of [...(document.body?.querySelectorAll('h1') ?? [])].slice(0, TITLE_H1S)) {
    const words = normalized(h1.textContent ?? '');
    const count = words === '' ? 0 : words.split(' ').length;
    if (count > bestWords && titles.some((t) => t.includes(` ${words} `))) {
      best = asShown(h1.textContent ?? '');
      bestWords = count;
    }
  }
  return best !== '' ? best : asShown(fallback);
}

/** Whether `main`, a body read whole, already holds `title` as one of its h1s. */
export function holdsTitle(main: MainContent, title: string): boolean {
  return main.fallback && main.h1s.includes(normalized(title));
}

function h1Words(root: Element | null): string[] {
  if (root === null) return [];
  return [...root.querySelectorAll('h1')].slice(0, TITLE_H1S).map((h1) => normalized(h1.textContent ?? ''));
}

function pageTitles(document: Document): string[] {
  const titles = [normalized(document.title ?? '')];
  const h1 = document.querySelector('h1');
  if (h1) titles.push(normalized(h1.textContent ?? ''));
  return titles.filter((t) => t !== '');
}

/**
 * The page's main content as HTML with relative href/src resolved against `pageUrl`, or the cleaned
 * body with `fallback` set when none is found. Works on a copy of `document` unless `inPlace`
 * (then the document is taken apart: for a caller that is done with it, saving the copy's time).
 */
export function extractMainContent(
  document: Document,
  pageUrl: string,
  maxElements = elementBudget().mainContentElements,
  options: { readonly inPlace?: boolean } = {},
): MainContent {
  const titles = pageTitles(document);
  const { work, elements } = pruned(document, options.inPlace === true);
  if (work.body) removeInvisible(work.body);
  const tooLarge = elements > maxElements;
  if (work.body) removeNamedFurniture(work.body);
  const body = () => (work.body ? htmlOf(work.body) : '');
  if (tooLarge || !work.body)
    return { html: body(), fallback: true, tooLarge, elements, h1s: h1Words(work.body), title: null };
  const counts = countText(work.body);
  const container = widenToSiblings(bestContainer(work.body, counts), work.body, counts);
  cutAfterCore(container, counts);
  takeLead(container, counts);
  takeIngredients(container, counts);
  // Before the link blocks go: a teaser's title is one.
  removeTeaserRuns(container, counts, pageUrl);
  removeLinkBlocks(container, counts);
  removeTrailingContacts(container, counts);
  removeEmptySections(container, counts);
  removeRepeatedTeaser(container, counts);
  removeCredits(container, counts);
  if (wordTokens(plainText(container)).length < MIN_WORDS)
    return { html: body(), fallback: true, tooLarge: false, elements, h1s: h1Words(work.body), title: null };
  const title = dropLeadingTitle(container, titles, counts);
  removeTopHeadings(container);
  removeMarkupText(container);
  absoluteUrls(container as HTMLElement, pageUrl);
  return { html: htmlOf(container), fallback: false, tooLarge: false, elements, h1s: [], title };
}

/**
 * The element's content as HTML, its text in Unicode's composed form (NFC), as the W3C asks of web
 * content and as readers and search compare it: a page written decomposed (e + combining accent;
 * Bengali vowel signs) then reads as the same words. Markup is ASCII, which NFC leaves alone.
 */
function htmlOf(el: Element): string {
  return el.innerHTML.normalize('NFC');
}
