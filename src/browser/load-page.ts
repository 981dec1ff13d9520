import type { HTTPResponse, Page } from 'puppeteer-core';
import { TimeoutError } from 'puppeteer-core';
import { WebcapError } from '../errors.js';
import type { AdBlocker } from './ad-blocker.js';
import { AD_SLOT_SELECTORS } from './ad-slots.js';
import { DEFAULT_VIEWPORT } from './chromium-args.js';
import type { CookieBannerRemover } from './cookie-banners.js';
import { applyDevice } from './devices.js';
import { runActions, stepLabel } from './page-actions.js';
import type { StoppedRedirect } from './page-guards.js';
import type { PageParams, PageSource } from './page-params.js';
import { blockRequests, scrollThrough } from './page-setup.js';
import { applyPageStyles } from './page-styles.js';
import type { BrowserPool, Lease } from './pool.js';
import { shapeRequests } from './request-shaping.js';
import type { ImageShot } from './screenshot.js';
import { checkSelectors, hideSelectors, type NamedSelector, waitForCss } from './selectors.js';
import { serveDocument } from './serve-document.js';
import { settleText } from './settle-text.js';

export interface PageDeps {
  readonly pool: BrowserPool;
  /** The ad and tracker blocker (remove_ads), loaded once at start. */
  readonly adBlocker: () => Promise<AdBlocker>;
  /** Cookie banner removal (remove_cookie_banners), loaded when first needed. */
  readonly cookieBanners: () => Promise<CookieBannerRemover>;
  /** Longest navigation or wait for a selector, within the pool's hard render limit. */
  readonly navigationTimeoutMs: number;
  /**
   * Longest wait, after load, for the text of a page read for its text (`settleText`) to stop
   * changing (settle-text.ts); 0 does not wait.
   */
  readonly textSettleMaxMs: number;
  /** Scrolling stops at this many CSS pixels (and full-page captures with it). */
  readonly maxFullPageHeightPx: number;
  /** A caller's Markdown as a whole HTML page with its stylesheet, rendered off the event loop. */
  readonly markdownPage: (markdown: string) => Promise<string>;
}

/** A page loaded and prepared as asked, valid only inside the callback it is handed to. */
export interface LoadedPage {
  readonly page: Page;
  /** The main document's HTTP status; null when the navigation produced no response of its own. */
  readonly status: number | null;
  /** The document's URL when it was handed back, after redirects and script navigations. */
  readonly finalUrl: string;
  /**
   * What the caller should know about how the page was loaded: that it was handed back before the
   * event waited for (docs/capture.md, "Pages that never finish loading"). Empty when it loaded as asked.
   */
  readonly warnings: readonly string[];
  /** With `stopAtRedirect`: the redirect the main document answered, not followed; nothing else was done to the page. */
  readonly redirect?: StoppedRedirect;
  /** The images of the `screenshot` steps, in order, encoded as `stepShots` asked; empty when none. */
  readonly shots: readonly ImageShot[];
}

/** An engine's result, and whether the page it came from loaded as asked. */
export interface PageOutcome<T> {
  readonly result: T;
  /** False when the page was handed back before it finished loading: such a result is not cached. */
  readonly complete: boolean;
}

const COOKIE_BANNER_WAIT_MS = 2500;

/** `net::ERR_NAME_NOT_RESOLVED` from puppeteer's navigation error, or null for other failures. */
function netError(error: unknown): string | null {
  const message = error instanceof Error ? error.message : String(error);
  return /net::ERR_[A-Z0-9_]+/.exec(message)?.[0] ?? null;
}

async function emulate({ page, windowSize }: Lease, params: PageParams): Promise<void> {
  const { viewportWidth, viewportHeight, scaleFactor } = params;
  const asOpened =
    (viewportWidth ?? DEFAULT_VIEWPORT.width) === windowSize.width &&
    (viewportHeight ?? DEFAULT_VIEWPORT.height) === windowSize.height &&
    (scaleFactor ?? 1) === 1;
  // A fresh page that already has the size asked for needs no emulation (chromium-args.ts opens
  // windows at the default size), which spares the browser a relayout.
  if (params.device === null && asOpened) return;
  if (params.device !== null) await applyDevice(page, params.device);
  const current = page.viewport();
  const device = params.device !== null && current !== null;
  await page.setViewport({
    ...(device ? current : {}),
    width: params.viewportWidth ?? (device ? current.width : DEFAULT_VIEWPORT.width),
    height: params.viewportHeight ?? (device ? current.height : DEFAULT_VIEWPORT.height),
    deviceScaleFactor: params.scaleFactor ?? (device ? current.deviceScaleFactor : 1),
  });
}

/** The main document's response and whether the page was handed back before its awaited event. */
interface Navigation {
  readonly response: HTTPResponse | null;
  /** Null when the awaited event came; else what the caller is told. */
  readonly unfinished: string | null;
  /** With `stopAtRedirect`, the redirect the navigation stopped at. */
  readonly redirect: StoppedRedirect | null;
}

/**
 * Loads the page, waiting for the events asked. What the egress proxy answered itself for the main
 * document (a refusal of a private target or of a redirect to one, a target it could not reach)
 * is 'blocked' or 'target_unreachable', read from the route as a typed value; a target's own 403
 * or 502 is a page. When the events have not come by the deadline but the document has arrived
 * and been parsed (DOMContentLoaded), a script, image or connection that never ends is holding
 * the page back: its loading is stopped and it is used as it is, with a warning (a best attempt,
 * as Browserless's bestAttempt); only a document that never arrived or was never parsed is the
 * timeout.
 */
async function navigate(lease: Lease, params: PageParams, timeoutMs: number): Promise<Navigation> {
  const { page, route, guards } = lease;
  const waitUntil = params.waitUntil.length > 0 ? [...params.waitUntil] : ['load' as const];
  // goto gives no response when it times out; the last one of the main frame's navigation is it.
  let lastResponse: HTTPResponse | null = null;
  const onResponse = (response: HTTPResponse) => {
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) {
      lastResponse = response;
    }
  };
  page.on('response', onResponse);
  if (params.stopAtRedirect === true) await guards.stopAtRedirects();
  let response: HTTPResponse | null;
  let unfinished: string | null = null;
  try {
    response = await page.goto(params.url, { waitUntil, timeout: timeoutMs });
  } catch (error) {
    const redirect = guards.stoppedRedirect();
    if (redirect !== null) return { response: null, unfinished: null, redirect };
    if (error instanceof TimeoutError) {
      if (lastResponse === null || !guards.contentLoaded()) {
        throw new WebcapError('timeout', `the page did not finish loading within ${timeoutMs} ms`);
      }
      response = lastResponse;
      unfinished = `the page did not finish loading within ${timeoutMs} ms (${waitUntil.join(', ')}); it was taken as it was then`;
      await stopLoading(page);
    } else {
      const code = netError(error);
      if (code === null) throw error;
      // A refused tunnel (https) surfaces as a tunnel failure; the route knows why.
      const refusal = route.stats.refusals.at(-1);
      if (refusal !== undefined) throw new WebcapError('blocked', refusal.reason);
      throw new WebcapError('target_unreachable', code);
    }
  } finally {
    page.off('response', onResponse);
  }
  const own = response === null ? undefined : route.answerFor(response.url());
  if (own?.kind === 'blocked') throw new WebcapError('blocked', own.reason);
  if (own?.kind === 'unreachable') throw new WebcapError('target_unreachable', own.reason);
  return { response, unfinished, redirect: null };
}

/**
 * Stops whatever the page is still loading, as the browser's stop button does, so that nothing
 * arrives while it is read or shot and the hung connections close. Sent to the browser, not run
 * in the page, so a page whose own thread is busy does not hold it up.
 */
async function stopLoading(page: Page): Promise<void> {
  const session = await page.createCDPSession();
  try {
    await session.send('Page.stopLoading');
  } finally {
    await session.detach().catch(() => undefined);
  }
}

/** The caller's selectors with the parameters they came in, for one syntax check before the page loads. */
function namedSelectors(params: PageParams): NamedSelector[] {
  const named: NamedSelector[] = [];
  if (params.selector !== null) named.push({ param: 'selector', selector: params.selector });
  if (params.waitForSelector !== null) {
    named.push({ param: 'wait_for_selector', selector: params.waitForSelector });
  }
  if (params.removeSelectors.length > 0) {
    named.push({ param: 'remove_selectors', selector: params.removeSelectors.join(',') });
  }
  if (params.hideSelectors.length > 0) {
    named.push({ param: 'hide_selectors', selector: params.hideSelectors.join(',') });
  }
  for (const step of params.actions?.steps ?? []) {
    if ('selector' in step.action) named.push({ param: stepLabel(step), selector: step.action.selector });
  }
  return named;
}

/** The HTML of a caller's own page: as sent, or rendered from Markdown. */
async function documentHtml(deps: PageDeps, source: PageSource): Promise<string> {
  return 'html' in source ? source.html : deps.markdownPage(source.markdown);
}

/**
 * The one page pipeline every engine loads pages with: a fresh page from the pool in a context
 * of its own (every byte it loads passes the egress proxy, direct or via the caller's proxy),
 * emulated and shaped (user agent, headers and cookies for the target's origin, time zone...),
 * with blocking, ad and cookie-banner removal set up, navigated, waited on, scrolled
 * and cleaned as `params` ask; then handed to `use`, whose result is returned. The page is
 * closed when `use` settles, and the pool's render limit covers loading and use together. A
 * caller's own page (`params.document`) is made before a browser is taken, and answered as the
 * main document of the navigation to `params.url`. `extraTimeMs` lengthens that limit for a
 * `use` that takes time of its own (a recording).
 */
export async function withLoadedPage<T>(
  deps: PageDeps,
  params: PageParams,
  use: (loaded: LoadedPage) => Promise<T>,
  extraTimeMs = 0,
): Promise<T> {
  const html = params.document === undefined ? null : await documentHtml(deps, params.document);
  const prepared = async (lease: Lease): Promise<T> => {
    const { page } = lease;
    await emulate(lease, params);
    await shapeRequests(lease, params.url, params.device, params.shaping);
    if (html !== null) await serveDocument(page, html);
    const adBlocker = params.removeAds ? await deps.adBlocker() : null;
    await adBlocker?.enable(page);
    await blockRequests(page, { resourceTypes: params.blockResources, urls: params.blockUrls });
    const banners = params.removeCookieBanners ? await (await deps.cookieBanners()).enable(page) : null;
    await checkSelectors(page, namedSelectors(params));

    const { response, unfinished, redirect } = await navigate(lease, params, deps.navigationTimeoutMs);
    if (redirect !== null) {
      return use({
        page,
        status: redirect.status,
        finalUrl: redirect.location,
        warnings: [],
        shots: [],
        redirect,
      });
    }
    if (params.waitForSelector !== null) {
      await waitForCss(page, params.waitForSelector, 'wait_for_selector', deps.navigationTimeoutMs);
    }
    // Both waits are on the page as it fills in; taken together, neither adds to the other.
    await Promise.all([
      // A page handed back unfinished has had its whole navigation time already.
      params.settleText === true && unfinished === null ? settleText(page, deps.textSettleMaxMs) : null,
      banners?.settled(COOKIE_BANNER_WAIT_MS, params.removal),
    ]);
    await applyPageStyles(page, params.styles, params.hideSelectors);
    if (params.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, params.delayMs));
    if (params.scrollDurationMs !== null) {
      await scrollThrough(page, params.scrollDurationMs, deps.maxFullPageHeightPx);
    }
    const stepShots =
      params.stepShots === undefined
        ? null
        : { encoding: params.stepShots, maxFullPageHeightPx: deps.maxFullPageHeightPx };
    const acted =
      params.actions === undefined
        ? { warnings: [], shots: [] }
        : await runActions(page, params.actions, deps.navigationTimeoutMs, stepShots);
    await hideSelectors(page, params.removeSelectors, params.removal);
    if (params.removeAds) await hideSelectors(page, AD_SLOT_SELECTORS, params.removal);
    // The blocker's own hiding styles arrive asynchronously; one awaited pass makes them count.
    await adBlocker?.hideAds(page, params.removal);
    if (params.selector !== null) {
      await waitForCss(page, params.selector, 'selector', deps.navigationTimeoutMs);
    }
    return use({
      page,
      status: response?.status() ?? null,
      finalUrl: page.url(),
      warnings: [...(unfinished === null ? [] : [unfinished]), ...acted.warnings],
      shots: acted.shots,
    });
  };
  return deps.pool.run(params.proxy, prepared, extraTimeMs);
}
