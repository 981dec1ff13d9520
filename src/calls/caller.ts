import type { KeyCache } from '../billing/key-cache.js';
import { checkKey, type FoundKey, type KeyVerification } from '../billing/keys.js';
import { WebcapError } from '../errors.js';
import type { Caller } from './metering.js';

const REJECTIONS = {
  unknown: new WebcapError('invalid_key'),
  inactive: new WebcapError('invalid_key', 'key is inactive'),
  expired: new WebcapError('invalid_key', 'key has expired'),
  account_inactive: new WebcapError('forbidden', 'account deactivated'),
} as const;

/** The caller of a key's verdict, or the 401/403 the spec gives for it. */
function callerOfVerdict(result: KeyVerification): Caller {
  if (!result.ok) throw REJECTIONS[result.reason];
  return { account: result.account, key: result.key };
}

/**
 * The caller a presented key stands for at `now`, or the 401/403 the spec gives: the one check of
 * a key, for the REST routes, the MCP endpoint and `webcap mcp` alike.
 */
export async function callerOfKey(keys: KeyCache, plaintext: string | undefined, now: Date): Promise<Caller> {
  if (plaintext === undefined || plaintext === '') throw REJECTIONS.unknown;
  return callerOfVerdict(await keys.verify(plaintext, now));
}

/**
 * The caller a key of `accountId`, named by its id, stands for at `now`: the playground's calls,
 * checked as a presented key is (active, unexpired, its account active); another account's key is
 * unknown (401).
 */
export async function callerOfKeyId(
  keys: KeyCache,
  keyId: string,
  accountId: string,
  now: Date,
): Promise<Caller> {
  return callerOfVerdict(await keys.verifyId(keyId, accountId, now));
}

/** The caller a key found by other means (a signed link's key_id) stands for at `now`, checked as a presented key is. */
export function callerOfFoundKey(found: FoundKey, now: Date): Caller {
  return callerOfVerdict(checkKey(found, now));
}
