import type { Clock } from '../clock.js';
import type { BlobStore, PutBlobOptions, StoredBlob } from './blobs.js';

/** The bytes in a buffer of their own: the view itself when it spans its whole buffer, else a copy. */
function owned(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  // allocUnsafeSlow: never a slice of the shared pool, which is what is being avoided.
  const copy = Buffer.allocUnsafeSlow(bytes.byteLength);
  copy.set(bytes);
  return copy;
}

/**
 * A blob store with the blobs it last read kept in memory, up to `maxBytes` in all, so that a
 * cache hit or a hosted file fetched again costs no file read or S3 round trip. Only what is read
 * is kept, not what is written: most blobs written are read once or never (a hosted file fetched
 * by its caller, a cache entry no call asks for again), and kept on write they filled the budget
 * and pushed out the entries that are read again (docs/performance.md, "Soak"). Blobs under
 * a key are only replaced once they have expired (a cache entry is re-rendered after its expiry,
 * hosted file ids are never reused), and a kept copy expires when the stored one does, so a copy
 * never answers differently from the store. The least recently used copies go first; a blob
 * larger than a quarter of the budget is not kept. The budget counts the memory the copies hold:
 * a blob that is a view into a larger buffer (a slice of Node's shared pool, a body read into a
 * bigger allocation) is kept as a copy of its own, or the whole buffer would stay alive uncounted.
 * `keeps` says which keys are worth a copy at all (with local files, only result-cache entries:
 * docs/performance.md, "Where a cache hit's time goes").
 */
export class MemoryCachedBlobStore implements BlobStore {
  private readonly kept = new Map<string, StoredBlob>();
  private keptBytes = 0;

  constructor(
    private readonly store: BlobStore,
    private readonly maxBytes: number,
    private readonly clock: Clock,
    private readonly keeps: (key: string) => boolean = () => true,
  ) {}

  async put(key: string, bytes: Uint8Array, options: PutBlobOptions): Promise<void> {
    await this.store.put(key, bytes, options);
    this.drop(key);
  }

  async get(key: string): Promise<StoredBlob | null> {
    const copy = this.kept.get(key);
    if (copy !== undefined) {
      if (copy.expiresAt === null || copy.expiresAt.getTime() > this.clock().getTime()) {
        this.kept.delete(key);
        this.kept.set(key, copy);
        return copy;
      }
      this.drop(key);
    }
    const blob = await this.store.get(key);
    if (blob !== null && this.keeps(key)) this.keep(key, blob);
    return blob;
  }

  async delete(key: string): Promise<void> {
    this.drop(key);
    await this.store.delete(key);
  }

  async sweepExpired(): Promise<number> {
    const now = this.clock().getTime();
    for (const [key, copy] of this.kept) {
      if (copy.expiresAt !== null && copy.expiresAt.getTime() <= now) this.drop(key);
    }
    return this.store.sweepExpired();
  }

  close(): Promise<void> {
    this.kept.clear();
    this.keptBytes = 0;
    return this.store.close();
  }

  private keep(key: string, blob: StoredBlob): void {
    this.drop(key);
    if (blob.bytes.length > this.maxBytes / 4) return;
    this.kept.set(key, { ...blob, bytes: owned(blob.bytes) });
    this.keptBytes += blob.bytes.length;
    for (const [oldest, copy] of this.kept) {
      if (this.keptBytes <= this.maxBytes) break;
      this.kept.delete(oldest);
      this.keptBytes -= copy.bytes.length;
    }
  }

  private drop(key: string): void {
    const copy = this.kept.get(key);
    if (copy === undefined) return;
    this.kept.delete(key);
    this.keptBytes -= copy.bytes.length;
  }
}
