/*
 * What a caller shapes of a page's requests and environment (docs/capture.md, "Request shaping"),
 * apart from request-shaping.ts, which applies it: the request fields read these at every door,
 * the CLI's verbs included, without loading the browser's driver.
 */

export const MEDIA_TYPES = ['screen', 'print'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export const COOKIE_SAME_SITE = ['Strict', 'Lax', 'None'] as const;

/** A cookie set for the target before it loads; `domain` null makes it host-only (the target's host alone). */
export interface ShapedCookie {
  readonly name: string;
  readonly value: string;
  /** The target's host or a parent of it, checked at the edge; null for a host-only cookie. */
  readonly domain: string | null;
  readonly path: string;
  readonly secure: boolean;
  readonly httpOnly: boolean;
  readonly sameSite: (typeof COOKIE_SAME_SITE)[number] | null;
  /** Unix seconds; null for a session cookie. */
  readonly expires: number | null;
}

export interface Geolocation {
  readonly latitude: number;
  readonly longitude: number;
  /** Metres. */
  readonly accuracy: number;
}

/**
 * What the caller shapes of the page's requests and environment. `headers` (names in lower case),
 * `authorization` and `cookies` reach only the target's origin; the rest is the browser's own
 * state, as a real browser would show it to every host. Null or empty leaves the browser's default.
 */
export interface RequestShaping {
  readonly userAgent: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly authorization: string | null;
  readonly cookies: readonly ShapedCookie[];
  readonly acceptLanguage: string | null;
  /** An IANA name the edge checked with Intl. */
  readonly timeZone: string | null;
  readonly geolocation: Geolocation | null;
  /** prefers-color-scheme: true dark, false light, null the browser's default. */
  readonly darkMode: boolean | null;
  /** prefers-reduced-motion: true reduce, false no-preference, null the browser's default. */
  readonly reducedMotion: boolean | null;
  readonly mediaType: MediaType | null;
}
