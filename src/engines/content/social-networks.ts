import {
  NETWORK_SERVICE_SUBDOMAINS,
  NOT_FEDIVERSE_DOMAINS,
  type Segment,
  SOCIAL_NETWORKS,
  type SocialNetwork,
  type SocialNetworkRule,
} from './social-network-table.js';

/**
 * Which links are social profiles. A network is a row of SOCIAL_NETWORKS (social-network-table.ts):
 * its registrable domains and the URL shapes of its profiles, channels, pages and communities.
 * Everything else on a network's hosts (posts, videos, share and intent dialogs, login, search,
 * help, legal pages) is not a profile, and neither is a host the table does not list, with one
 * exception: a Mastodon-shaped path (`/@user` or `/@user@instance`, exactly) on any other host
 * counts as a Fediverse profile, unless the host is one of NOT_FEDIVERSE_DOMAINS, sites known to
 * use `/@name` for something else. A blog platform's custom domain using `/@author` paths (Medium's
 * do) is still taken for an instance; the URL alone cannot tell them apart.
 */

const MAIN_SUBDOMAINS: ReadonlySet<string> = new Set(['', 'www', 'm', 'mobile']);

const ID = /^[A-Za-z0-9_.:%+=-]{1,200}$/;
const DIGITS = /^[0-9]{1,30}$/;
const COUNTRY = /^[a-z]{2}$/;
// Mastodon user names are letters, digits and underscores; `@user@host` is a remote account.
const FEDIVERSE_HANDLE = /^@[A-Za-z0-9_]{1,30}(@[A-Za-z0-9.-]{1,253})?$/;

const NOT_FEDIVERSE: ReadonlyMap<string, true> = new Map(
  NOT_FEDIVERSE_DOMAINS.map((domain) => [domain, true] as const),
);
const NOT_USER_SUBDOMAINS: ReadonlySet<string> = new Set(NETWORK_SERVICE_SUBDOMAINS);

const NETWORKS: readonly SocialNetwork[] = SOCIAL_NETWORKS;

const BY_DOMAIN: ReadonlyMap<string, SocialNetwork> = new Map(
  NETWORKS.flatMap((network) => network.domains.map((domain) => [domain, network] as const)),
);

const RESERVED: ReadonlyMap<SocialNetwork, ReadonlySet<string>> = new Map(
  NETWORKS.map((network) => [network, new Set(words(...(network.reserved ?? [])))]),
);

function words(...lines: string[]): string[] {
  return lines
    .join(' ')
    .split(' ')
    .filter((word) => word !== '');
}

function segmentMatches(pattern: Segment, segment: string, network: SocialNetwork): boolean {
  switch (pattern) {
    case ':handle':
      return network.handle.test(segment) && RESERVED.get(network)?.has(segment.toLowerCase()) !== true;
    case '@handle':
      return segment.startsWith('@') && network.handle.test(segment.slice(1));
    case ':id':
      return ID.test(segment);
    case ':digits':
      return DIGITS.test(segment);
    default:
      return pattern === segment.toLowerCase();
  }
}

function ruleMatches(
  rule: SocialNetworkRule,
  segments: readonly string[],
  url: URL,
  network: SocialNetwork,
): boolean {
  if (rule.path.length !== segments.length) return false;
  if (rule.query !== undefined && !url.searchParams.has(rule.query)) return false;
  return rule.path.every((pattern, i) => segmentMatches(pattern, segments[i] ?? '', network));
}

/** Non-empty path segments, or null when the path has an empty segment inside (`//`) or is absurdly long. */
function pathSegments(pathname: string): string[] | null {
  if (pathname.length > 2_048) return null;
  const segments = pathname.split('/');
  // The path starts with '/', and one trailing slash is the same page.
  segments.shift();
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  return segments.includes('') ? null : segments;
}

/** The value `table` has for `hostname` or for the nearest domain it is a subdomain of, with that subdomain. */
function bySuffix<T>(
  hostname: string,
  table: ReadonlyMap<string, T>,
): { value: T; subdomain: string } | null {
  // Suffixes at label boundaries, longest first; a hostname has at most 127 labels.
  for (let dot = -1; ; ) {
    const value = table.get(hostname.slice(dot + 1));
    if (value !== undefined) return { value, subdomain: dot === -1 ? '' : hostname.slice(0, dot) };
    dot = hostname.indexOf('.', dot + 1);
    if (dot === -1) return null;
  }
}

/** Whether a hostname can be a Fediverse instance: a domain name, not an IP address or a single label. */
function isDomainName(hostname: string): boolean {
  const lastDot = hostname.lastIndexOf('.');
  // The URL parser has already turned any numeric IPv4 form into dotted decimal.
  return lastDot > 0 && !hostname.startsWith('[') && !DIGITS.test(hostname.slice(lastDot + 1));
}

/** Whether `url` is a profile (or channel/page/community) on a known social network, not a share/intent/login/search/help link. */
export function isSocialProfile(url: URL): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const segments = pathSegments(url.pathname);
  if (segments === null) return false;
  const hostname = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  const found = bySuffix(hostname, BY_DOMAIN);
  if (found === null) {
    return (
      segments.length === 1 &&
      FEDIVERSE_HANDLE.test(segments[0] ?? '') &&
      isDomainName(hostname) &&
      bySuffix(hostname, NOT_FEDIVERSE) === null
    );
  }
  const { value: network, subdomain } = found;
  const main =
    MAIN_SUBDOMAINS.has(subdomain) ||
    network.aliases?.includes(subdomain) === true ||
    (network.countrySubdomains === true && COUNTRY.test(subdomain));
  if (main) {
    return network.rules.some(
      (rule) => rule.subdomain === undefined && ruleMatches(rule, segments, url, network),
    );
  }
  if (
    network.rules.some((rule) => rule.subdomain === subdomain && ruleMatches(rule, segments, url, network))
  ) {
    return true;
  }
  return (
    network.userSubdomains === true &&
    segments.length === 0 &&
    !NOT_USER_SUBDOMAINS.has(subdomain) &&
    network.handle.test(subdomain)
  );
}
