import { content } from '../engines/content/content.js';
import type { ContentParams, ContentResult } from '../engines/content/params.js';
import type { CallDeps } from './deps.js';
import { type Caller, charged, metered } from './metering.js';
import { cacheKey, getCached, putCached } from './result-cache.js';

/** A content call's outcome: the result, whether the cache served it, whether it was billed. */
export interface ContentOutcome {
  readonly result: ContentResult;
  /** 'hit' or 'miss' with cache=true, else null. */
  readonly cache: 'hit' | 'miss' | null;
  readonly billed: boolean;
}

const JSON_TYPE = 'application/json';

/** A cached result, or null when the entry is unreadable (then the call renders anew). */
function parseCached(bytes: Uint8Array): ContentResult | null {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as ContentResult;
  } catch {
    return null;
  }
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
    const result = hit === null ? null : parseCached(hit.bytes);
    if (result !== null) {
      await charged(deps.metering, caller, 'content');
      return { result, cache: 'hit', billed: true };
    }
  }
  const { value, billed } = await metered(deps.metering, caller, 'content', async () => {
    const result = await content(deps.content, params);
    if (key !== null && cache !== null) {
      const bytes = Buffer.from(JSON.stringify(result));
      await putCached(deps.blobs, key, bytes, JSON_TYPE, cache.ttlSeconds, deps.metering.clock());
    }
    return result;
  });
  return { result: value, cache: key === null ? null : 'miss', billed };
}
