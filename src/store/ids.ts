import { randomBytes } from 'node:crypto';

/** A new opaque identifier such as `acc_3kTq...`: 96 random bits, URL-safe. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

/**
 * An identifier for rows written at a high rate (ledger reservations, request log): the time in
 * ms then 72 random bits, URL-safe, so that ids sort by creation. New rows then land at the end
 * of the primary-key index instead of on a random page each, and a batch of inserts writes a page
 * or two rather than one page per row.
 */
export function timeOrderedId(prefix: string, now = Date.now()): string {
  const time = Buffer.alloc(6);
  time.writeUIntBE(now, 0, 6);
  // base64url's alphabet is not in ASCII order, so the time goes in hex, which is.
  return `${prefix}_${time.toString('hex')}${randomBytes(9).toString('base64url')}`;
}
