import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export type Load<T> =
  | { readonly state: 'loading' }
  | { readonly state: 'error'; readonly error: Error }
  | { readonly state: 'ready'; readonly data: T };

/**
 * Loads with `fetcher` now and whenever `deps` change; `reload` loads again keeping what is shown
 * until the answer comes (so a refresh does not blank the view). An answer that arrives after a
 * newer load started is dropped.
 */
export function useLoad<T>(
  fetcher: () => Promise<T>,
  deps: readonly unknown[],
): Load<T> & { reload(): Promise<void> } {
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  const generation = useRef(0);
  const run = useCallback(async (keep: boolean) => {
    const mine = ++generation.current;
    if (!keep) setLoad({ state: 'loading' });
    try {
      const data = await fetcher();
      if (mine === generation.current) setLoad({ state: 'ready', data });
    } catch (error) {
      if (mine === generation.current)
        setLoad({ state: 'error', error: error instanceof Error ? error : new Error(String(error)) });
    }
  }, deps);
  useEffect(() => {
    void run(false);
  }, [run]);
  return { ...load, reload: () => run(true) };
}
