import { createHash, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TObject, Type } from 'typebox';
import type { SigningKey } from '../billing/signing-secrets.js';
import { callerOfFoundKey } from '../calls/caller.js';
import type { Caller } from '../calls/metering.js';
import type { Clock } from '../clock.js';
import { invalidParam, WebcapError } from '../errors.js';
import type { Sealer } from '../jobs/sealed.js';
import {
  canonicalQuery,
  isSignedLinkParam,
  querySignatureBytes,
  SIGNED_LINK_MAX_SECONDS,
  SIGNED_LINK_PARAMS,
} from '../requests/signed-link.js';

/*
 * The server's side of signed links (docs/signed-links.md): a GET that names its key by id and
 * proves it knows the key's signing secret, checked in the auth hook before anything is parsed
 * or billed, and answered with headers that let a browser or a CDN keep the result.
 */

/** The signed link a request was authenticated by. */
export interface SignedLink {
  /** Unix seconds after which the link is refused. */
  readonly expires: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the endpoints whose GET takes signed links (a POST with one is refused). */
    signedLinks?: true;
  }
  interface FastifyRequest {
    /** The signed link the request came with; null for every other request. */
    signedLink: SignedLink | null;
  }
}

const KEY_ID_MAX_CHARS = 64;
const SIGNATURE = /^[0-9a-f]{64}$/;
const EXPIRES = /^[0-9]{1,12}$/;

/** The query fields of a signed link, as the OpenAPI document shows them on the routes that take them. */
const SIGNED_LINK_FIELDS = {
  key_id: Type.Optional(
    Type.String({ maxLength: KEY_ID_MAX_CHARS, description: 'signed links: the id of the key that signed' }),
  ),
  expires: Type.Optional(
    Type.String({
      pattern: EXPIRES.source,
      maxLength: 12,
      description: `signed links: Unix seconds after which the link is refused, at most ${SIGNED_LINK_MAX_SECONDS} s ahead`,
    }),
  ),
  signature: Type.Optional(
    Type.String({
      pattern: SIGNATURE.source,
      maxLength: 64,
      description:
        'signed links: lowercase hex HMAC-SHA256 of the canonical query under the key signing secret (docs/signed-links.md)',
    }),
  ),
};

/** A GET route's query schema with the signed link's fields beside its own. */
export function withSignedLinkFields(query: TObject): TObject {
  return Type.Object({ ...query.properties, ...SIGNED_LINK_FIELDS }, { additionalProperties: false });
}

function queryOf(request: FastifyRequest): Record<string, unknown> {
  const query = request.query;
  return typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
}

/** Whether the request carries any of a signed link's parameters. */
export function isSignedLink(request: FastifyRequest): boolean {
  const query = queryOf(request);
  return SIGNED_LINK_PARAMS.some((name) => query[name] !== undefined);
}

/** The query's name and value pairs as the route reads them (a repeated name once per value). */
function queryPairs(query: Record<string, unknown>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string') throw invalidParam(name, 'must be text in a signed link');
      pairs.push([name, item]);
    }
  }
  return pairs;
}

function single(query: Record<string, unknown>, name: string, shape: RegExp, what: string): string {
  const value = query[name];
  if (value === undefined)
    throw invalidParam(name, 'is required in a signed link (key_id, expires, signature)');
  if (typeof value !== 'string' || !shape.test(value)) throw invalidParam(name, what);
  return value;
}

function signedKeyId(query: Record<string, unknown>): string {
  const value = query.key_id;
  if (value === undefined) {
    throw invalidParam('key_id', 'is required in a signed link (key_id, expires, signature)');
  }
  if (typeof value !== 'string' || value === '' || value.length > KEY_ID_MAX_CHARS) {
    throw invalidParam('key_id', `must be one key id of 1 to ${KEY_ID_MAX_CHARS} characters`);
  }
  return value;
}

/**
 * The request URL without a signed link's own parameters (key_id, expires, signature, as sent):
 * what the call itself asks for, the same for every link to it. A parameter of theirs spelt
 * otherwise (percent-encoded) stays, and with it the signature that the access log redacts.
 */
export function withoutSignedLinkParams(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return url;
  const nameOf = (pair: string) => {
    const eq = pair.indexOf('=');
    return eq === -1 ? pair : pair.slice(0, eq);
  };
  const kept = url
    .slice(at + 1)
    .split('&')
    .filter((pair) => !isSignedLinkParam(nameOf(pair)));
  return kept.length === 0 ? url.slice(0, at) : `${url.slice(0, at)}?${kept.join('&')}`;
}

/** What checking a signed link needs: the key by id, the sealer of its secret, and the time. */
export interface SignedLinkDeps {
  readonly signingKey: (id: string) => Promise<SigningKey | undefined>;
  readonly keySecrets: Sealer;
  readonly clock: Clock;
}

const MISMATCH = new WebcapError(
  'invalid_key',
  'signed link: the signature does not match (an unknown key_id, a parameter changed since signing, or a signing secret rotated since)',
);

/**
 * Signing secrets as opened, per sealer (the service's secret) and by their sealed text, read
 * afresh each time, so a rotation is seen at once. Per sealer: a text that one service secret
 * opens is never answered for a sealer that could not open it.
 */
const openedSecrets = new WeakMap<Sealer, Map<string, KeyObject>>();
const OPENED_SECRETS_MAX = 256;

/**
 * The signing secret sealed in `sealed`, opened once for as long as the sealed text is in use, as
 * an HMAC key: AES-GCM is a fixed function of the text and the sealer's key, which the process
 * holds anyway.
 */
function openedSecret(sealer: Sealer, sealed: string): KeyObject {
  let opened = openedSecrets.get(sealer);
  if (opened === undefined) {
    opened = new Map();
    openedSecrets.set(sealer, opened);
  }
  const known = opened.get(sealed);
  if (known !== undefined) return known;
  const secret = createSecretKey(Buffer.from(sealer.open<string>(sealed), 'utf8'));
  if (opened.size >= OPENED_SECRETS_MAX) opened.clear();
  opened.set(sealed, secret);
  return secret;
}

/**
 * The caller a signed link stands for, or the error that refuses it, before anything is rendered
 * or billed: bad shapes are 400s naming the parameter; an unknown key or a signature that does
 * not match is a 401; a key without a secret, an expired link and one that expires too far ahead
 * are 403s; then the key is checked as a presented key is (active, unexpired, account active).
 */
export async function signedLinkCaller(deps: SignedLinkDeps, request: FastifyRequest): Promise<Caller> {
  if (request.method !== 'GET') {
    throw new WebcapError(
      'invalid_key',
      'signed links are taken only by GET /v1/capture, /v1/content and /v1/analyze',
    );
  }
  const query = queryOf(request);
  if (request.headers['x-api-key'] !== undefined || query.x_api_key !== undefined) {
    throw invalidParam('signature', 'comes without an API key: a signed link names its key by key_id');
  }
  const keyId = signedKeyId(query);
  const expires = Number(single(query, 'expires', EXPIRES, 'must be Unix seconds, digits only'));
  const signature = single(query, 'signature', SIGNATURE, 'must be 64 lowercase hex digits');
  let canonical: string;
  try {
    canonical = canonicalQuery(queryPairs(query));
  } catch (error) {
    if (error instanceof URIError) throw invalidParam('signature', 'covers text that is not valid Unicode');
    throw error;
  }
  const signing = await deps.signingKey(keyId);
  if (signing === undefined) throw MISMATCH;
  if (signing.sealedSecret === null) {
    throw new WebcapError(
      'forbidden',
      `key ${keyId} has no signing secret: rotate one in (webcap admin keys rotate-signing-secret) to sign links`,
    );
  }
  let secret: KeyObject;
  try {
    secret = openedSecret(deps.keySecrets, signing.sealedSecret);
  } catch {
    throw new WebcapError(
      'forbidden',
      `the signing secret of key ${keyId} cannot be opened (WEBCAP_SIGNING_SECRET changed?): rotate it`,
    );
  }
  const expected = querySignatureBytes(secret, canonical);
  // Both are 32 bytes (the shape was checked): the comparison takes the same time wherever they differ.
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) throw MISMATCH;
  const now = deps.clock();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (expires <= nowSeconds) {
    throw new WebcapError('forbidden', `signed link expired at ${new Date(expires * 1000).toISOString()}`);
  }
  if (expires - nowSeconds > SIGNED_LINK_MAX_SECONDS) {
    throw new WebcapError(
      'forbidden',
      `signed link expires more than ${SIGNED_LINK_MAX_SECONDS} seconds (366 days) ahead`,
    );
  }
  const caller = callerOfFoundKey(signing.found, now);
  request.signedLink = { expires };
  return caller;
}

/** How long a signed answer may be kept without a cache: an hour, as a page's images usually are. */
const SIGNED_NO_CACHE_MAX_AGE_SECONDS = 3600;

/** The ETag of each result-cache entry's bytes in memory, so a repeated hit hashes its 146 KB once. */
const etags = new WeakMap<Uint8Array, string>();

/** A strong ETag of the bytes sent: their SHA-256, computed once per buffer (buffers sent are never changed). */
function etagOf(bytes: Uint8Array | string): string {
  if (typeof bytes === 'string') return `"${createHash('sha256').update(bytes).digest('base64url')}"`;
  let etag = etags.get(bytes);
  if (etag === undefined) {
    etag = `"${createHash('sha256').update(bytes).digest('base64url')}"`;
    etags.set(bytes, etag);
  }
  return etag;
}

/**
 * The caching headers of a signed link's success: public for max-age seconds (the call's cache
 * TTL, else an hour, never past the link's expiry nor a hosted file's lifetime) and a strong ETag
 * of the bytes sent. True when the request's If-None-Match names those bytes: the answer is then
 * 304 without a body.
 */
export function signedCaching(
  request: FastifyRequest,
  reply: FastifyReply,
  link: SignedLink,
  options: {
    readonly cacheTtlSeconds: number | null;
    readonly fileUrlTtlSeconds: number;
    readonly now: Date;
  },
  bytes: Uint8Array | string,
): boolean {
  const left = link.expires - Math.floor(options.now.getTime() / 1000);
  const maxAge = Math.max(
    0,
    Math.min(options.cacheTtlSeconds ?? SIGNED_NO_CACHE_MAX_AGE_SECONDS, options.fileUrlTtlSeconds, left),
  );
  const etag = etagOf(bytes);
  reply.header('cache-control', `public, max-age=${maxAge}`).header('etag', etag);
  const given = request.headers['if-none-match'];
  if (typeof given !== 'string') return false;
  return given === '*' || given.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
