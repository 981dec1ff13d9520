/**
 * Page furniture: what is on a page without being its own content (menus, headers, footers,
 * sidebars, dialogs, comment threads, consent banners). Two readers skip it: main-content.ts,
 * before it looks for the article, and the analyzer's digest (page-digest.ts). Each
 * entry says which of them skips it.
 */

export type FurnitureReader = 'main-content' | 'digest';

/**
 * `tag` an element name, `role` an ARIA role, `id` a whole id, `word` a word of the class or id
 * (split at anything but letters and digits); all lower-case, matched case-insensitively. Main
 * content matches ids and the digest class and id words, so an entry of either kind is for that
 * reader alone.
 */
export type FurnitureEntry =
  | { readonly by: 'tag' | 'role'; readonly value: string; readonly readers: readonly FurnitureReader[] }
  | { readonly by: 'id'; readonly value: string; readonly readers: readonly ['main-content'] }
  | { readonly by: 'word'; readonly value: string; readonly readers: readonly ['digest'] };

const BOTH = ['main-content', 'digest'] as const;

export const PAGE_FURNITURE = [
  { by: 'tag', value: 'nav', readers: BOTH },
  // The digest keeps headers: heroes (the h1 and its subtitle) often live in one, and its nav is
  // skipped anyway.
  { by: 'tag', value: 'header', readers: ['main-content'] },
  { by: 'tag', value: 'footer', readers: BOTH },
  { by: 'tag', value: 'aside', readers: BOTH },
  { by: 'role', value: 'navigation', readers: BOTH },
  // The header's role, kept by the digest for the same reason.
  { by: 'role', value: 'banner', readers: ['main-content'] },
  { by: 'role', value: 'contentinfo', readers: BOTH },
  { by: 'role', value: 'complementary', readers: BOTH },
  { by: 'role', value: 'dialog', readers: BOTH },
  { by: 'role', value: 'alertdialog', readers: BOTH },
  // Main content already removes the form controls a search landmark holds (main-content.ts's NEVER).
  { by: 'role', value: 'search', readers: ['digest'] },
  // Comment threads by their conventional ids: never the article, often larger than it. The digest
  // reads them.
  { by: 'id', value: 'comments', readers: ['main-content'] },
  { by: 'id', value: 'disqus_thread', readers: ['main-content'] },
  { by: 'id', value: 'respond', readers: ['main-content'] },
  // Consent banners by their conventional ids; the digest's class and id words below cover them.
  { by: 'id', value: 'cookie-consent', readers: ['main-content'] },
  { by: 'id', value: 'cookie-banner', readers: ['main-content'] },
  { by: 'id', value: 'onetrust-consent-sdk', readers: ['main-content'] },
  // Consent banners, screen-reader-only text and popups by their class or id words. Not for main
  // content: an article's own text carries such classes too ("sr-only" labels inside it).
  { by: 'word', value: 'cookie', readers: ['digest'] },
  { by: 'word', value: 'cookies', readers: ['digest'] },
  { by: 'word', value: 'consent', readers: ['digest'] },
  { by: 'word', value: 'gdpr', readers: ['digest'] },
  { by: 'word', value: 'sr', readers: ['digest'] },
  { by: 'word', value: 'visually', readers: ['digest'] },
  { by: 'word', value: 'modal', readers: ['digest'] },
  { by: 'word', value: 'popup', readers: ['digest'] },
] as const satisfies readonly FurnitureEntry[];

export interface Furniture {
  /** Upper-case, as an HTML element's tagName is. */
  readonly tags: ReadonlySet<string>;
  readonly roles: ReadonlySet<string>;
  readonly ids: ReadonlySet<string>;
  readonly words: ReadonlySet<string>;
}

/** The furniture `reader` skips, by what it is matched on. */
export function furnitureFor(reader: FurnitureReader): Furniture {
  const entries: readonly FurnitureEntry[] = PAGE_FURNITURE;
  const values = (by: FurnitureEntry['by']) =>
    entries
      .filter((e) => e.by === by && (e.readers as readonly FurnitureReader[]).includes(reader))
      .map((e) => e.value);
  return {
    tags: new Set(values('tag').map((tag) => tag.toUpperCase())),
    roles: new Set(values('role')),
    ids: new Set(values('id')),
    words: new Set(values('word')),
  };
}
