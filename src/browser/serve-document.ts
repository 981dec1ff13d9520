import type { Page } from 'puppeteer-core';

/**
 * Above every other request handler's priority (page-setup.ts continues and aborts at 0 and 10,
 * the ad blocker at puppeteer's default): the caller's document is the answer whatever they say.
 */
const DOCUMENT_PRIORITY = 1000;

/**
 * Answers the main frame's first navigation with `html` (status 200, UTF-8) instead of sending it
 * to the network, so the page gets the navigated URL's origin and its relative URLs resolve
 * against it. Every other request, the page's subresources and any later navigation included,
 * goes on to the network as usual, through the egress proxy. Uses puppeteer's cooperative
 * interception, so blocking and the ad blocker keep working beside it.
 */
export async function serveDocument(page: Page, html: string): Promise<void> {
  await page.setRequestInterception(true);
  let served = false;
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return;
    if (!served && request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      served = true;
      void request.respond(
        { status: 200, contentType: 'text/html; charset=utf-8', body: html },
        DOCUMENT_PRIORITY,
      );
      return;
    }
    void request.continue(request.continueRequestOverrides(), 0);
  });
}
