import { type CachedOutcome, cachedCall } from './cached-call.js';
import type { CallDeps } from './deps.js';
import type { Caller } from './metering.js';

/**
 * The outcome of a call whose result is a JSON object (content, analyze). `value` is the result
 * serialized as JSON, as stored in the cache: a hit is answered with these bytes as they are,
 * never parsed again.
 */
export type JsonOutcome = CachedOutcome<Buffer>;

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

const SUCCESS_START = Buffer.from('{"success":true,');

/**
 * `{success: true, ...members}` from a result object that is already JSON (extract's
 * `{data, warnings?}`): `success` is put in front of its members, not parsed and serialized again.
 */
export function succeeded(members: Buffer): Buffer {
  return Buffer.concat([SUCCESS_START, members.subarray(1)]);
}

/** Whether a cache entry looks like a whole JSON object (a torn write would not); else the call runs anew. */
function wholeObject(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x7b && bytes[bytes.length - 1] === 0x7d;
}

/**
 * A call with a JSON result through the one cache-then-meter flow: `check` refuses its target
 * when there is no hit (cachedCall), `produce` runs metered and its result is serialized once (a
 * string is taken as its JSON text already, serialized where it was made), and cached unless it
 * is not `cacheable` (a page that never finished loading).
 */
export function jsonResultCall(
  deps: CallDeps,
  caller: Caller,
  engine: string,
  keyParams: object,
  cache: { readonly ttlSeconds: number } | null,
  check: () => Promise<void>,
  produce: () => Promise<{ readonly result: object | string; readonly cacheable: boolean }>,
): Promise<JsonOutcome> {
  return cachedCall(deps, caller, engine, keyParams, cache, {
    check,
    fromEntry: (entry) => (wholeObject(entry.bytes) ? Buffer.from(entry.bytes) : null),
    async produce() {
      const { result, cacheable } = await produce();
      const data = Buffer.from(typeof result === 'string' ? result : JSON.stringify(result));
      return { result: data, entry: cacheable ? { bytes: data, contentType: JSON_TYPE } : null };
    },
    deliver: async (data) => data,
    deliveryIsFree: true,
  });
}
