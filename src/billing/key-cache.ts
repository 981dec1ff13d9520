import type { Db } from '../store/db.js';
import { onKeysChanged } from './key-changes.js';
import { checkKey, type FoundKey, findKey, findKeyById, hashKey, type KeyVerification } from './keys.js';

interface Entry {
  readonly found: FoundKey;
  /** The monotonic time (ms) after which the entry is read again. */
  readonly freshUntil: number;
}

/**
 * Presented keys verified against records kept for `ttlMs`, so a burst of calls with one key
 * reads its key and account once instead of on every call. Only keys that exist are kept (a flood
 * of made-up keys cannot fill the cache), at most `capacity` of them, and whether a kept key may
 * be used (active, expiry, account active) is decided afresh on every call. A `ttlMs` of 0 reads
 * the database every time.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly capacity = 10_000,
    /** Monotonic milliseconds: a wall-clock step never keeps a record longer; tests move it themselves. */
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {
    this.unsubscribe = onKeysChanged(db, () => this.entries.clear());
  }

  /** The key's verdict at `now`: its record and account when it may be used, else why not. */
  async verify(plaintext: string, now: Date): Promise<KeyVerification> {
    const hash = hashKey(plaintext);
    const cached = this.entries.get(hash);
    if (cached !== undefined && cached.freshUntil > this.monotonicMs()) return checkKey(cached.found, now);
    const found = await findKey(this.db, hash);
    if (found !== undefined && this.ttlMs > 0) {
      this.entries.delete(hash);
      this.entries.set(hash, { found, freshUntil: this.monotonicMs() + this.ttlMs });
      if (this.entries.size > this.capacity) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
    return checkKey(found, now);
  }

  /**
   * The verdict at `now` on the key with this id, when it belongs to `accountId` (another
   * account's is unknown); read afresh every time: these calls come from a person in the console.
   */
  async verifyId(id: string, accountId: string, now: Date): Promise<KeyVerification> {
    const found = await findKeyById(this.db, id);
    return checkKey(found?.account.id === accountId ? found : undefined, now);
  }

  /** Stops listening for changes; the cache is not used afterwards. */
  close(): void {
    this.unsubscribe();
  }
}
