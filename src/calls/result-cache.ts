import { createHash } from 'node:crypto';
import { WebcapError } from '../errors.js';
import type { BlobStore, StoredBlob } from '../store/blobs.js';

/*
 * The result cache (`cache=true`) of every engine: a call's result in the blob store under
 * `cache/<key>`, expiring after `cache_ttl` through the store's own expiry, so a sweep reclaims
 * them like any blob. The cache is a shortcut, never a reason for a call to fail: while the store
 * is unavailable, reads are misses and writes keep nothing (the store logs why; docs/decisions.md).
 */

// Bump when an engine changes what the same parameters produce, so that old entries stop matching.
const KEY_VERSION = 'webcap-cache:v2';

/**
 * JSON with object keys sorted at every depth; plain data only (a Date or Map would hash as `{}`).
 * Fields named `omit` are left out wherever they are.
 */
export function canonicalJson(value: unknown, omit?: string): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, omit)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError('cache key parameters must be plain data');
  }
  const record = value as Record<string, unknown>;
  let json = '';
  for (const name of Object.keys(record).sort()) {
    const field = record[name];
    if (field === undefined || name === omit) continue;
    json += `${json === '' ? '' : ','}${JSON.stringify(name)}:${canonicalJson(field, omit)}`;
  }
  return `{${json}}`;
}

/**
 * The cache key of a call: SHA-256 hex of the engine, the account and the parameters that shape
 * the result, in canonical JSON. `normalizedParams` are the engine's typed parameters, with
 * defaults and aliases applied, so that two spellings of one request hash alike; how the result
 * is delivered (response type, upload, async, the cache itself) is not part of them: the edge
 * keeps it apart, so every field given counts. Scoped to the account: a
 * shared cache would tell one account, through `x-webcap-cache: hit`, what another one asked for.
 */
export function cacheKey(engine: string, accountId: string, normalizedParams: object): string {
  return createHash('sha256')
    .update(
      `${KEY_VERSION}\n${JSON.stringify(engine)}\n${JSON.stringify(accountId)}\n${canonicalJson(normalizedParams)}`,
    )
    .digest('hex');
}

/** The last key computed from each frozen parameter object (a memoized call spec's), by engine and account. */
const keysOfFrozen = new WeakMap<object, { engine: string; accountId: string; key: string }>();

/**
 * cacheKey, computed once for parameters that cannot change (frozen, as a memoized call spec's
 * are): a repeated call with the same spec and account skips the canonical JSON and the hash.
 * Kept per object, so it goes when the spec does.
 */
export function cacheKeyOf(engine: string, accountId: string, normalizedParams: object): string {
  if (!Object.isFrozen(normalizedParams)) return cacheKey(engine, accountId, normalizedParams);
  const known = keysOfFrozen.get(normalizedParams);
  if (known !== undefined && known.engine === engine && known.accountId === accountId) return known.key;
  const key = cacheKey(engine, accountId, normalizedParams);
  keysOfFrozen.set(normalizedParams, { engine, accountId, key });
  return key;
}

const BLOB_PREFIX = 'cache/';

function blobKey(key: string): string {
  return `${BLOB_PREFIX}${key}`;
}

/** Whether a blob key is a result-cache entry's (as opposed to a hosted file's or a job's). */
export function isResultCacheBlob(blobKey: string): boolean {
  return blobKey.startsWith(BLOB_PREFIX);
}

function isUnavailable(error: unknown): boolean {
  return error instanceof WebcapError && error.code === 'unavailable';
}

/** The cached result under the key, or null when there is none, it has expired, or the store is unavailable. */
export async function getCached(blobs: BlobStore, key: string): Promise<StoredBlob | null> {
  try {
    return await blobs.get(blobKey(key));
  } catch (error) {
    if (isUnavailable(error)) return null;
    throw error;
  }
}

/**
 * Caches a result under the key until now + ttlSeconds, replacing any earlier entry. metadata
 * carries what a hit needs besides the bytes (a capture's width and height), as blob metadata.
 * A store that is unavailable keeps nothing, and the result is delivered all the same.
 */
export async function putCached(
  blobs: BlobStore,
  key: string,
  bytes: Uint8Array,
  contentType: string,
  ttlSeconds: number,
  now: Date,
  metadata: Readonly<Record<string, string>> = {},
): Promise<void> {
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  try {
    await blobs.put(blobKey(key), bytes, { contentType, expiresAt, metadata });
  } catch (error) {
    if (!isUnavailable(error)) throw error;
  }
}
