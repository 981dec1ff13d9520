import { isIP } from 'node:net';
import { invalidParam, WebcapError } from '../errors.js';
import { blockedError, type NetworkPolicy } from './address-policy.js';

/** A URL the service may fetch: http or https, its host parsed the way a browser parses it. */
export interface TargetUrl {
  readonly url: URL;
  /** The host without IPv6 brackets: a name, or an IP literal in canonical form. */
  readonly host: string;
  readonly port: number;
  readonly ipLiteral: boolean;
}

const SCHEMES = new Set(['http:', 'https:']);

/**
 * Host, port and, for an IP literal, the policy check. The WHATWG parser has already turned every
 * numeric spelling browsers accept (2130706433, 0x7f.1, 0177.0.0.1, 127.1) into a dotted quad and
 * IPv6 into its canonical form, so the check sees what a browser would connect to.
 */
function target(url: URL, policy: NetworkPolicy): TargetUrl {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const ipLiteral = isIP(host) !== 0;
  if (ipLiteral) {
    const verdict = policy.check(host, port);
    if (!verdict.allowed) throw blockedError(host, verdict, 'literal');
  }
  return { url, host, port, ipLiteral };
}

/**
 * Parses a caller's URL at the edge: an absolute http or https URL, else 400 naming `param`; an IP
 * literal host the policy refuses is 'blocked' at once. Host names are checked when resolved.
 */
export function parseTargetUrl(raw: string, policy: NetworkPolicy, param = 'url'): TargetUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidParam(param, 'must be an absolute http or https URL');
  }
  if (!SCHEMES.has(url.protocol)) {
    throw invalidParam(param, `must be an http or https URL (got scheme ${url.protocol.slice(0, -1)})`);
  }
  return target(url, policy);
}

/** The next hop of a redirect (Location resolved against the current URL); another scheme or a refused IP literal is 'blocked'. */
export function redirectTarget(location: string, current: URL, policy: NetworkPolicy): TargetUrl {
  let url: URL;
  try {
    url = new URL(location, current);
  } catch {
    throw new WebcapError('target_unreachable', 'redirect to an invalid URL');
  }
  if (!SCHEMES.has(url.protocol)) {
    throw new WebcapError('blocked', `redirect to a ${url.protocol.slice(0, -1)} URL`);
  }
  return target(url, policy);
}
