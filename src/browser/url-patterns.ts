/**
 * The block_urls matcher. Each comma-separated entry is one of:
 * - a domain-like name (`ads.example.com`, `pixel.gif`): a host of that name or below it, or the
 *   name anywhere in the URL's path and query (a bare file name looks like a domain too);
 * - a pattern with `*` wildcards (`*://*.tracker.net/*`, `*.gif`): the whole URL must match;
 * - anything else (`/ads/`, `https://x.com/pixel`): a plain substring of the URL.
 */
export type UrlMatcher = (url: string) => boolean;

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/i;

/**
 * Whether `text` matches `pieces` (a pattern split at its `*`s, each star any run of characters).
 * The first piece must start the text and the last must end it; the ones between are found
 * leftmost, in order, which is exact for such patterns: no backtracking, linear in the text.
 */
export function wildcardMatch(pieces: readonly string[], text: string): boolean {
  const first = pieces[0] ?? '';
  const last = pieces.at(-1) ?? '';
  const end = text.length - last.length;
  if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  for (const piece of pieces.slice(1, -1)) {
    if (piece === '') continue;
    const found = text.indexOf(piece, at);
    if (found === -1 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

function split(url: string): { host: string; rest: string } | null {
  try {
    const parsed = new URL(url);
    return { host: parsed.hostname.toLowerCase(), rest: `${parsed.pathname}${parsed.search}`.toLowerCase() };
  } catch {
    return null;
  }
}

/** One matcher for all entries; an entry that is empty after trimming is ignored. */
export function urlMatcher(entries: readonly string[]): UrlMatcher {
  const domains: string[] = [];
  const patterns: string[][] = [];
  const substrings: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (entry.includes('*')) {
      patterns.push(entry.toLowerCase().split('*'));
    } else if (DOMAIN.test(entry)) {
      domains.push(entry.toLowerCase());
    } else {
      substrings.push(entry.toLowerCase());
    }
  }
  return (url) => {
    const lower = url.toLowerCase();
    if (substrings.some((s) => lower.includes(s))) return true;
    if (patterns.some((pieces) => wildcardMatch(pieces, lower))) return true;
    if (domains.length === 0) return false;
    const parts = split(url);
    return (
      parts !== null &&
      domains.some((d) => parts.host === d || parts.host.endsWith(`.${d}`) || parts.rest.includes(d))
    );
  };
}
