import { useState } from 'preact/hooks';
import type { Page } from '../api/types.ts';
import { type Load, useLoad } from './use-load.ts';

/**
 * A paged list (`{items, next}`): the first page loads with `deps`; `more()` appends the page
 * before the last cursor. A reload starts again from the newest.
 */
export function usePages<T>(
  fetchPage: (before: string | null) => Promise<Page<T>>,
  deps: readonly unknown[],
): Load<Page<T>> & {
  reload(): Promise<void>;
  more(): Promise<void>;
  loadingMore: boolean;
  moreError: string | null;
} {
  const [older, setOlder] = useState<{ items: T[]; next: string | null; base: Page<T> | null }>({
    items: [],
    next: null,
    base: null,
  });
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);
  const first = useLoad(() => fetchPage(null), deps);
  if (first.state !== 'ready') return { ...first, more: async () => {}, loadingMore, moreError };
  // Older pages belong to the first page they were loaded after; a new first page drops them.
  const extra = older.base === first.data ? older : { items: [], next: first.data.next, base: first.data };
  const page: Page<T> = { items: [...first.data.items, ...extra.items], next: extra.next };
  return {
    state: 'ready',
    data: page,
    reload: first.reload,
    loadingMore,
    moreError,
    more: async () => {
      if (extra.next === null) return;
      setLoadingMore(true);
      setMoreError(null);
      try {
        const next = await fetchPage(extra.next);
        setOlder({ items: [...extra.items, ...next.items], next: next.next, base: first.data });
      } catch (error) {
        setMoreError(error instanceof Error ? error.message : String(error));
      } finally {
        setLoadingMore(false);
      }
    },
  };
}
