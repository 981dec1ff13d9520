import type { StoredBlob } from '../store/blobs.js';
import type { CallDeps } from './deps.js';
import { type Caller, charged, metered } from './metering.js';
import { cacheKeyOf, getCached, putCached } from './result-cache.js';

/** What a call keeps in the result cache: its bytes, their type and what a hit needs besides. */
export interface CacheEntry {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** How one kind of call reads, makes, keeps and delivers its result. */
export interface CachedCallSteps<R, V> {
  /**
   * Refuses what making the result needs (the target's host name resolved and checked, the
   * caller's proxy) before a unit is reserved. A hit skips it: the entry was made by the same
   * account's call that passed it, and serving it fetches nothing, so a hit costs no DNS lookup.
   */
  check(): Promise<void>;
  /** The result a cache entry holds, or null when the entry is not whole (a torn write): the call then runs anew. */
  fromEntry(entry: StoredBlob): R | null;
  /** Makes the result anew, and what of it to cache: null when it must not be (a page that never finished loading). */
  produce(): Promise<{ readonly result: R; readonly entry: CacheEntry | null }>;
  /** What the caller gets from the result; it runs metered, so a delivery that fails is not billed. */
  deliver(result: R): Promise<V>;
  /** Whether `deliver` can not fail (the result is the answer): a hit is then billed in one step. */
  readonly deliveryIsFree: boolean;
}

/** A call's answer, whether the cache served it ('hit'/'miss' with cache=true, else null), whether it was billed. */
export interface CachedOutcome<V> {
  readonly value: V;
  readonly cache: 'hit' | 'miss' | null;
  readonly billed: boolean;
}

/**
 * The one cache-then-meter flow of every call with a cacheable result: the entry of the
 * account's earlier call with the same `keyParams` (every parameter that shapes the result) is
 * looked up; a hit whose delivery cannot fail is charged and answered at once; without a hit the
 * call's target is checked; anything else runs metered (billed only when it succeeds): the hit or
 * a new result, cached when it may be, then delivered.
 */
export async function cachedCall<R, V>(
  deps: CallDeps,
  caller: Caller,
  engine: string,
  keyParams: object,
  cache: { readonly ttlSeconds: number } | null,
  steps: CachedCallSteps<R, V>,
): Promise<CachedOutcome<V>> {
  const key = cache === null ? null : cacheKeyOf(engine, caller.account.id, keyParams);
  const entry = key === null ? null : await getCached(deps.blobs, key);
  const hit = entry === null ? null : steps.fromEntry(entry);
  if (hit === null) await steps.check();
  else if (steps.deliveryIsFree) {
    await charged(deps.metering, caller, engine);
    return { value: await steps.deliver(hit), cache: 'hit', billed: true };
  }
  const { value, billed } = await metered(deps.metering, caller, engine, async () => {
    if (hit !== null) return steps.deliver(hit);
    const made = await steps.produce();
    if (key !== null && cache !== null && made.entry !== null) {
      const { bytes, contentType, metadata } = made.entry;
      await putCached(deps.blobs, key, bytes, contentType, cache.ttlSeconds, deps.metering.clock(), metadata);
    }
    return steps.deliver(made.result);
  });
  return { value, cache: key === null ? null : hit !== null ? 'hit' : 'miss', billed };
}
