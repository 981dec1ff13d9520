import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';

/** The console's session cookie (docs/console.md, "Sessions"). */
export const SESSION_COOKIE = 'webcap_session';

/** The session token the request's cookie holds; the first of that name when several are sent. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === SESSION_COOKIE) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** Whether the cookie must be Secure: the request came over HTTPS, or the service is published at an https: URL. */
function secure(deps: AppDeps, request: FastifyRequest): boolean {
  return request.protocol === 'https' || deps.config.publicBaseUrl?.startsWith('https:') === true;
}

function cookie(deps: AppDeps, request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  // HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it (the first CSRF guard).
  const attributes = [
    `${SESSION_COOKIE}=${value}`,
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
