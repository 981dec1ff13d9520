import { randomBytes } from 'node:crypto';
import { argon2id, hash, verify } from 'argon2';
import { invalidParam } from '../errors.js';

/**
 * argon2id with OWASP's minimum for it (19 MiB, 2 passes, 1 lane): about 100 ms per hash here,
 * run on libuv's thread pool, off the event loop.
 * https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id
 */
const OPTIONS = { type: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_CHARS = 10;
export const PASSWORD_MAX_CHARS = 200;

/** A 400 naming `param` unless the password has 10 to 200 characters. */
export function checkPassword(password: string, param: string): void {
  const chars = [...password].length;
  if (chars < PASSWORD_MIN_CHARS || chars > PASSWORD_MAX_CHARS) {
    throw invalidParam(param, `must have ${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters`);
  }
}

/** The password's argon2id hash in PHC string form (salt and parameters included). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** Whether the password matches the hash; false for a hash that cannot be read. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

let decoy: Promise<string> | undefined;

/**
 * Spends the time of one password check on nothing: a sign-in for an email nobody has, or with a
 * wrong admin token, takes as long as a wrong password, so timing tells neither apart.
 */
export async function spendPasswordCheck(password: string): Promise<void> {
  decoy ??= hashPassword(randomBytes(16).toString('base64url'));
  await verifyPassword(await decoy, password);
}

/** A random password of 24 URL-safe characters (144 bits), for an operator to hand over once. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
