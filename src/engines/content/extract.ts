import { documentBaseUrl } from './base-url.js';
import { removeInvisible, withoutInvisibleMarks } from './invisible.js';
import { extractLinks, type PageLinks } from './links.js';
import { articleTitle, extractMainContent, holdsTitle } from './main-content.js';
import { htmlToMarkdown, markdownOfElement } from './markdown.js';
import { extractMetadata, type PageMetadata } from './metadata.js';
import { parsePage } from './parse-page.js';
import { productPrice } from './product-price.js';

/** Marks the element a `selector` chose in the serialized page (load-page.ts → content.ts → here). */
export const SELECTED_ATTRIBUTE = 'data-webcap-selected';

/** One page's extraction: its serialized DOM and what to make of it. Plain data, so it crosses to an extractor process. */
export interface ExtractInput {
  /** The rendered DOM after removals, serialized by the browser. */
  readonly html: string;
  /** The page's final URL, which relative URLs resolve against (with its `<base href>`). */
  readonly pageUrl: string;
  /** An element carries SELECTED_ATTRIBUTE: html, markdown and links come from it alone. */
  readonly scoped: boolean;
  readonly includeHtml: boolean;
  readonly includeMarkdown: boolean;
  readonly useDefuddle: boolean;
  /** Links returned across internal, external and social. */
  readonly maxLinks: number;
}

export interface Extracted {
  readonly metadata: PageMetadata;
  readonly links: PageLinks;
  readonly html?: string;
  readonly markdown?: string;
  readonly warnings: string[];
}

/** `text` as HTML text: its markup characters as references. */
function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

const NO_MAIN_CONTENT = 'no main content was found: html and markdown hold the cleaned page body';
const tooLargeForMainContent = (elements: number) =>
  `the page has ${elements} elements, too many to search for its main content: html and markdown hold the cleaned page body`;

/**
 * Metadata, links, HTML and Markdown of one page from a single parse: metadata from the whole
 * document's head, the rest from the selected element when there is one. CPU-bound: runs in an
 * extractor process (engines/extractors/), never on the thread that answers calls.
 */
export function extractContent(input: ExtractInput): Extracted {
  const { document, warnings } = parsePage(input.html);
  const metadata = extractMetadata(document, input.pageUrl);
  const selected = input.scoped ? document.querySelector(`[${SELECTED_ATTRIBUTE}]`) : null;
  selected?.removeAttribute(SELECTED_ATTRIBUTE);
  // What html, markdown and links come from: the selected element, or the body when it is
  // (or holds) the body.
  const { body } = document;
  const holdsBody = body !== null && selected?.contains(body) === true;
  const scope = selected !== null && !holdsBody ? selected : body;
  if (selected !== null && !holdsBody) body?.replaceChildren(selected);
  const found = extractLinks(document, input.pageUrl, input.maxLinks);
  if (found.truncated) {
    warnings.push(`links: the page has ${found.total} or more, the first ${input.maxLinks} are returned`);
  }
  if (!input.includeHtml && !input.includeMarkdown) return { metadata, links: found.links, warnings };

  const baseUrl = documentBaseUrl(document, input.pageUrl).href;
  // The page's html is the DOM as the browser serialized it, what it displayed or not; main content
  // and Markdown are what a reader saw.
  const pageHtml = input.useDefuddle
    ? ''
    : withoutInvisibleMarks(selected !== null ? selected.outerHTML : input.html);
  if (body !== null) removeInvisible(body, selected);
  // Read before main content takes the document apart.
  const heading = input.useDefuddle && input.includeMarkdown;
  let title = heading ? articleTitle(document, metadata.title) : '';
  const price = heading ? productPrice(document) : '';
  let html: string;
  // A body read whole (no main content found) may hold the title's own h1 already.
  let titled = false;
  if (input.useDefuddle) {
    // The last reader of the document: main content may take it apart rather than copy it.
    const main = extractMainContent(document, input.pageUrl, undefined, { inPlace: true });
    if (main.fallback) warnings.push(main.tooLarge ? tooLargeForMainContent(main.elements) : NO_MAIN_CONTENT);
    html = main.html;
    // The headline main content took off the top goes back on, whatever the <title> says.
    if (heading && main.title !== null) title = main.title;
    titled = holdsTitle(main, title);
  } else {
    html = pageHtml;
  }
  let markdown: string | undefined;
  if (input.includeMarkdown) {
    // The Markdown begins with the article's title, as a reader's view shows it; html stays the
    // body alone (main content drops the title from it: metadata has it). A product's price, when
    // the content does not state it, stands under its name.
    if (input.useDefuddle) {
      const amount = price.split(' ')[0] as string;
      const head =
        (title === '' || titled ? '' : `<h1>${escapeHtml(title)}</h1>`) +
        (price === '' || html.includes(amount) ? '' : `<p><strong>${escapeHtml(price)}</strong></p>`);
      markdown = htmlToMarkdown(`${head}${html}`, baseUrl);
    } else markdown = scope === null ? '' : markdownOfElement(scope, baseUrl);
  }
  return {
    metadata,
    links: found.links,
    ...(input.includeHtml ? { html } : {}),
    ...(markdown === undefined ? {} : { markdown }),
    warnings,
  };
}
