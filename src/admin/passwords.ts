import { randomBytes } from 'node:crypto';
import { argon2id, hash, verify } from 'argon2';
import { invalidParam } from '../errors.js';
import { PasswordQueue, type QueuePlace } from './password-queue.js';

/**
 * argon2id with OWASP's minimum for it (19 MiB, 2 passes, 1 lane): about 100 ms of one core per
 * hash here, run on libuv's thread pool, off the event loop.
 * https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id
 */
const OPTIONS = { type: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * Every hash and check of the process goes through this one queue (docs/security.md, "The
 * password queue"): libuv's pool is one per process, so its bound is too. One operation at a
 * time holds one of the pool's 4 threads and one core (about 10 checks a second); a client
 * address holds at most 4 places and everyone together 32 (about 3 s of checks).
 */
const QUEUE = new PasswordQueue({ running: 1, perSource: 4, total: 32 });

export const PASSWORD_MIN_CHARS = 10;
export const PASSWORD_MAX_CHARS = 200;

/** A 400 naming `param` unless the password has 10 to 200 characters. */
export function checkPassword(password: string, param: string): void {
  const chars = [...password].length;
  if (chars < PASSWORD_MIN_CHARS || chars > PASSWORD_MAX_CHARS) {
    throw invalidParam(param, `must have ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters`);
  }
}

/**
 * A place in the password queue for `source` (the client's address, or the CLI), taken at once:
 * 503 with Retry-After when the source or the queue holds all it may.
 */
export function passwordPlace(source: string): QueuePlace {
  return QUEUE.enter(source);
}

/** The password's argon2id hash in PHC string form (salt and parameters included), in a place of `source`'s. */
export function hashPassword(password: string, source: string): Promise<string> {
  return QUEUE.enter(source).run(() => hash(password, OPTIONS));
}

async function matches(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

let decoy: Promise<string> | undefined;

/**
 * Whether the password matches the stored hash, checked in the place's turn; false for a hash that
 * cannot be read. With no hash (an email nobody has, a wrong admin token) it spends the time of a
 * check on nothing and is false, so timing tells neither apart from a wrong password.
 */
export function verifyPassword(place: QueuePlace, stored: string | null, password: string): Promise<boolean> {
  return place.run(async () => {
    if (stored !== null) return matches(stored, password);
    decoy ??= hash(randomBytes(16).toString('base64url'), OPTIONS);
    await matches(await decoy, password);
    return false;
  });
}

/** A random password of 24 URL-safe characters (144 bits), for an operator to hand over once. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
