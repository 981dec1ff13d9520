import { isSameSiteOrBelow } from '../site/site-url.js';

/** Which hosts a map keeps: the start page's, with www. or without, and with include_subdomains those below it. */
export interface MapScope {
  /** The start page's host, lower case, without port. */
  readonly host: string;
  readonly includeSubdomains: boolean;
}

const bare = (host: string) => (host.startsWith('www.') ? host.slice(4) : host);

/** Whether a URL on `host` belongs to the map: `www.` never makes another site, subdomains only when asked for. */
export function inScope(host: string, scope: MapScope): boolean {
  if (scope.includeSubdomains) return isSameSiteOrBelow(host, scope.host);
  return bare(host) === bare(scope.host);
}
