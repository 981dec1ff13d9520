import { parse } from 'tldts';
import { documentBaseUrl } from './base-url.js';
import { isSocialProfile } from './social-networks.js';

/**
 * A page's links (spec, Content result): every `<a href>` and `<area href>`, in document order,
 * resolved against the document's base URL (`<base href>` honoured), the fragment removed, each
 * URL once; only http(s), and an href longer than HREF_MAX_CHARS is dropped.
 *
 * Each link goes to exactly one list. social: a profile, channel, page or community on a social
 * network (social-networks.ts), even on the page's own site: a site's links to its own social
 * pages (or a network's links to its users) are its social presence, which is what the list is for.
 * internal: the same site as the page, by the page's final URL (not the base href), where a site
 * is a registrable domain of the Public Suffix List with its private suffixes
 * (blog.example.co.uk and example.co.uk are one site; alice.github.io and bob.github.io are
 * two); a host with no registrable domain (an IP address, localhost, an intranet name) is a
 * site of its own, compared by exact hostname. Scheme and port do not matter. external: the rest.
 */

export interface PageLinks {
  readonly internal: string[];
  readonly external: string[];
  readonly social: string[];
}

const HREF_MAX_CHARS = 8_192;
/** Anchors read before giving up on a page, so that a pathological one stays cheap. */
const MAX_ANCHORS = 100_000;

/** The site a hostname belongs to: its registrable domain (private suffixes respected), or itself. */
function siteOf(hostname: string): string {
  const host = parse(hostname, { allowPrivateDomains: true });
  return host.isIp || host.domain === null ? hostname : host.domain;
}

/** `href` resolved against `base` when that gives an http(s) URL; else null. */
function httpUrl(href: string, base: string): URL | null {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}

/**
 * The page's distinct http(s) links in document order, sorted into internal, external and social;
 * at most `maxLinks` across the three. `total` counts the distinct links found (those read
 * before MAX_ANCHORS anchors), `truncated` says that some were left out or not read.
 */
export function extractLinks(
  document: Document,
  pageUrl: string,
  maxLinks: number,
): { links: PageLinks; total: number; truncated: boolean } {
  const base = documentBaseUrl(document, pageUrl).href;
  const pageSite = siteOf(new URL(pageUrl).hostname);
  const sites = new Map<string, string>();
  // Raw hrefs already handled: a page repeats its links, and parsing a URL is the costly step.
  const hrefs = new Set<string>();
  const seen = new Set<string>();
  const links: PageLinks = { internal: [], external: [], social: [] };
  const anchors = document.querySelectorAll('a[href], area[href]');
  const read = Math.min(anchors.length, MAX_ANCHORS);
  for (let i = 0; i < read; i++) {
    const href = anchors[i]?.getAttribute('href') ?? '';
    if (hrefs.has(href)) continue;
    hrefs.add(href);
    const url = href.length > HREF_MAX_CHARS ? null : httpUrl(href, base);
    if (url === null) continue;
    // The serialization's first '#' starts the fragment: '#' is percent-encoded everywhere else.
    const hash = url.href.indexOf('#');
    const key = hash === -1 ? url.href : url.href.slice(0, hash);
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > maxLinks) continue;
    let site = sites.get(url.hostname);
    if (site === undefined) {
      site = siteOf(url.hostname);
      sites.set(url.hostname, site);
    }
    if (isSocialProfile(url)) links.social.push(key);
    else if (site === pageSite) links.internal.push(key);
    else links.external.push(key);
  }
  return { links, total: seen.size, truncated: seen.size > maxLinks || anchors.length > MAX_ANCHORS };
}
