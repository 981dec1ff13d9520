import type { HTTPResponse, Page } from 'puppeteer-core';
import { TimeoutError } from 'puppeteer-core';
import type { AdBlocker } from '../../browser/ad-blocker.js';
import { DEFAULT_VIEWPORT } from '../../browser/chromium-args.js';
import { enableCookieBannerRemoval } from '../../browser/cookie-banners.js';
import { applyDevice } from '../../browser/devices.js';
import { blockRequests, scrollThrough } from '../../browser/page-setup.js';
import type { BrowserPool, Lease } from '../../browser/pool.js';
import { boxShot, fullPageShot, type ImageShot, viewportShot } from '../../browser/screenshot.js';
import {
  checkSelectors,
  elementBox,
  hideSelectors,
  type NamedSelector,
  waitForCss,
} from '../../browser/selectors.js';
import { invalidParam, WebcapError } from '../../errors.js';
import { type CaptureParams, type CaptureResult, CONTENT_TYPES } from './params.js';

export interface CaptureDeps {
  readonly pool: BrowserPool;
  /** The ad and tracker blocker (remove_ads), loaded once at start. */
  readonly adBlocker: () => Promise<AdBlocker>;
  /** Longest navigation or wait for a selector, within the pool's hard render limit. */
  readonly navigationTimeoutMs: number;
  /** Full-page captures stop at this many CSS pixels. */
  readonly maxFullPageHeightPx: number;
}

const COOKIE_BANNER_WAIT_MS = 2500;

/** `net::ERR_NAME_NOT_RESOLVED` from puppeteer's navigation error, or null for other failures. */
function netError(error: unknown): string | null {
  const message = error instanceof Error ? error.message : String(error);
  return /net::ERR_[A-Z0-9_]+/.exec(message)?.[0] ?? null;
}

async function emulate({ page, windowSize }: Lease, params: CaptureParams): Promise<void> {
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

/**
 * Loads the page. What the egress proxy refused for the main document (a private target, a
 * redirect to one) is 'blocked'; a network failure is 'target_unreachable' naming Chromium's error.
 */
async function navigate(lease: Lease, params: CaptureParams, timeoutMs: number): Promise<void> {
  const { page, route } = lease;
  let response: HTTPResponse | null;
  try {
    response = await page.goto(params.url, {
      waitUntil: params.waitUntil.length > 0 ? [...params.waitUntil] : ['load'],
      timeout: timeoutMs,
    });
  } catch (error) {
    if (error instanceof TimeoutError) {
      throw new WebcapError('timeout', `the page did not finish loading within ${timeoutMs} ms`);
    }
    const code = netError(error);
    if (code === null) throw error;
    // A refused tunnel (https) surfaces as a tunnel failure; the route knows why.
    const refusal = route.stats.refusals.at(-1);
    if (refusal !== undefined) throw new WebcapError('blocked', refusal.reason);
    throw new WebcapError('target_unreachable', code);
  }
  const blocked = response?.headers()['x-webcap-blocked'];
  if (blocked !== undefined) throw new WebcapError('blocked', blocked);
  const unreachable = response?.headers()['x-webcap-unreachable'];
  if (unreachable !== undefined) throw new WebcapError('target_unreachable', unreachable);
}

async function shoot(page: Page, params: CaptureParams, deps: CaptureDeps): Promise<ImageShot> {
  const type = params.format === 'pdf' ? 'png' : params.format;
  if (params.selector !== null) {
    await waitForCss(page, params.selector, 'selector', deps.navigationTimeoutMs);
    const box = await elementBox(page, params.selector);
    if (box === null) throw invalidParam('selector', 'matched no element');
    if (!(box.width >= 1 && box.height >= 1)) {
      throw invalidParam('selector', 'matched an element with no visible box');
    }
    return boxShot(page, box, type, params.imageQuality, deps.maxFullPageHeightPx);
  }
  if (params.fullPage) return fullPageShot(page, type, params.imageQuality, deps.maxFullPageHeightPx);
  return viewportShot(page, type, params.imageQuality);
}

async function printPdf(page: Page): Promise<CaptureResult> {
  const size = await page.evaluate(() => ({ width: window.innerWidth, height: window.innerHeight }));
  const bytes = Buffer.from(await page.pdf({ printBackground: true, preferCSSPageSize: true }));
  return { bytes, format: 'pdf', contentType: CONTENT_TYPES.pdf, ...size };
}

/** The caller's selectors with the parameters they came in, for one syntax check before the page loads. */
function namedSelectors(params: CaptureParams): NamedSelector[] {
  const named: NamedSelector[] = [];
  if (params.selector !== null) named.push({ param: 'selector', selector: params.selector });
  if (params.waitForSelector !== null) {
    named.push({ param: 'wait_for_selector', selector: params.waitForSelector });
  }
  if (params.removeSelectors.length > 0) {
    named.push({ param: 'remove_selectors', selector: params.removeSelectors.join(',') });
  }
  return named;
}

/**
 * Renders one page to an image or PDF. The page comes from the pool in a context of its own,
 * and every byte it loads passes the egress proxy (direct or via the caller's proxy).
 */
export async function capture(deps: CaptureDeps, params: CaptureParams): Promise<CaptureResult> {
  return deps.pool.run(params.proxy, async (lease) => {
    const { page } = lease;
    await emulate(lease, params);
    const adBlocker = params.removeAds ? await deps.adBlocker() : null;
    await adBlocker?.enable(page);
    await blockRequests(page, { resourceTypes: params.blockResources, urls: params.blockUrls });
    const banners = params.removeCookieBanners ? await enableCookieBannerRemoval(page) : null;
    await checkSelectors(page, namedSelectors(params));

    await navigate(lease, params, deps.navigationTimeoutMs);
    if (params.waitForSelector !== null) {
      await waitForCss(page, params.waitForSelector, 'wait_for_selector', deps.navigationTimeoutMs);
    }
    if (banners !== null) await banners.settled(COOKIE_BANNER_WAIT_MS);
    if (params.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, params.delayMs));
    if (params.fullPage && params.fullPageScroll) {
      await scrollThrough(page, params.fullPageScrollDurationMs, deps.maxFullPageHeightPx);
    }
    await hideSelectors(page, params.removeSelectors);
    // The blocker's own hiding styles arrive asynchronously; one awaited pass makes them count.
    await adBlocker?.hideAds(page);

    if (params.format === 'pdf') return printPdf(page);
    const shot = await shoot(page, params, deps);
    return { ...shot, format: params.format, contentType: CONTENT_TYPES[params.format] };
  });
}
