import { randomBytes, randomFillSync } from 'node:crypto';

/** A new opaque identifier such as `acc_3kTq...`: 96 random bits, URL-safe. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

// Random bytes drawn 4 KB at a time: one call into OpenSSL per 455 ids instead of one per id.
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomBase64url(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString('base64url', used - bytes, used);
}

/**
 * An identifier for rows written at a high rate (ledger reservations, request log): the time in
 * ms then 72 random bits, URL-safe, so that ids sort by creation. New rows then land at the end
 * of the primary-key index instead of on a random page each, and a batch of inserts writes a page
 * or two rather than one page per row.
 */
export function timeOrderedId(prefix: string, now = Date.now()): string {
  // base64url's alphabet is not in ASCII order, so the time goes in hex, which is.
  return `${prefix}_${now.toString(16).padStart(12, '0')}${randomBase64url(9)}`;
}
