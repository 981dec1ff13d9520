import { WebcapError } from '../../errors.js';
import type { GuardedFetcher } from '../../net/guarded-fetch.js';
import { fetchRawPage } from '../crawler/crawler.js';
import { hostOf } from '../site/site-url.js';
import { inScope, type MapScope } from './scope.js';

/** Redirects of the start page followed, as many as the crawler contract's fetcher follows. */
const MAX_REDIRECTS = 10;

export interface StartPage {
  /** The URL that answered, after the redirects followed within the site. */
  readonly url: string;
  /** Its HTML when it answered 2xx with HTML; else null, and a warning says why. */
  readonly html: string | null;
  readonly warnings: string[];
  /** Why it could not be fetched at all (unreachable, timeout, not HTML): the map's error when nothing else is found. */
  readonly failure: WebcapError | null;
}

const why = (error: WebcapError) => error.detail ?? error.code;

/**
 * The start page's raw HTML (the crawler's fetch: no browser), its redirects followed one hop at a
 * time while they stay on the site (scope): a redirect elsewhere, a loop or more than
 * MAX_REDIRECTS hops ends it there, with a warning. The fetcher checks every hop against the
 * network policy; a refused hop rejects with 'blocked', as the crawler's does. Anything else that
 * goes wrong, and `signal` aborting (its reason is taken as the failure), is a warning and a failure.
 */
export async function readStartPage(
  fetcher: GuardedFetcher,
  url: string,
  scope: MapScope,
  signal: AbortSignal,
): Promise<StartPage> {
  const warnings: string[] = [];
  const visited = new Set<string>();
  let current = url;
  for (;;) {
    visited.add(current);
    let page: Awaited<ReturnType<typeof fetchRawPage>>;
    try {
      page = await fetchRawPage(fetcher, { url: current, allowRedirects: false }, signal);
    } catch (caught) {
      const error = signal.aborted ? signal.reason : caught;
      if (!(error instanceof WebcapError) || error.code === 'blocked') throw error;
      warnings.push(`the start page ${current} could not be read (${why(error)})`);
      return { url: current, html: null, warnings, failure: error };
    }
    const location = page.headers.location;
    if (page.statusCode >= 300 && page.statusCode < 400 && location !== undefined) {
      const next = URL.canParse(location, current) ? new URL(location, current).href : null;
      const stop =
        next === null
          ? `redirects to ${JSON.stringify(location.slice(0, 200))}, which is not a URL`
          : !inScope(hostOf(next), scope)
            ? `redirects to ${next}, off the site: not followed`
            : visited.has(next)
              ? `redirects in a loop (back to ${next})`
              : visited.size > MAX_REDIRECTS
                ? `redirects more than ${MAX_REDIRECTS} times`
                : null;
      if (stop === null && next !== null) {
        current = next;
        continue;
      }
      warnings.push(`the start page ${current} ${stop}; its links are not read`);
      return { url: current, html: null, warnings, failure: null };
    }
    if (page.statusCode < 200 || page.statusCode > 299) {
      warnings.push(`the start page ${current} answered HTTP ${page.statusCode}; its links are not read`);
      return { url: current, html: null, warnings, failure: null };
    }
    return { url: current, html: page.html, warnings, failure: null };
  }
}
