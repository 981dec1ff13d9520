import type { FastifyRequest } from 'fastify';
import type { KeyCache } from '../billing/key-cache.js';
import { callerOfKey } from '../calls/caller.js';
import type { Caller } from '../calls/metering.js';
import { WebcapError } from '../errors.js';
import { isSignedLink, type SignedLinkDeps, signedLinkCaller } from './signed-links.js';

/** Which generation of the interface a route belongs to: it decides where the key is read from. */
export type ApiGeneration = 'v1' | 'legacy' | 'any';

/** The query parameter (and, for the earlier endpoints, body field) each generation reads its key from. */
export const KEY_PARAM = { v1: 'x_api_key', legacy: 'access_key' } as const;

export type AuthContext = Caller;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every route that needs an API key. */
    auth?: ApiGeneration;
    /** The engine slug of the stats catalog this route belongs to. */
    engine?: string;
    /** Set on routes whose success is billed: HEAD is refused there (docs/security.md). */
    billable?: true;
    /** The parameter holding the call's target URL, which the request log records. */
    target?: string;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

function firstString(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

function field(container: unknown, name: string): string | undefined {
  return typeof container === 'object' && container !== null
    ? firstString((container as Record<string, unknown>)[name])
    : undefined;
}

/** A presented key and whether it came in the query string (where a signed-only key is refused). */
interface Presented {
  readonly key: string | undefined;
  readonly inQuery: boolean;
}

function presented(request: FastifyRequest, generation: ApiGeneration, body: unknown): Presented {
  const v1 = (): Presented => {
    const header = firstString(request.headers['x-api-key']);
    if (header !== undefined) return { key: header, inQuery: false };
    const query = field(request.query, KEY_PARAM.v1);
    return { key: query, inQuery: query !== undefined };
  };
  if (generation === 'v1') return v1();
  if (generation === 'any') {
    const first = v1();
    return first.key !== undefined ? first : presented(request, 'legacy', body);
  }
  const query = field(request.query, KEY_PARAM.legacy);
  if (query !== undefined) return { key: query, inQuery: true };
  return {
    key: firstString(request.headers['x-access-key']) ?? field(body, KEY_PARAM.legacy),
    inQuery: false,
  };
}

/**
 * The key a request presents (spec "Authentication"): v1 takes the header x-api-key or the
 * query x_api_key; the earlier endpoints take access_key in the query, x-access-key, or
 * access_key in the body, in that order (the body last, so that a key outside it is known
 * before the body is read). Routes that serve both generations (job polling) take either.
 */
export function presentedKey(
  request: FastifyRequest,
  generation: ApiGeneration,
  body: unknown = request.body,
): string | undefined {
  return presented(request, generation, body).key;
}

/** The header the console's playground names one of its account's keys with, by id (docs/console.md). */
const CONSOLE_KEY_HEADER = 'x-webcap-console-key';

/** The key id of a playground call, when the request names one. */
function consoleKeyOf(request: FastifyRequest): string | undefined {
  return firstString(request.headers[CONSOLE_KEY_HEADER]);
}

/**
 * Whether the key that counts is known before the body is read: always on v1, whose key is
 * never in the body, on a playground call (its key is named in a header), and on the other routes
 * when a key is given in the query or a header, which the body's cannot override. Such a request
 * is authenticated before its body is parsed.
 */
export function keyBeforeBody(request: FastifyRequest, generation: ApiGeneration): boolean {
  return (
    generation === 'v1' ||
    consoleKeyOf(request) !== undefined ||
    presentedKey(request, generation, undefined) !== undefined
  );
}

/** The caller of an authenticated route (its auth hook has run). */
export function callerOf(request: FastifyRequest): Caller {
  if (request.auth === null) throw new WebcapError('invalid_key');
  return request.auth;
}

/** What the key check needs: the keys, the time, signed links' keys, and the console session check of a playground call. */
export interface AuthDeps extends SignedLinkDeps {
  readonly keys: KeyCache;
  /**
   * The caller of a playground call naming `keyId` (http/console/playground.ts): the request's
   * console session (with its CSRF token) for the key's account, then callerOfKeyId.
   */
  readonly playground: (request: FastifyRequest, keyId: string) => Promise<Caller>;
}

const SIGNED_ONLY = new WebcapError(
  'forbidden',
  'this key is taken in a query string only in a signed link (docs/signed-links.md); send it in the X-API-Key header, or sign the link',
);

/**
 * Resolves the request's key to its account, or throws the 401/403 the spec gives: the key the
 * request presents, on a v1 call a signed link's key (http/signed-links.ts), or, on a playground
 * call, the key its console session names by id. A signed-only key is refused in a query string.
 */
export async function authenticate(
  deps: AuthDeps,
  request: FastifyRequest,
  generation: ApiGeneration,
): Promise<AuthContext> {
  const keyId = consoleKeyOf(request);
  if (keyId !== undefined) return deps.playground(request, keyId);
  if (request.routeOptions.config.signedLinks === true && isSignedLink(request)) {
    return signedLinkCaller(deps, request);
  }
  const { key, inQuery } = presented(request, generation, request.body);
  const caller = await callerOfKey(deps.keys, key, deps.clock());
  if (inQuery && caller.key.signedOnly) throw SIGNED_ONLY;
  return caller;
}
