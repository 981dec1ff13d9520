/**
 * The blob store port: bytes with a content type, an optional expiry and a few small metadata
 * fields (such as a capture's width and height), under a key. It holds
 * cache entries and hosted files; `blobs-fs.ts` (a local directory) and `blobs-s3.ts` (an
 * S3-compatible bucket) implement it, and only runtime.ts chooses between them. Every operation
 * settles: a store that stops answering fails it within the store's own deadline, never hangs it.
 */

export interface PutBlobOptions {
  readonly contentType: string;
  /** After this instant the blob reads as absent and a sweep deletes it; absent keeps it forever. */
  readonly expiresAt?: Date;
  /** Small text fields kept with the blob; names of a-z 0-9 -, at most 2 KB in all (S3's limit). */
  readonly metadata?: Readonly<Record<string, string>>;
}

export interface StoredBlob {
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly expiresAt: Date | null;
  /** As put; empty when none was given. */
  readonly metadata: Readonly<Record<string, string>>;
}

export interface BlobStore {
  /** Stores the bytes under the key, replacing what was there; readers see the old or the new blob, never a mix. */
  put(key: string, bytes: Uint8Array, options: PutBlobOptions): Promise<void>;
  /** The blob under the key; null when there is none or it has expired. */
  get(key: string): Promise<StoredBlob | null>;
  /** Removes the blob; removing an absent key is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes the blobs that have expired; resolves with how many it deleted. */
  sweepExpired(): Promise<number>;
  /** Releases what the store holds open (connections); the store is unusable afterwards. */
  close(): Promise<void>;
}

/*
 * Keys are `/`-separated segments of letters, digits, `.`, `_` and `-`, none starting with a dot:
 * no `..`, no absolute paths, nothing that escapes the local directory, and the same names work
 * as S3 keys (where a prefix such as `files/` can get its own lifecycle rule).
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
const MAX_KEY_LENGTH = 512;
// Printable ASCII only: the content type is sent back as a response header, metadata travels as
// S3 headers (x-amz-meta-<name>, names folded to lower case).
const CONTENT_TYPE = /^[\x20-\x7e]{1,255}$/;
const METADATA_NAME = /^[a-z0-9-]{1,64}$/;
const METADATA_VALUE = /^[\x20-\x7e]*$/;
const MAX_METADATA_BYTES = 2048;
/** The metadata name under which S3 keeps the expiry; not available to callers. */
export const EXPIRES_AT_METADATA = 'expires-at';

/** Throws unless the key (and the options, when given) are ones every store accepts; stores call it before any I/O. */
export function checkBlob(key: string, options?: PutBlobOptions): void {
  if (key.length > MAX_KEY_LENGTH || !key.split('/').every((segment) => SEGMENT.test(segment))) {
    throw new Error(`invalid blob key ${JSON.stringify(key)}`);
  }
  if (options === undefined) return;
  if (!CONTENT_TYPE.test(options.contentType)) {
    throw new Error(`invalid blob content type ${JSON.stringify(options.contentType)}`);
  }
  if (options.expiresAt !== undefined && Number.isNaN(options.expiresAt.getTime())) {
    throw new Error('invalid blob expiry');
  }
  const metadata = Object.entries(options.metadata ?? {});
  const size = metadata.reduce((sum, [name, value]) => sum + name.length + value.length, 0);
  const valid = metadata.every(
    ([name, value]) => METADATA_NAME.test(name) && name !== EXPIRES_AT_METADATA && METADATA_VALUE.test(value),
  );
  if (!valid || size > MAX_METADATA_BYTES) throw new Error('invalid blob metadata');
}
