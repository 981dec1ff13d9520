import { content } from '../engines/content/content.js';
import type { ContentParams } from '../engines/content/params.js';
import type { CallDeps } from './deps.js';
import { type Caller, charged, metered } from './metering.js';
import { cacheKey, getCached, putCached } from './result-cache.js';

/** A content call's outcome: the Content result as JSON, whether the cache served it, whether it was billed. */
export interface ContentOutcome {
  /**
   * The spec's Content result (engines/content/params.ts ContentResult) serialized as JSON, as
   * stored in the cache: a hit is answered with these bytes as they are, never parsed again.
   */
  readonly data: Buffer;
  /** 'hit' or 'miss' with cache=true, else null. */
  readonly cache: 'hit' | 'miss' | null;
  readonly billed: boolean;
}

const JSON_TYPE = 'application/json';

/** Whether a cache entry looks like a whole JSON object (a torn write would not); else the call renders anew. */
function wholeObject(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x7b && bytes[bytes.length - 1] === 0x7d;
}

/**
 * One content call, whatever transport it came by: the target and the caller's proxy are
 * checked before a unit is reserved, then the cache (keyed by the account and every parameter
 * that shapes the result), then the metered render and extraction.
 */
export async function contentCall(
  deps: CallDeps,
  caller: Caller,
  params: ContentParams,
  cache: { readonly ttlSeconds: number } | null,
): Promise<ContentOutcome> {
  await deps.guard.checkTarget(params.url, 'url');
  if (params.proxy !== null) await deps.guard.checkUpstream(params.proxy);
  const key = cache === null ? null : cacheKey('content', caller.account.id, params);
  if (key !== null) {
    const hit = await getCached(deps.blobs, key);
    if (hit !== null && wholeObject(hit.bytes)) {
      await charged(deps.metering, caller, 'content');
      return { data: Buffer.from(hit.bytes), cache: 'hit', billed: true };
    }
  }
  const { value, billed } = await metered(deps.metering, caller, 'content', async () => {
    const data = Buffer.from(JSON.stringify(await content(deps.content, params)));
    if (key !== null && cache !== null) {
      await putCached(deps.blobs, key, data, JSON_TYPE, cache.ttlSeconds, deps.metering.clock());
    }
    return data;
  });
  return { data: value, cache: key === null ? null : 'miss', billed };
}
