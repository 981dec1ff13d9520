import type { ComponentChildren, PartialAnchorHTMLAttributes } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/* A small router over the History API: every path under /console is the app's (the service answers them all with index.html). */

export const BASE = '/console';

/** The path inside the console: `/keys` for /console/keys; `/` for /console. */
export function currentPath(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path.replace(/\/+$/, '') || '/';
}

const listeners = new Set<() => void>();

/** Goes to a console path (history entry added, or replaced). */
export function navigate(path: string, replace = false): void {
  const url = `${BASE}${path === '/' ? '/' : path}`;
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

/** The current console path, re-rendering on navigation and on the browser's back and forward. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

interface LinkProps extends Omit<PartialAnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'role'> {
  readonly to: string;
  readonly children: ComponentChildren;
}

/** A real link (it opens in a new tab, is focusable, reads as a link) that navigates in place. */
export function Link({ to, children, ...rest }: LinkProps) {
  return (
    <a
      {...rest}
      href={`${BASE}${to}`}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** `/jobs/job_1` against `/jobs/:id` → `{id: 'job_1'}`; null when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i] ?? '';
    const value = have[i] ?? '';
    if (part.startsWith(':')) {
      if (value === '') return null;
      params[part.slice(1)] = decodeURIComponent(value);
    } else if (part !== value) return null;
  }
  return params;
}
