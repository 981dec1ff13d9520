/**
 * The block_urls matcher. Each comma-separated entry is one of:
 * - a domain (`ads.example.com`): that host and its subdomains;
 * - a pattern with `*` wildcards (`*://*.tracker.net/*`, `*.gif`): the whole URL must match;
 * - anything else (`/ads/`, `https://x.com/pixel`): a plain substring of the URL.
 */
export type UrlMatcher = (url: string) => boolean;

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/i;

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** One matcher for all entries; an entry that is empty after trimming is ignored. */
export function urlMatcher(entries: readonly string[]): UrlMatcher {
  const domains: string[] = [];
  const patterns: RegExp[] = [];
  const substrings: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (entry.includes('*')) {
      const source = entry.split('*').map(escapeRegExp).join('.*');
      patterns.push(new RegExp(`^${source}$`, 'i'));
    } else if (DOMAIN.test(entry)) {
      domains.push(entry.toLowerCase());
    } else {
      substrings.push(entry.toLowerCase());
    }
  }
  return (url) => {
    const lower = url.toLowerCase();
    if (substrings.some((s) => lower.includes(s))) return true;
    if (patterns.some((p) => p.test(url))) return true;
    if (domains.length === 0) return false;
    const host = hostOf(url);
    return host !== null && domains.some((d) => host === d || host.endsWith(`.${d}`));
  };
}
