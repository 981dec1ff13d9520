import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { navFor } from './nav-items.ts';
import { Link } from './router.tsx';
import { useSession } from './session-context.ts';

/** The signed-in frame: the brand, who is signed in, sign-out, and the sections of the role. */
export function Shell({ path, children }: { readonly path: string; readonly children: ComponentChildren }) {
  const value = useSession();
  const { user } = value.session;
  const items = navFor(user.role);
  const main = useRef<HTMLElement>(null);
  const nav = useRef<HTMLElement>(null);
  const first = useRef(true);
  const section = items.find((item) => path === item.path || path.startsWith(`${item.path}/`))?.path ?? path;
  // Going to another section moves focus to the new view, as a page load would put it at the top;
  // within a section (a job's dialog opened and closed) focus stays where the dialog returns it.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [section]);
  // On a phone the sections are a strip that scrolls sideways: the current one is brought into it
  // (Team or Audit log were off its right edge), now and when the window turns narrow. Only the
  // strip scrolls, never the page.
  useEffect(() => {
    const bring = () => {
      const strip = nav.current;
      const link = strip?.querySelector('[aria-current="page"]');
      if (strip === null || link === null || link === undefined || strip.scrollWidth <= strip.clientWidth) {
        return;
      }
      const box = strip.getBoundingClientRect();
      const place = link.getBoundingClientRect();
      strip.scrollLeft += place.left - box.left - (box.width - place.width) / 2;
    };
    bring();
    window.addEventListener('resize', bring);
    return () => window.removeEventListener('resize', bring);
  }, [section]);
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link to="/" class="brand" aria-label="webcap console, home">
          <span class="brand-mark" aria-hidden="true" />
          <span class="brand-name">webcap</span>
          <span class="brand-tag">{user.role === 'operator' ? 'operator' : 'console'}</span>
        </Link>
        <div class="who">
          <span class="who-name">
            <span class="who-account">{user.account === null ? user.name : user.account.name}</span>
            <span class="who-detail">
              {user.email ?? 'admin token'} · {user.role}
            </span>
          </span>
          <button type="button" class="button secondary small" onClick={() => void value.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="sidenav" aria-label="Sections" ref={nav}>
        <ul>
          {items.map((item) => {
            const current = path === item.path || path.startsWith(`${item.path}/`);
            return (
              <li key={item.path}>
                <Link to={item.path} aria-current={current ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" class="content" tabIndex={-1} ref={main}>
        {children}
      </main>
    </div>
  );
}

/** A view's heading and its short explanation, with actions on the right. */
export function ViewHeader({
  title,
  lead,
  children,
}: {
  readonly title: string;
  readonly lead?: ComponentChildren;
  readonly children?: ComponentChildren;
}) {
  return (
    <div class="view-header">
      <div>
        <h1>{title}</h1>
        {lead !== undefined && <p class="lead">{lead}</p>}
      </div>
      {children !== undefined && children !== false && children !== null && (
        <div class="view-actions">{children}</div>
      )}
    </div>
  );
}
