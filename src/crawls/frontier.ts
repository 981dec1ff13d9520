import { setImmediate as nextTurn } from 'node:timers/promises';
import { wildcardMatch } from '../browser/url-patterns.js';
import { hostOf, isSameSiteOrBelow, siteUrl } from '../engines/site/site-url.js';
import type { CrawlPlan } from './plan.js';

/** Links of one page considered for the frontier: past these, a page's links are ignored (a page of 100,000 links costs what 5,000 do). */
export const MAX_LINKS_PER_PAGE = 5000;

/**
 * URLs handled per turn of the event loop where a page's links or a sitemap's URLs are read: a
 * few ms of parsing on an idle core. A sitemap unit reads up to limit + 5,000 of them (15,000);
 * in one go that held the loop 1.7 s on a loaded 2-core machine.
 */
export const URLS_PER_TURN = 500;

/** The parts of a plan that decide which URLs belong to the crawl. */
export type Scope = Pick<
  CrawlPlan,
  'url' | 'includePaths' | 'excludePaths' | 'allowSubdomains' | 'allowExternal' | 'ignoreQueryParams'
>;

/** A compiled scope: whether a normalized URL is the crawl's to fetch. */
export type InScope = (url: string) => boolean;

function patternsOf(patterns: readonly string[]): string[][] {
  return patterns.map((pattern) => pattern.split('*'));
}

/**
 * The scope's test: the start page's host (its subdomains with allowSubdomains, any host with
 * allowExternal), then the path against include_paths and exclude_paths, each a `*` wildcard
 * pattern over the whole path (`/blog/*`), matched in linear time.
 */
export function scopeOf(scope: Scope): InScope {
  const root = hostOf(scope.url);
  const include = patternsOf(scope.includePaths);
  const exclude = patternsOf(scope.excludePaths);
  return (url) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    const host = parsed.hostname;
    const onSite = scope.allowSubdomains
      ? isSameSiteOrBelow(host, root)
      : host.replace(/^www\./, '') === root.replace(/^www\./, '');
    if (!onSite && !scope.allowExternal) return false;
    const path = parsed.pathname;
    if (include.length > 0 && !include.some((pieces) => wildcardMatch(pieces, path))) return false;
    return !exclude.some((pieces) => wildcardMatch(pieces, path));
  };
}

/**
 * The links that belong to the crawl, normalized, each once, in the order given, at most
 * `maxLinks` read, URLS_PER_TURN per turn of the event loop. Robots rules and the limit are
 * applied later, where the frontier is.
 */
export async function candidateLinks(
  links: readonly string[],
  scope: Scope,
  inScope: InScope = scopeOf(scope),
  maxLinks = MAX_LINKS_PER_PAGE,
): Promise<string[]> {
  const seen = new Set<string>();
  const end = Math.min(links.length, maxLinks);
  for (let at = 0; at < end; at++) {
    if (at > 0 && at % URLS_PER_TURN === 0) await nextTurn();
    const url = siteUrl(links[at] as string, { ignoreQueryParams: scope.ignoreQueryParams });
    if (url !== null && !seen.has(url) && inScope(url)) seen.add(url);
  }
  return [...seen];
}
