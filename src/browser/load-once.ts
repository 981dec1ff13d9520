/**
 * `load`, run at the first call, its value kept for every call after; calls made while it runs
 * share it. A load that fails is forgotten, so a later call tries again instead of every call
 * failing for the life of the process (a file briefly unreadable, a full disk at start).
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    if (loading === null) {
      const attempt = load();
      loading = attempt;
      // The caller sees the failure; this handler only forgets it.
      attempt.catch(() => {
        if (loading === attempt) loading = null;
      });
    }
    return loading;
  };
}
