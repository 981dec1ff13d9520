/**
 * The social networks webcap recognises profiles on (docs/content.md): each row is a network's
 * registrable domains and the URL shapes of its profiles, channels, pages and communities.
 * social-networks.ts is the matcher that reads it.
 */

/**
 * A path segment pattern: a literal (matched case-insensitively), or a placeholder:
 * `:handle` a name that matches the network's handle shape and is not one of its reserved words,
 * `@handle` the same after an `@`, `:id` an opaque identifier (channel ids, invite codes), `:digits`.
 */
export type Segment = string;

export interface SocialNetworkRule {
  /** The subdomain the rule is for; by default the network's main hosts (none, www., m., mobile.). */
  readonly subdomain?: string;
  /** The path's segments, exactly (a trailing slash is ignored). */
  readonly path: readonly Segment[];
  /** A query parameter the URL must carry (Facebook's profile.php?id=). */
  readonly query?: string;
}

export interface SocialNetwork {
  readonly name: string;
  /** Domains; a host is on the network when it is one of them or a subdomain of one. */
  readonly domains: readonly string[];
  /** The shape of a user name; anchored, no nested quantifiers. */
  readonly handle: RegExp;
  /** Path segments that are the network's own pages, never a `:handle`: lower-case words, space-separated. */
  readonly reserved?: readonly string[];
  readonly rules: readonly SocialNetworkRule[];
  /** More subdomains serving the same pages as www. (old.reddit.com). */
  readonly aliases?: readonly string[];
  /** Two-letter country subdomains (uk.linkedin.com) serve the same pages as www. */
  readonly countrySubdomains?: boolean;
  /** A user's own subdomain (alice.tumblr.com) is their profile at its root. */
  readonly userSubdomains?: boolean;
}

export const SOCIAL_NETWORKS = [
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
] satisfies readonly SocialNetwork[];

/** Sites that use `/@name` paths without being Fediverse instances (beside the networks above). */
export const NOT_FEDIVERSE_DOMAINS = [
  'canva.com',
  'figma.com',
  'glitch.com',
  'hashnode.com',
  'observablehq.com',
  'pexels.com',
  'replit.com',
  'unsplash.com',
] as const;

/** Subdomains that are a network's own services, never a user's (api.tumblr.com, help.medium.com). */
export const NETWORK_SERVICE_SUBDOMAINS = [
  'about',
  'api',
  'assets',
  'blog',
  'careers',
  'cdn',
  'daily',
  'developers',
  'docs',
  'help',
  'm',
  'media',
  'mobile',
  'on',
  'open',
  'policy',
  'reader',
  'status',
  'static',
  'support',
  'w',
  'www',
] as const;
