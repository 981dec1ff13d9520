import type { KeyCache } from '../billing/key-cache.js';
import type { Caller } from '../calls/metering.js';
import { WebcapError } from '../errors.js';

/** The refusals of a key, as the REST routes give them (http/auth.ts). */
const REJECTIONS = {
  unknown: () => new WebcapError('invalid_key'),
  inactive: () => new WebcapError('invalid_key', 'key is inactive'),
  expired: () => new WebcapError('invalid_key', 'key has expired'),
  account_inactive: () => new WebcapError('forbidden', 'account deactivated'),
} as const;

/** The caller a key stands for at `now`, or the 401/403 that says why not. */
export async function callerOfKey(keys: KeyCache, plaintext: string | undefined, now: Date): Promise<Caller> {
  if (plaintext === undefined || plaintext === '') throw REJECTIONS.unknown();
  const result = await keys.verify(plaintext, now);
  if (!result.ok) throw REJECTIONS[result.reason]();
  return { account: result.account, key: result.key };
}
