import type { CallDeps } from './deps.js';
import { type Caller, charged, metered } from './metering.js';
import { cacheKey, getCached, putCached } from './result-cache.js';

/** The outcome of a call whose result is a JSON object (content, analyze). */
export interface JsonOutcome {
  /**
   * The result serialized as JSON, as stored in the cache: a hit is answered with these bytes as
   * they are, never parsed again.
   */
  readonly data: Buffer;
  /** 'hit' or 'miss' with cache=true, else null. */
  readonly cache: 'hit' | 'miss' | null;
  readonly billed: boolean;
}

const JSON_TYPE = 'application/json';

const ENVELOPE_START = Buffer.from('{"success":true,"data":');
const ENVELOPE_END = Buffer.from('}');

/**
 * `{success, data}` (the spec's envelope) around a result that is already JSON: wrapped, not
 * parsed and serialized again, which for a cached page of a few MB saves tens of milliseconds.
 */
export function enveloped(data: Buffer): Buffer {
  return Buffer.concat([ENVELOPE_START, data, ENVELOPE_END]);
}

/** Whether a cache entry looks like a whole JSON object (a torn write would not); else the call runs anew. */
function wholeObject(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x7b && bytes[bytes.length - 1] === 0x7d;
}

/**
 * The cache and metering of a call with a JSON result, once the target is checked: a cache hit
 * (keyed by the account and `keyParams`, every parameter that shapes the result) is charged and
 * answered; otherwise `produce` runs metered (billed only when it succeeds) and its result is
 * serialized once and cached, unless it is not `cacheable` (a page that never finished loading).
 */
export async function jsonResultCall(
  deps: CallDeps,
  caller: Caller,
  engine: string,
  keyParams: object,
  cache: { readonly ttlSeconds: number } | null,
  produce: () => Promise<{ readonly result: object; readonly cacheable: boolean }>,
): Promise<JsonOutcome> {
  const key = cache === null ? null : cacheKey(engine, caller.account.id, keyParams);
  if (key !== null) {
    const hit = await getCached(deps.blobs, key);
    if (hit !== null && wholeObject(hit.bytes)) {
      await charged(deps.metering, caller, engine);
      return { data: Buffer.from(hit.bytes), cache: 'hit', billed: true };
    }
  }
  const { value, billed } = await metered(deps.metering, caller, engine, async () => {
    const { result, cacheable } = await produce();
    const data = Buffer.from(JSON.stringify(result));
    if (key !== null && cache !== null && cacheable) {
      await putCached(deps.blobs, key, data, JSON_TYPE, cache.ttlSeconds, deps.metering.clock());
    }
    return data;
  });
  return { data: value, cache: key === null ? null : 'miss', billed };
}
