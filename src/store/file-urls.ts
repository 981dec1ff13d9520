import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { BlobStore } from './blobs.js';

/*
 * Hosted files (the capture's `screenshot_url`, a crawl page's `screenshot`): the bytes sit in the
 * blob store under `files/<id>`, and the link carries its own expiry and an HMAC over id and
 * expiry, like a presigned S3 URL. Whoever holds the link may read the file until it expires; no
 * API key. A crawl's images outlive one link: each read of the crawl signs a fresh one (fileLink).
 */

/** What a hosted file's id looks like: base64url, then an optional extension such as `.png`. */
export const FILE_ID_PATTERN = '^[A-Za-z0-9_-]{16,64}(\\.[a-z0-9]{1,8})?$';
const EXTENSION = /^[a-z0-9]{1,8}$/;

/** The blob store key of a hosted file. */
export function fileBlobKey(id: string): string {
  return `files/${id}`;
}

function sign(id: string, expires: number, secret: string): string {
  // A label of its own, so that a MAC this secret makes for anything else never passes as a file link.
  return createHmac('sha256', secret).update(`webcap-file-url:v1\n${id}\n${expires}`).digest('base64url');
}

/** `<base>/v1/files/<id>?expires=<unix seconds>&signature=<HMAC-SHA256, base64url>`, valid until expiresAt (to the second). */
export function signFileUrl(baseUrl: string, id: string, expiresAt: Date, secret: string): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const base = baseUrl.replace(/\/+$/, '');
  return `${base}/v1/files/${encodeURIComponent(id)}?expires=${expires}&signature=${sign(id, expires, secret)}`;
}

export type FileUrlVerdict =
  | { readonly valid: true; readonly remainingSeconds: number }
  | { readonly valid: false; readonly reason: 'bad_signature' | 'expired' };

/**
 * Checks a link: the signature first (constant time), then the expiry, so a forged link learns
 * nothing about expiry. Valid while now is before `expires`; remainingSeconds rounds down, so a
 * cache keeping the file that long never serves it past the link's expiry.
 */
export function verifyFileUrl(
  id: string,
  expires: number,
  signature: string,
  secret: string,
  now: Date,
): FileUrlVerdict {
  const expected = Buffer.from(sign(id, expires, secret));
  const given = Buffer.from(signature);
  // The length of a valid signature is public; only equal lengths are compared in constant time.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { valid: false, reason: 'bad_signature' };
  }
  const remainingMs = expires * 1000 - now.getTime();
  return remainingMs > 0
    ? { valid: true, remainingSeconds: Math.floor(remainingMs / 1000) }
    : { valid: false, reason: 'expired' };
}

export interface HostFileOptions {
  /** Ends the id and the link (`.png`), for clients that go by the URL; lower-case letters and digits. */
  readonly extension?: string;
  /** Where this service is reached from outside, such as `https://shots.example.com`. */
  readonly baseUrl: string;
  readonly ttlSeconds: number;
  readonly secret: string;
  readonly now: Date;
}

export interface HostedFile {
  readonly id: string;
  readonly url: string;
  readonly expiresAt: Date;
}

/** The signed link to a hosted file already stored under `id`, valid for ttlSeconds from now (to the second). */
export function fileLink(id: string, options: Omit<HostFileOptions, 'extension'>): HostedFile {
  // Whole seconds, so that a blob stored with this expiry and its link expire at the same instant.
  const expiresAt = new Date((Math.floor(options.now.getTime() / 1000) + options.ttlSeconds) * 1000);
  return { id, url: signFileUrl(options.baseUrl, id, expiresAt, options.secret), expiresAt };
}

/** Stores the bytes as a new hosted file that expires after ttlSeconds, and returns its signed link. */
export async function hostFile(
  blobs: BlobStore,
  bytes: Uint8Array,
  contentType: string,
  options: HostFileOptions,
): Promise<HostedFile> {
  if (options.extension !== undefined && !EXTENSION.test(options.extension)) {
    throw new Error(`invalid file extension ${JSON.stringify(options.extension)}`);
  }
  // 144 random bits: the signature protects the link, the randomness keeps ids from ever colliding.
  const random = randomBytes(18).toString('base64url');
  const id = options.extension === undefined ? random : `${random}.${options.extension}`;
  const link = fileLink(id, options);
  await blobs.put(fileBlobKey(id), bytes, { contentType, expiresAt: link.expiresAt });
  return link;
}
