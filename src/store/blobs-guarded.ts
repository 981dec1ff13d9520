import type { Logger } from 'pino';
import { WebcapError } from '../errors.js';
import { type BlobStore, checkBlob, type PutBlobOptions, type StoredBlob } from './blobs.js';

/** What a caller is told to wait before retrying a call the blob store could not serve. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The blob store as the service uses it, and the one place where its failures get their meaning:
 * a store that cannot do its job (a directory it cannot write, a bucket it cannot reach) is
 * `unavailable` (503 with Retry-After), logged here with its cause. A key or option that no store
 * accepts is a bug and stays a plain error (500). What a failure means to each caller (a capture
 * cache that fails is a miss; a hosted file that cannot be kept fails the call) is the caller's
 * choice (docs/decisions.md, "When a dependency fails").
 */
export class GuardedBlobStore implements BlobStore {
  constructor(
    private readonly store: BlobStore,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  put(key: string, bytes: Uint8Array, options: PutBlobOptions): Promise<void> {
    checkBlob(key, options);
    return this.guard('put', key, () => this.store.put(key, bytes, options));
  }

  get(key: string): Promise<StoredBlob | null> {
    checkBlob(key);
    return this.guard('get', key, () => this.store.get(key));
  }

  delete(key: string): Promise<void> {
    checkBlob(key);
    return this.guard('delete', key, () => this.store.delete(key));
  }

  sweepExpired(): Promise<number> {
    return this.store.sweepExpired();
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private async guard<T>(operation: string, key: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.logger.warn({ err: error, operation, key }, 'blob store failed');
      throw new WebcapError('unavailable', 'file storage failed', {
        retryAfterSeconds: RETRY_AFTER_SECONDS,
        cause: error,
      });
    }
  }
}
