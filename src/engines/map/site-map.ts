import { extractLinks } from '../content/links.js';
import { parsePage } from '../content/parse-page.js';
import { hostOf, siteUrl } from '../site/site-url.js';
import { MAP_MAX_LINKS, type MapBody } from './params.js';
import { inScope, type MapScope } from './scope.js';

/** What the map's URLs are made from, as plain data: it crosses to an extractor process. */
export interface SiteMapInput {
  /** The start page's URL, listed first; null when it is not listed (sitemap=only, or it could not be read). */
  readonly startUrl: string | null;
  /** The start page's HTML, whose links are taken; null when there is none to read. */
  readonly html: string | null;
  /** What the HTML's relative links resolve against (with its `<base href>`). */
  readonly pageUrl: string;
  /** The sitemaps' URLs in the order found, one per line (one string crosses a process boundary in one copy). */
  readonly sitemapLinks: string;
  readonly scope: MapScope;
  readonly searchWords: readonly string[];
  readonly limit: number;
  readonly ignoreQueryParams: boolean;
  /** Said already (the start page, the sitemaps); the map's own follow. */
  readonly warnings: readonly string[];
}

interface Ranked {
  readonly url: string;
  readonly matches: number;
  readonly order: number;
}

/** How many of the words `url` contains, as plain substrings of its lower-case form (never a pattern). */
function matchCount(url: string, words: readonly string[]): number {
  const lower = url.toLowerCase();
  let count = 0;
  for (const word of words) if (lower.includes(word)) count++;
  return count;
}

/**
 * The map's body, serialized: the site's URLs in one spelling each (siteUrl), on the site's hosts
 * only (scope), in the order start page, its links (document order), sitemaps; with search words,
 * only the URLs holding at least one, most words first, then shorter first, then that order. Cut
 * at `limit`. CPU-bound for a large site (a 100,000-link page, a sitemap of as many): runs in an
 * extractor process (engines/extractors/), never on the thread that answers calls.
 */
export function buildSiteMap(input: SiteMapInput): string {
  const warnings = [...input.warnings];
  const options = { ignoreQueryParams: input.ignoreQueryParams };
  const found: string[] = [];
  const seen = new Set<string>();
  const add = (href: string) => {
    const url = siteUrl(href, options);
    if (url === null || seen.has(url) || !inScope(hostOf(url), input.scope)) return;
    seen.add(url);
    found.push(url);
  };
  if (input.startUrl !== null) add(input.startUrl);
  if (input.html !== null) {
    const parsed = parsePage(input.html);
    warnings.push(...parsed.warnings.map((warning) => `the start page: ${warning}`));
    const { links, total, truncated } = extractLinks(parsed.document, input.pageUrl, MAP_MAX_LINKS);
    if (truncated) {
      warnings.push(`the start page has ${total} links or more; the first ${MAP_MAX_LINKS} were read`);
    }
    for (const list of [links.internal, links.social, links.external]) for (const href of list) add(href);
  }
  if (input.sitemapLinks !== '') for (const href of input.sitemapLinks.split('\n')) add(href);

  let urls = found;
  if (input.searchWords.length > 0) {
    const ranked: Ranked[] = [];
    found.forEach((url, order) => {
      const matches = matchCount(url, input.searchWords);
      if (matches > 0) ranked.push({ url, matches, order });
    });
    ranked.sort((a, b) => b.matches - a.matches || a.url.length - b.url.length || a.order - b.order);
    urls = ranked.map((entry) => entry.url);
  }
  const total = urls.length;
  const truncated = total > input.limit;
  if (truncated) warnings.push(`links truncated to the first ${input.limit} of ${total} (limit)`);
  if (found.length === 0) warnings.push('no URL of the site was found');
  else if (total === 0) warnings.push('no URL of the site contains any of the search words');
  const body: MapBody = {
    success: true,
    links: urls.slice(0, input.limit).map((url) => ({ url })),
    total,
    truncated,
    warnings,
  };
  return JSON.stringify(body);
}
