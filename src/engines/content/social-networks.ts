/**
 * Which links are social profiles. A network is a row of NETWORKS: its registrable domains
 * and the URL shapes of its profiles, channels, pages and communities. Everything else on a
 * network's hosts (posts, videos, share and intent dialogs, login, search, help, legal pages)
 * is not a profile, and neither is a host the table does not list, with one exception: a
 * Mastodon-shaped path (`/@user` or `/@user@instance`, exactly) on any other host counts as a
 * Fediverse profile, unless the host is one of NOT_FEDIVERSE, sites known to use `/@name` for
 * something else. A blog platform's custom domain using `/@author` paths (Medium's do) is still
 * taken for an instance; the URL alone cannot tell them apart.
 */

/**
 * A path segment pattern: a literal (matched case-insensitively), or a placeholder:
 * `:handle` a name that matches the network's handle shape and is not one of its reserved words,
 * `@handle` the same after an `@`, `:id` an opaque identifier (channel ids, invite codes), `:digits`.
 */
type Segment = string;

interface Rule {
  /** The subdomain the rule is for; by default the network's main hosts (none, www., m., mobile.). */
  readonly subdomain?: string;
  /** The path's segments, exactly (a trailing slash is ignored). */
  readonly path: readonly Segment[];
  /** A query parameter the URL must carry (Facebook's profile.php?id=). */
  readonly query?: string;
}

interface Network {
  readonly name: string;
  /** Domains; a host is on the network when it is one of them or a subdomain of one. */
  readonly domains: readonly string[];
  /** The shape of a user name; anchored, no nested quantifiers. */
  readonly handle: RegExp;
  /** Path segments that are the network's own pages, never a `:handle`: lower-case words, space-separated. */
  readonly reserved?: readonly string[];
  readonly rules: readonly Rule[];
  /** More subdomains serving the same pages as www. (old.reddit.com). */
  readonly aliases?: readonly string[];
  /** Two-letter country subdomains (uk.linkedin.com) serve the same pages as www. */
  readonly countrySubdomains?: boolean;
  /** A user's own subdomain (alice.tumblr.com) is their profile at its root. */
  readonly userSubdomains?: boolean;
}

const MAIN_SUBDOMAINS: ReadonlySet<string> = new Set(['', 'www', 'm', 'mobile']);

const ID = /^[A-Za-z0-9_.:%+=-]{1,200}$/;
const DIGITS = /^[0-9]{1,30}$/;
const COUNTRY = /^[a-z]{2}$/;
// Mastodon user names are letters, digits and underscores; `@user@host` is a remote account.
const FEDIVERSE_HANDLE = /^@[A-Za-z0-9_]{1,30}(@[A-Za-z0-9.-]{1,253})?$/;

const NETWORKS: readonly Network[] = [
  {
    name: 'X (Twitter)',
    domains: ['x.com', 'twitter.com'],
    handle: /^[A-Za-z0-9_]{1,15}$/,
    reserved: [
      'about account compose download explore hashtag help home i intent jobs lists login logout',
      'messages notifications oauth personalization privacy rules search settings share signup topics',
      'tos who_to_follow',
    ],
    rules: [{ path: [':handle'] }, { path: ['i', 'communities', ':digits'] }],
  },
  {
    name: 'Facebook',
    domains: ['facebook.com', 'fb.com'],
    handle: /^[A-Za-z0-9.%_-]{1,100}$/,
    reserved: [
      'about ads bookmarks business careers dialog events friends fundraisers gaming groups hashtag',
      'help home.php l.php legal login login.php logout.php marketplace messages notifications pages',
      'people permalink.php photo.php plugins policies privacy profile.php r.php recover reel reels',
      'search settings share share.php sharer sharer.php signup stories story.php terms tr video videos',
      'watch',
    ],
    rules: [
      { path: [':handle'] },
      { path: ['profile.php'], query: 'id' },
      { path: ['groups', ':id'] },
      { path: ['pages', ':id', ':digits'] },
      { path: ['people', ':id', ':digits'] },
      { path: ['pg', ':handle'] },
    ],
    aliases: ['web'],
  },
  {
    name: 'Instagram',
    domains: ['instagram.com', 'instagr.am'],
    handle: /^[A-Za-z0-9_.]{1,30}$/,
    reserved: [
      'about accounts challenge developer direct directory emails explore legal p privacy reel reels',
      'share stories terms tv web',
    ],
    rules: [{ path: [':handle'] }],
  },
  {
    name: 'LinkedIn',
    domains: ['linkedin.com'],
    handle: /^[A-Za-z0-9_.%-]{1,100}$/,
    rules: [
      { path: ['in', ':handle'] },
      { path: ['company', ':handle'] },
      { path: ['school', ':handle'] },
      { path: ['showcase', ':handle'] },
      { path: ['groups', ':id'] },
    ],
    countrySubdomains: true,
  },
  {
    name: 'YouTube',
    domains: ['youtube.com'],
    handle: /^[A-Za-z0-9_.-]{1,100}$/,
    // The legacy vanity path (youtube.com/GoogleDevelopers) is a channel; these are not.
    reserved: [
      'about account ads attribution_link c channel creators embed favicon.ico feed gaming hashtag',
      'howyoutubeworks iframe_api kids live logout music new oembed playlist post premium redirect',
      'results robots.txt shorts signin source subscription_center supported_browsers sw.js t trending',
      'upload user v watch',
    ],
    rules: [
      { path: ['@handle'] },
      { path: ['channel', ':id'] },
      { path: ['c', ':handle'] },
      { path: ['user', ':handle'] },
      { path: [':handle'] },
    ],
  },
  {
    name: 'TikTok',
    domains: ['tiktok.com'],
    handle: /^[A-Za-z0-9_.]{1,30}$/,
    rules: [{ path: ['@handle'] }],
  },
  {
    name: 'GitHub',
    domains: ['github.com'],
    handle: /^[A-Za-z0-9-]{1,39}$/,
    reserved: [
      'about account apps codespaces collections contact copilot customer-stories dashboard discussions',
      'education enterprise events explore features git-guides home issues join login logout',
      'marketplace mobile models new newsroom notifications open-source organizations orgs partners',
      'password_reset premium-support pricing pulls readme resources search security session sessions',
      'settings signup site solutions sponsors stars team topics trending watching why-github',
    ],
    rules: [{ path: [':handle'] }, { path: ['orgs', ':handle'] }],
  },
  {
    name: 'Pinterest',
    domains: [
      'pinterest.com',
      'pinterest.co.uk',
      'pinterest.ca',
      'pinterest.com.au',
      'pinterest.de',
      'pinterest.fr',
      'pinterest.es',
      'pinterest.it',
      'pinterest.jp',
      'pinterest.com.mx',
      'pinterest.ie',
      'pinterest.nz',
    ],
    handle: /^[A-Za-z0-9_.-]{1,100}$/,
    reserved: [
      '_ about business categories explore homefeed ideas login logout news_hub oauth password pin',
      'pin-builder resource search settings shopping signup today topics tv videos',
    ],
    rules: [{ path: [':handle'] }],
    countrySubdomains: true,
  },
  {
    name: 'Reddit',
    domains: ['reddit.com'],
    handle: /^[A-Za-z0-9_-]{1,50}$/,
    rules: [{ path: ['r', ':handle'] }, { path: ['user', ':handle'] }, { path: ['u', ':handle'] }],
    aliases: ['old', 'new', 'np'],
  },
  {
    name: 'Threads',
    domains: ['threads.net', 'threads.com'],
    handle: /^[A-Za-z0-9_.]{1,30}$/,
    rules: [{ path: ['@handle'] }],
  },
  {
    name: 'Bluesky',
    domains: ['bsky.app'],
    // A domain handle (alice.bsky.social) or a DID (did:plc:...).
    handle: /^[A-Za-z0-9_.:-]{1,253}$/,
    rules: [{ path: ['profile', ':handle'] }],
  },
  {
    name: 'Discord invite',
    domains: ['discord.gg'],
    handle: /^[A-Za-z0-9_-]{1,100}$/,
    rules: [{ path: [':handle'] }],
  },
  {
    name: 'Discord',
    domains: ['discord.com', 'discordapp.com'],
    handle: /^[A-Za-z0-9_-]{1,100}$/,
    rules: [{ path: ['invite', ':handle'] }],
  },
  {
    name: 'Telegram',
    domains: ['t.me', 'telegram.me', 'telegram.dog'],
    handle: /^[A-Za-z0-9_]{3,32}$/,
    reserved: [
      'addemoji addstickers addtheme bg boost confirmphone contact iv joinchat login proxy setlanguage',
      'share socks',
    ],
    rules: [{ path: [':handle'] }, { path: ['s', ':handle'] }, { path: ['joinchat', ':id'] }],
  },
  {
    name: 'WhatsApp click-to-chat',
    domains: ['wa.me'],
    // A phone number in international form, digits only.
    handle: /^[0-9]{5,20}$/,
    rules: [{ path: [':handle'] }, { path: ['message', ':id'] }],
  },
  {
    name: 'WhatsApp',
    domains: ['whatsapp.com'],
    handle: /^[A-Za-z0-9_-]{1,100}$/,
    rules: [{ path: ['channel', ':id'] }, { subdomain: 'chat', path: [':id'] }],
  },
  {
    name: 'Vimeo',
    domains: ['vimeo.com'],
    // A user name starts with a letter; an all-digit path is a video.
    handle: /^[A-Za-z][A-Za-z0-9_]{0,63}$/,
    reserved: [
      'about album blog categories channels create enterprise features groups help join log_in login',
      'manage ondemand pricing search settings showcase solutions stock upgrade upload watch',
    ],
    rules: [{ path: [':handle'] }, { path: ['channels', ':handle'] }, { path: ['groups', ':handle'] }],
  },
  {
    name: 'Twitch',
    domains: ['twitch.tv'],
    handle: /^[A-Za-z0-9_]{1,25}$/,
    reserved: [
      'broadcast directory downloads drops friends inventory jobs login messages p payments prime',
      'search settings signup store subscriptions turbo videos wallet',
    ],
    rules: [{ path: [':handle'] }],
  },
  {
    name: 'Snapchat',
    domains: ['snapchat.com'],
    handle: /^[A-Za-z0-9_.-]{1,30}$/,
    rules: [{ path: ['add', ':handle'] }, { path: ['@handle'] }],
  },
  {
    name: 'Tumblr',
    domains: ['tumblr.com'],
    handle: /^[A-Za-z0-9-]{1,32}$/,
    reserved: [
      'about abuse apps blog buttons dashboard developers docs explore following help inbox jobs likes',
      'login logout new policy privacy reblog register safe-mode search settings share support tagged',
      'widgets',
    ],
    rules: [{ path: [':handle'] }],
    userSubdomains: true,
  },
  {
    name: 'SoundCloud',
    domains: ['soundcloud.com'],
    handle: /^[A-Za-z0-9_-]{1,100}$/,
    reserved: [
      'charts connect discover for-artists imprint jobs login logout messages mobile notifications',
      'oembed pages people player popular premium pro search settings signin stream tags terms-of-use',
      'upload you',
    ],
    rules: [{ path: [':handle'] }],
  },
  {
    name: 'Medium',
    domains: ['medium.com'],
    handle: /^[A-Za-z0-9_.-]{1,100}$/,
    // Only author profiles: medium.com/<publication> is indistinguishable here from Medium's own pages.
    rules: [{ path: ['@handle'] }],
    userSubdomains: true,
  },
  {
    name: 'Substack',
    domains: ['substack.com'],
    handle: /^[A-Za-z0-9_-]{1,100}$/,
    rules: [{ path: ['@handle'] }],
    userSubdomains: true,
  },
  {
    name: 'Dribbble',
    domains: ['dribbble.com'],
    handle: /^[A-Za-z0-9_-]{1,100}$/,
    reserved: [
      'about account colors contact designers following for-designers freelance-jobs hiring jobs learn',
      'marketplace privacy pro resources search session shots signup stories tags terms uploads',
    ],
    rules: [{ path: [':handle'] }],
  },
  {
    name: 'Behance',
    domains: ['behance.net'],
    handle: /^[A-Za-z0-9_-]{1,100}$/,
    reserved: [
      'about assets blog galleries gallery hire joblist live login misc moodboards onboarding privacy',
      'pro search signup terms',
    ],
    rules: [{ path: [':handle'] }],
  },
  {
    name: 'Spotify',
    domains: ['spotify.com'],
    handle: /^[A-Za-z0-9_.-]{1,100}$/,
    rules: [
      { subdomain: 'open', path: ['artist', ':id'] },
      { subdomain: 'open', path: ['user', ':id'] },
      { subdomain: 'open', path: ['show', ':id'] },
    ],
  },
  {
    name: 'Patreon',
    domains: ['patreon.com'],
    handle: /^[A-Za-z0-9_-]{1,100}$/,
    reserved: [
      'about c checkout create explore home join login logout messages notifications policy posts',
      'pricing product search settings signup',
    ],
    rules: [{ path: [':handle'] }, { path: ['c', ':handle'] }],
  },
  {
    name: 'Flickr',
    domains: ['flickr.com'],
    handle: /^[A-Za-z0-9_@.-]{1,100}$/,
    rules: [
      { path: ['photos', ':handle'] },
      { path: ['people', ':handle'] },
      { path: ['groups', ':handle'] },
    ],
  },
  {
    name: 'Quora',
    domains: ['quora.com'],
    handle: /^[A-Za-z0-9_.-]{1,100}$/,
    rules: [{ path: ['profile', ':handle'] }],
  },
  {
    name: 'VK',
    domains: ['vk.com'],
    handle: /^[A-Za-z0-9_.]{1,100}$/,
    reserved: [
      'about away.php blog dev feed friends help im jobs join legal login music press search settings',
      'share.php support terms video wall',
    ],
    rules: [{ path: [':handle'] }],
  },
  {
    name: 'Linktree',
    domains: ['linktr.ee'],
    handle: /^[A-Za-z0-9_.-]{1,100}$/,
    reserved: ['admin blog help login marketplace pricing privacy register s terms'],
    rules: [{ path: [':handle'] }],
  },
  {
    name: 'Bandcamp',
    domains: ['bandcamp.com'],
    handle: /^[A-Za-z0-9-]{1,100}$/,
    rules: [],
    userSubdomains: true,
  },
  {
    name: 'Product Hunt',
    domains: ['producthunt.com'],
    handle: /^[A-Za-z0-9_]{1,100}$/,
    rules: [{ path: ['@handle'] }],
  },
];

/** Sites that use `/@name` paths without being Fediverse instances (beside the networks above). */
const NOT_FEDIVERSE: ReadonlyMap<string, true> = new Map(
  words(
    'canva.com figma.com glitch.com hashnode.com observablehq.com pexels.com replit.com unsplash.com',
  ).map((domain) => [domain, true] as const),
);

// Subdomains that are a network's own services, never a user's (api.tumblr.com, help.medium.com).
const NOT_USER_SUBDOMAINS: ReadonlySet<string> = new Set(
  words(
    'about api assets blog careers cdn daily developers docs help m media mobile on open policy reader status static support w www',
  ),
);

const BY_DOMAIN: ReadonlyMap<string, Network> = new Map(
  NETWORKS.flatMap((network) => network.domains.map((domain) => [domain, network] as const)),
);

const RESERVED: ReadonlyMap<Network, ReadonlySet<string>> = new Map(
  NETWORKS.map((network) => [network, new Set(words(...(network.reserved ?? [])))]),
);

function words(...lines: string[]): string[] {
  return lines
    .join(' ')
    .split(' ')
    .filter((word) => word !== '');
}

function segmentMatches(pattern: Segment, segment: string, network: Network): boolean {
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

function ruleMatches(rule: Rule, segments: readonly string[], url: URL, network: Network): boolean {
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
