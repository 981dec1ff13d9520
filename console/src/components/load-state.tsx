import type { ComponentChildren } from 'preact';
import type { Load } from './use-load.ts';

/** The three states every view has besides its content: loading, error (the API's message), empty. */
export function Loading({ label = 'Loading…' }: { readonly label?: string }) {
  return (
    <div class="state state-loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function ErrorState({ error, onRetry }: { readonly error: Error; readonly onRetry?: () => void }) {
  return (
    <div class="state state-error" role="alert">
      <p>{error.message}</p>
      {onRetry !== undefined && (
        <button type="button" class="button secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { readonly children: ComponentChildren }) {
  return <div class="state state-empty">{children}</div>;
}

interface LoadedProps<T> {
  readonly load: Load<T> & { reload(): Promise<void> };
  /** Whether the loaded data counts as nothing to show. */
  readonly isEmpty?: (data: T) => boolean;
  readonly empty?: ComponentChildren;
  readonly children: (data: T) => ComponentChildren;
}

/** Shows the loading, error or empty state of a load, or its content. */
export function Loaded<T>({ load, isEmpty, empty, children }: LoadedProps<T>) {
  if (load.state === 'loading') return <Loading />;
  if (load.state === 'error') return <ErrorState error={load.error} onRetry={() => void load.reload()} />;
  if (isEmpty?.(load.data) === true) return <Empty>{empty}</Empty>;
  return <>{children(load.data)}</>;
}
