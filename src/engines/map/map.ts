import { setImmediate as nextTurn } from 'node:timers/promises';
import { WebcapError } from '../../errors.js';
import type { GuardedFetcher } from '../../net/guarded-fetch.js';
import { discoverSitemap, type SitemapBounds, type SiteSitemap } from '../content/sitemap.js';
import type { ExtractorPool } from '../extractors/pool.js';
import { hostOf } from '../site/site-url.js';
import { MAP_MAX_LINKS, type MapParams } from './params.js';
import { readStartPage, type StartPage } from './start-page.js';

export interface MapDeps {
  /** The guarded fetcher: the start page, its redirects, robots.txt and every sitemap file. */
  readonly fetcher: GuardedFetcher;
  readonly extractor: Pick<ExtractorPool, 'run'>;
  /** The sitemap discovery's bounds (SITEMAP_*); its deadline bounds the start page's fetch too. */
  readonly sitemap: SitemapBounds;
}

export interface MapOutcome {
  /** The body of POST /v1/map (MapBodySchema), serialized. */
  readonly body: string;
  /** False when the start page could not be read: that map is not kept in the cache. */
  readonly cacheable: boolean;
}

// Sitemap URLs joined per turn of the event loop: well under a millisecond each.
const JOIN_SLICE = 5_000;

/** The URLs one per line, joined a slice at a time so that 100,000 of them never hold the event loop. */
async function joinLines(links: readonly string[]): Promise<string> {
  let joined = '';
  for (let at = 0; at < links.length; at += JOIN_SLICE) {
    if (at > 0) {
      await nextTurn();
      joined += '\n';
    }
    joined += links.slice(at, at + JOIN_SLICE).join('\n');
  }
  return joined;
}

/**
 * A site's URLs without rendering (docs/crawl.md, "Map"): the start page's raw HTML (its redirects
 * followed within the site) and the site's sitemaps are fetched side by side through the guarded
 * fetcher, both within SITEMAP_TIMEOUT_MS; their URLs are then normalized, kept to the site,
 * deduplicated, searched and cut in an extractor process (site-map.ts). A start page that cannot
 * be read is a warning when the sitemaps gave URLs, else the call's error. Throws 'blocked' when
 * the network policy refuses a hop of the start page.
 */
export async function siteMap(deps: MapDeps, params: MapParams): Promise<MapOutcome> {
  const scope = { host: hostOf(params.url), includeSubdomains: params.includeSubdomains };
  const { timeoutMs } = deps.sitemap;
  // The discovery keeps its own deadline (it answers what it found by then); this one ends the
  // start page's fetch, and `abandon` the discovery when the start page throws.
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new WebcapError('timeout', `no answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const abandon = new AbortController();
  try {
    // Each source gives at most as many URLs as a map returns.
    const bounds = { ...deps.sitemap, maxLinks: MAP_MAX_LINKS };
    const sitemap: Promise<SiteSitemap> | null =
      params.sitemap === 'skip'
        ? null
        : discoverSitemap(deps.fetcher, params.url, bounds, { signal: abandon.signal });
    // Settled below, or abandoned when the start page throws; it must not surface as unhandled.
    sitemap?.catch(() => undefined);
    const start: StartPage | null =
      params.sitemap === 'only'
        ? null
        : await readStartPage(deps.fetcher, params.url, scope, deadline.signal);
    const site = sitemap === null ? null : await sitemap;
    if (start?.failure != null && (site === null || site.links.length === 0)) throw start.failure;
    const body = await deps.extractor.run('site-map', {
      startUrl: start?.html == null ? null : start.url,
      html: start?.html ?? null,
      pageUrl: start?.url ?? params.url,
      sitemapLinks: site === null ? '' : await joinLines(site.links),
      scope,
      searchWords: params.searchWords,
      limit: params.limit,
      ignoreQueryParams: params.ignoreQueryParams,
      warnings: [...(start?.warnings ?? []), ...(site?.warnings ?? [])],
    });
    return { body, cacheable: start?.failure == null };
  } finally {
    clearTimeout(timer);
    abandon.abort();
  }
}
