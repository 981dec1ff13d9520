import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';

/** The console's session cookie over http:// (development on localhost; docs/console.md, "Sessions"). */
export const SESSION_COOKIE = 'webcap_session';
/**
 * Its name over HTTPS. A browser keeps a `__Host-` cookie only if it is Secure, has `Path=/` and no
 * Domain, so no other host (a sibling subdomain, a plain-http page of the same name) can set one
 * that this service would read (RFC 6265bis, "Cookie Name Prefixes").
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The session token the request's cookie holds; the first of its name when several are sent. */
export function sessionTokenOf(deps: AppDeps, request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const name = cookieName(deps, request);
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Whether the console is served over HTTPS: the request came over it (directly, or by the
 * X-Forwarded-Proto of a proxy TRUST_PROXY names), or the service is published at an https: URL.
 */
function secure(deps: AppDeps, request: FastifyRequest): boolean {
  return request.protocol === 'https' || deps.config.publicBaseUrl?.startsWith('https:') === true;
}

function cookieName(deps: AppDeps, request: FastifyRequest): string {
  return secure(deps, request) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

function cookie(deps: AppDeps, request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  // HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it (the first CSRF guard).
  const attributes = [
    `${cookieName(deps, request)}=${value}`,
    'HttpOnly',
    'SameSite=Strict',
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (secure(deps, request)) attributes.push('Secure');
  return attributes.join('; ');
}

/** Sets the session cookie, kept by the browser until the session's absolute end. */
export function setSessionCookie(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
): void {
  const maxAgeSeconds = Math.floor(deps.config.console.sessionMaxMs / 1000);
  reply.header('set-cookie', cookie(deps, request, token, maxAgeSeconds));
}

/** Tells the browser to drop the session cookie. */
export function clearSessionCookie(deps: AppDeps, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookie(deps, request, '', 0));
}
