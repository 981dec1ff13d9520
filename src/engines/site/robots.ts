import { wildcardMatch } from '../../browser/url-patterns.js';

/**
 * robots.txt as RFC 9309 reads it, for one crawler: the group for its product token (else the
 * `*` group), its Allow and Disallow rules, and the Crawl-delay extension. Matching is linear in
 * the path: a rule is a `*` wildcard pattern, anchored at the start, and at the end only with `$`.
 */

/** webcap's product token, as a site names it in a User-agent line. */
export const ROBOTS_TOKEN = 'webcap';

/** A group's rules past these are ignored: no real site needs more, and each path is checked against them all. */
const MAX_RULES = 2000;
const MAX_PATTERN_CHARS = 2048;
/** A Crawl-delay above this is taken as this: an hour between pages would stall a crawl, not slow it. */
export const MAX_CRAWL_DELAY_SECONDS = 60;

export interface RobotsRule {
  readonly allow: boolean;
  readonly pattern: string;
}

/** What a crawler is allowed on one host. */
export interface RobotsRules {
  readonly rules: readonly RobotsRule[];
  /** Seconds between requests the site asks for, capped at MAX_CRAWL_DELAY_SECONDS; null when it asks none. */
  readonly crawlDelaySeconds: number | null;
}

/** No robots.txt (404, or 4xx other than 429, RFC 9309 §2.3.1.3): everything is allowed. */
export const ALLOW_ALL: RobotsRules = { rules: [], crawlDelaySeconds: null };
/** robots.txt unreachable (5xx, network; §2.3.1.4): the site is taken as fully disallowed. */
export const DISALLOW_ALL: RobotsRules = { rules: [{ allow: false, pattern: '/' }], crawlDelaySeconds: null };

interface Group {
  agents: string[];
  rules: RobotsRule[];
  crawlDelaySeconds: number | null;
}

/** Parses robots.txt for `token`; lines it cannot read are skipped, as §2.2 asks. */
export function parseRobots(text: string, token: string = ROBOTS_TOKEN): RobotsRules {
  const groups: Group[] = [];
  let current: Group | null = null;
  let lastWasAgent = false;
  for (const rawLine of text.split(/\r\n?|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = (hash === -1 ? rawLine : rawLine.slice(0, hash)).trim();
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'user-agent') {
      if (current === null || !lastWasAgent) {
        current = { agents: [], rules: [], crawlDelaySeconds: null };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (current === null) continue;
    if (field === 'allow' || field === 'disallow') {
      // An empty Disallow allows everything: it adds no rule.
      if (value === '' || value.length > MAX_PATTERN_CHARS || current.rules.length >= MAX_RULES) continue;
      current.rules.push({ allow: field === 'allow', pattern: value });
    } else if (field === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) {
        current.crawlDelaySeconds = Math.min(seconds, MAX_CRAWL_DELAY_SECONDS);
      }
    }
  }
  const wanted = token.toLowerCase();
  const own = groups.filter((g) => g.agents.includes(wanted));
  const chosen = own.length > 0 ? own : groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules).slice(0, MAX_RULES);
  const delays = chosen.flatMap((g) => (g.crawlDelaySeconds === null ? [] : [g.crawlDelaySeconds]));
  return { rules, crawlDelaySeconds: delays.length === 0 ? null : Math.max(...delays) };
}

/** Whether `pattern` matches `path` (path and query) under §2.2.2: a prefix, `*` any run, `$` the end. */
function ruleMatches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const pieces = (anchored ? body : `${body}*`).split('*');
  return wildcardMatch(pieces, path);
}

/** The rule's length as §2.2.2 compares them: its octets, the `$` not counted. */
function specificity(rule: RobotsRule): number {
  return rule.pattern.endsWith('$') ? rule.pattern.length - 1 : rule.pattern.length;
}

/**
 * Whether the crawler may fetch `url`: the longest matching rule decides, Allow winning a tie;
 * no matching rule allows. /robots.txt itself is always allowed (§2.2.2).
 */
export function robotsAllow(robots: RobotsRules, url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const path = `${parsed.pathname}${parsed.search}`;
  if (parsed.pathname === '/robots.txt') return true;
  let best: RobotsRule | null = null;
  for (const rule of robots.rules) {
    if (!ruleMatches(rule.pattern, path)) continue;
    if (best === null) {
      best = rule;
      continue;
    }
    const longer = specificity(rule) - specificity(best);
    if (longer > 0 || (longer === 0 && rule.allow && !best.allow)) best = rule;
  }
  return best === null || best.allow;
}
