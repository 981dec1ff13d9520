import { redactRequestUrl } from '../logging.js';

/** How many URLs a memo keeps, and the longest it keeps: together its bound in memory. */
export interface UrlMemoBounds {
  readonly entries: number;
  /** Characters of the key (the URL and what else the value depends on); a longer one is never kept. */
  readonly keyChars: number;
}

/** Bounds that hold the repeated calls of a busy client and cost at most a few MB. */
export const URL_MEMO_BOUNDS: UrlMemoBounds = { entries: 256, keyChars: 4096 };

/**
 * What a request URL has already been worked out into, for the next request with the same URL: a
 * repeated call (a cache hit of the same capture) skips the work. Only URLs without a credential
 * are kept (the access log would redact nothing in them: no key, signature, storage secret,
 * header, cookie, page, nor a URL's user and password), so the memo never holds a secret. Bounded
 * in entries and key length; the least recently used entry goes first. The value must be a pure
 * function of the key: the caller puts in the key everything else it depends on.
 */
export class UrlMemo<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly bounds: UrlMemoBounds = URL_MEMO_BOUNDS) {}

  /** The value kept for `key`, or undefined. */
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Re-inserting keeps the map in least-recently-used order.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /**
   * Keeps `value` under `key` when `url` (a part of the key) holds no credential and the key is
   * within bounds; `redacted`, when the caller has it, is `redactRequestUrl(url)`.
   */
  remember(key: string, url: string, value: V, redacted?: string): void {
    if (key.length > this.bounds.keyChars || (redacted ?? redactRequestUrl(url)) !== url) return;
    this.entries.set(key, value);
    if (this.entries.size > this.bounds.entries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * `value` frozen at every depth of its plain objects and arrays, so that a value a memo hands to
 * many requests cannot be changed by one of them for the others (a change throws instead).
 */
export function deepFrozen<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const prototype = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return value;
  for (const field of Object.values(value)) deepFrozen(field);
  return Object.freeze(value);
}
