import { randomBytes } from 'node:crypto';

/** A new opaque identifier such as `acc_3kTq...`: 96 random bits, URL-safe. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
