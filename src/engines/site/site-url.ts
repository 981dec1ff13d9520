/**
 * One spelling per page for whole-site work (crawl, map): two links that name the same page
 * become the same string, so that a frontier or a list dedupes them, and links that only grow
 * (session ids, tracking tags, endless query strings) stop growing.
 */

/** Longer URLs are dropped: a link that keeps growing is a trap, and no sitemap may list one (sitemaps.org: 2,048). */
export const MAX_SITE_URL_LENGTH = 2048;

// Query parameters that name a visit, not a page: session ids and campaign tags.
const VISIT_PARAMS = new Set([
  'jsessionid',
  'phpsessid',
  'sessionid',
  'session_id',
  'sid',
  'aspsessionid',
  'cfid',
  'cftoken',
  'fbclid',
  'gclid',
  'dclid',
  'msclkid',
  'yclid',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
]);

function visitParam(name: string): boolean {
  const lower = name.toLowerCase();
  return VISIT_PARAMS.has(lower) || lower.startsWith('utm_');
}

export interface SiteUrlOptions {
  /** Drops the whole query string (Firecrawl's `ignoreQueryParameters`). */
  readonly ignoreQueryParams?: boolean;
}

/**
 * The page's URL in one spelling, or null when it is not an http(s) URL a crawl may follow
 * (another scheme, credentials in it, unparseable, or longer than MAX_SITE_URL_LENGTH).
 * Drops the fragment, `;jsessionid=` path parameters, session and campaign query parameters,
 * and an empty query; sorts the rest by name (stable, so repeated names keep their order).
 * Host case, default ports and dot segments are the WHATWG parser's.
 */
export function siteUrl(href: string, options: SiteUrlOptions = {}): string | null {
  if (href.length > MAX_SITE_URL_LENGTH * 2) return null;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '') return null;
  url.hash = '';
  const session = url.pathname.toLowerCase().indexOf(';jsessionid=');
  if (session !== -1) url.pathname = url.pathname.slice(0, session);
  if (options.ignoreQueryParams === true) {
    url.search = '';
  } else if (url.search !== '') {
    const kept = [...url.searchParams].filter(([name]) => !visitParam(name));
    kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    url.search = new URLSearchParams(kept).toString();
  }
  const spelled = url.href;
  return spelled.length > MAX_SITE_URL_LENGTH ? null : spelled;
}

/** The host a page is on, lower case, without port; '' when it is not a URL. */
export function hostOf(href: string): string {
  try {
    return new URL(href).hostname;
  } catch {
    return '';
  }
}

/**
 * Whether `host` is `root` or below it (`docs.example.com` under `example.com`). `www.` on either
 * side is ignored, as users mean the same site by both.
 */
export function isSameSiteOrBelow(host: string, root: string): boolean {
  const h = host.replace(/^www\./, '');
  const r = root.replace(/^www\./, '');
  return h === r || h.endsWith(`.${r}`);
}
