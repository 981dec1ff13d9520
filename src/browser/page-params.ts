/** What every engine that loads a page asks of it: the page pipeline's typed input (load-page.ts). */
import type { UpstreamProxy } from '../net/upstream-proxy.js';
import type { DeviceName } from './devices.js';
import type { PageActions } from './page-actions.js';
import type { RequestShaping } from './request-shaping-params.js';
import type { Encoding } from './screenshot.js';

/** The spec's 13 resource types for block_resources; Chromium's own types beyond the first 12 are `other`. */
export const RESOURCE_TYPES = [
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'texttrack',
  'xhr',
  'fetch',
  'eventsource',
  'websocket',
  'manifest',
  'other',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export const WAIT_EVENTS = ['domcontentloaded', 'load', 'networkidle0', 'networkidle2'] as const;
export type WaitEvent = (typeof WAIT_EVENTS)[number];

/**
 * The address a caller's own page (html or markdown without base_url) is served at: `.invalid`
 * never resolves (RFC 6761), so a request the page makes to it fails at the guard and reaches no
 * network, while the page still has an http origin for its relative URLs.
 */
export const SYNTHETIC_ORIGIN = 'http://webcap.invalid/';

/** A page the caller sends rather than names: its HTML, or Markdown that is rendered to HTML first. */
export type PageSource = { readonly html: string } | { readonly markdown: string };

export interface PageParams {
  /**
   * An http(s) URL already accepted by the edge check; the egress proxy checks every hop. With a
   * `document`, the address it is served at: the caller's base_url, or SYNTHETIC_ORIGIN.
   */
  readonly url: string;
  /**
   * The caller's own page, answered as the main document at `url` instead of fetching it. Absent
   * (not null) fetches `url`, so a URL call's parameters, and its result cache key, are as before.
   */
  readonly document?: PageSource;
  readonly device: DeviceName | null;
  /** Null keeps the device's size, or 1280 × 1024 without a device. */
  readonly viewportWidth: number | null;
  readonly viewportHeight: number | null;
  /** Null keeps the device's factor, or 1 without a device. */
  readonly scaleFactor: number | null;
  /** The element the engine works on (captured, extracted): checked before and waited for after loading. */
  readonly selector: string | null;
  readonly removeSelectors: readonly string[];
  readonly removeAds: boolean;
  readonly removeCookieBanners: boolean;
  readonly blockResources: readonly ResourceType[];
  readonly blockUrls: readonly string[];
  readonly delayMs: number;
  /** Empty waits for `load`. */
  readonly waitUntil: readonly WaitEvent[];
  readonly waitForSelector: string | null;
  /** Scroll down the page over this long before it is handed back (lazy content); null does not scroll. */
  readonly scrollDurationMs: number | null;
  /**
   * What becomes of elements matched by remove_selectors and the ad blocker's hiding rules:
   * `hide` keeps them in the DOM with `display: none` (an image of the page), `remove` takes them
   * out of it (its HTML, text and links).
   */
  readonly removal: 'hide' | 'remove';
  /** The caller's CSS, adopted by the document after the waits (page-styles.ts); null for none. */
  readonly styles: string | null;
  /** Made invisible (`visibility: hidden`), their layout kept, after the waits. */
  readonly hideSelectors: readonly string[];
  /** A caller's proxy, chained behind the egress proxy. */
  readonly proxy: UpstreamProxy | null;
  /**
   * User agent, headers, cookies, time zone and the rest (request-shaping.ts); absent when the
   * caller shaped nothing, so such a call's cache key is the one it always had.
   */
  readonly shaping?: RequestShaping;
  /** What is done to the page once it has loaded, in order; absent when nothing is, as `shaping`. */
  readonly actions?: PageActions;
  /**
   * The page is read for its text (content, analyze, extract, crawl): after load, it is waited on
   * until its text stops changing (settle-text.ts, at most the pipeline's `textSettleMaxMs`).
   * Absent does not wait, as captures do, whose result cache keys stay as they were.
   */
  readonly settleText?: true;
  /**
   * A whole-site crawl's page: a redirect of the main document is not followed, and the page is
   * handed back as that redirect (LoadedPage.redirect). Absent follows redirects, as every other call does.
   */
  readonly stopAtRedirect?: true;
  /**
   * How the engine encodes the images of `screenshot` steps (LoadedPage `shots`); absent for an
   * engine whose answer has no place for them, whose request refuses such steps.
   */
  readonly stepShots?: Encoding;
}

/** The page parameters a caller sets that every rendering engine reads alike (content, analyze, extract). */
export type CommonPageParams = Pick<
  PageParams,
  | 'url'
  | 'document'
  | 'removeSelectors'
  | 'removeAds'
  | 'removeCookieBanners'
  | 'blockResources'
  | 'blockUrls'
  | 'delayMs'
  | 'waitUntil'
  | 'waitForSelector'
  | 'proxy'
  | 'styles'
  | 'hideSelectors'
  | 'shaping'
  | 'actions'
>;
