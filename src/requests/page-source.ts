import { Type } from 'typebox';
import { type PageSource, SYNTHETIC_ORIGIN } from '../browser/page-params.js';
import { invalidParam } from '../errors.js';

/**
 * Longest `html` and `markdown`, whatever BODY_LIMIT_BYTES allows: pages that load and render well
 * within the default navigation and extraction deadlines on a loaded 2-core machine (10 MB of HTML
 * captured in about 7 s; dense Markdown renders at about 1 s per MB), so that a caller's page is a
 * 400 rather than a timeout. Below them, the body limit (a 413) or, in a query string, Node's
 * 16 KiB request head bounds them first.
 */
export const MAX_HTML_CHARS = 10_000_000;
export const MAX_MARKDOWN_CHARS = 2_000_000;

const ONE_OF = 'exactly one of url, html, markdown';

/** Where the page comes from (docs/capture.md, "Your own HTML or Markdown"): a URL, or the page itself. */
export const pageSourceFields = {
  url: Type.Optional(
    Type.String({ minLength: 1, maxLength: 8192, description: `URL of the page (http or https); ${ONE_OF}` }),
  ),
  html: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_HTML_CHARS,
      description: `the page itself, a whole HTML document or a fragment, instead of url (${ONE_OF}); bounded by the body limit, or the URL length in a query string`,
    }),
  ),
  markdown: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_MARKDOWN_CHARS,
      description: `the page as Markdown, rendered with a readable light and dark stylesheet, instead of url (${ONE_OF}); bounded as html`,
    }),
  ),
  base_url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 8192,
      description:
        'with html or markdown: the http(s) URL the page is served at, which its relative links and subresources resolve against; default http://webcap.invalid/, which reaches no network',
    }),
  ),
};

/** The source fields of a validated request. */
export interface PageSourceInput {
  readonly url?: string;
  readonly html?: string;
  readonly markdown?: string;
  readonly base_url?: string;
}

/**
 * The page to render: `url` to fetch, or the caller's own page served at `base_url` (or the
 * synthetic origin). Exactly one of url, html, markdown is a 400 naming them otherwise, and so is
 * base_url beside url; base_url itself is checked as a target by the call (checkPage).
 */
export function pageSourceOf(input: PageSourceInput): {
  readonly url: string;
  readonly document?: PageSource;
} {
  const given = (['url', 'html', 'markdown'] as const).filter((name) => input[name] !== undefined);
  // Worded as before html and markdown existed, so that a caller matching "url is required" still does.
  if (given.length === 0)
    throw invalidParam('url', 'is required, or html or markdown instead (exactly one of them)');
  if (given.length > 1) {
    throw invalidParam(given.join(' and '), `were both given; give ${ONE_OF}`);
  }
  if (input.url !== undefined) {
    if (input.base_url !== undefined) throw invalidParam('base_url', 'is only for html or markdown input');
    return { url: input.url.trim() };
  }
  const url = input.base_url?.trim() ?? SYNTHETIC_ORIGIN;
  const document: PageSource =
    input.html !== undefined ? { html: input.html } : { markdown: input.markdown ?? '' };
  return { url, document };
}
