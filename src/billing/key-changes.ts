import type { Db } from '../store/db.js';

const listeners = new WeakMap<Db, Set<() => void>>();

/** Calls `listener` whenever this process changes a key or an account on `db`; returns the unsubscribe. */
export function onKeysChanged(db: Db, listener: () => void): () => void {
  const set = listeners.get(db) ?? new Set();
  set.add(listener);
  listeners.set(db, set);
  return () => set.delete(listener);
}

/**
 * Tells this process's listeners on `db` (the key caches) that a key or an account changed, so
 * that they read it again. Other processes see the change once their cached entries expire.
 */
export function keysChanged(db: Db): void {
  for (const listener of listeners.get(db) ?? []) listener();
}
