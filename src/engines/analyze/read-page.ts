import { documentBaseUrl } from '../content/base-url.js';
import { removeInvisible } from '../content/invisible.js';
import { extractMainContent } from '../content/main-content.js';
import { htmlToMarkdown } from '../content/markdown.js';
import { parsePage } from '../content/parse-page.js';
import { type ContactSignals, findContactSignals } from './contact-signals.js';
import { digestPage, type PageDigest } from './page-digest.js';

/** A rendered page to read for analysis. Plain data, so it crosses to an extractor process. */
export interface ReadPageInput {
  /** The rendered DOM, serialized by the browser. */
  readonly html: string;
  /** The page's final URL. */
  readonly pageUrl: string;
  /** Whether the analyzer reads the main content as Markdown (a model does; the extractive analyzer does not). */
  readonly withMarkdown: boolean;
}

/** What analysis reads of a page: its digest, the contacts it states and, when asked, its main content as Markdown. */
export interface PageReading {
  readonly digest: PageDigest;
  readonly contacts: ContactSignals;
  /** Null when not asked for. */
  readonly markdown: string | null;
  /** What the reading could not do as usual (a page cut at its element budget, a page without a root). */
  readonly warnings: string[];
}

/**
 * One parse of the page serves every part: the main content is found once and feeds both the
 * digest's text and the Markdown. CPU-bound (tens of ms on a typical page, seconds on a huge one):
 * runs in an extractor process.
 */
export function readPage(input: ReadPageInput): PageReading {
  const { document, warnings } = parsePage(input.html);
  // What the browser did not display is read neither for the main content nor for the digest.
  if (document.body) removeInvisible(document.body);
  const main = extractMainContent(document, input.pageUrl);
  const digest = digestPage(document, input.pageUrl, main.html);
  const contacts = findContactSignals(document, input.pageUrl);
  const markdown = input.withMarkdown
    ? htmlToMarkdown(main.html, documentBaseUrl(document, input.pageUrl).href)
    : null;
  return { digest, contacts, markdown, warnings };
}
