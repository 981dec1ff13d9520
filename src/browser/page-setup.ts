import type { HTTPRequest, Page } from 'puppeteer-core';
import { RESOURCE_TYPES, type ResourceType } from './page-params.js';
import { urlMatcher } from './url-patterns.js';

const NAMED_TYPES: ReadonlySet<string> = new Set(RESOURCE_TYPES.filter((type) => type !== 'other'));

/** Chromium's resource type in the spec's 13 names: prefetch, ping, preflight and the rest are `other`. */
export function resourceTypeOf(request: HTTPRequest): ResourceType {
  const type = request.resourceType();
  return (NAMED_TYPES.has(type) ? type : 'other') as ResourceType;
}

/**
 * Aborts requests of the listed types or matching the block_urls entries. Uses puppeteer's
 * cooperative interception, so other handlers on the same page (the ad blocker) keep working:
 * an abort here wins over their continue. The main document is never blocked by type.
 */
export async function blockRequests(
  page: Page,
  options: { resourceTypes: readonly ResourceType[]; urls: readonly string[] },
): Promise<void> {
  const types = new Set(options.resourceTypes);
  const matches = urlMatcher(options.urls);
  if (types.size === 0 && options.urls.length === 0) return;
  if (types.has('websocket')) {
    // WebSocket handshakes never reach request interception, so the page loses the constructor.
    await page.evaluateOnNewDocument(() => {
      const refuse = function WebSocket() {
        throw new DOMException('WebSocket blocked by block_resources', 'SecurityError');
      };
      Object.defineProperty(window, 'WebSocket', { value: refuse, configurable: false, writable: false });
    });
  }
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return;
    const isMainDocument = request.isNavigationRequest() && request.frame() === page.mainFrame();
    const blocked =
      (!isMainDocument && types.has(resourceTypeOf(request))) || (!isMainDocument && matches(request.url()));
    if (blocked) void request.abort('blockedbyclient', 10);
    else void request.continue(request.continueRequestOverrides(), 0);
  });
}

/** Scrolls down the page step by step over `durationMs` so lazy content loads, then back to the top. */
export async function scrollThrough(page: Page, durationMs: number, maxHeightPx: number): Promise<void> {
  const { height, step } = await page.evaluate(() => ({
    height: Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0),
    step: window.innerHeight,
  }));
  const end = Math.min(height, maxHeightPx);
  const steps = Math.max(1, Math.ceil(end / Math.max(1, step)));
  const pause = Math.max(16, Math.floor(durationMs / steps));
  for (let i = 1; i <= steps; i++) {
    await page.evaluate((y: number) => window.scrollTo(0, y), i * step);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  // Give images that came into view a moment to finish, without waiting on pages that never idle.
  await page.waitForNetworkIdle({ idleTime: 200, timeout: 3000 }).catch(() => undefined);
}
