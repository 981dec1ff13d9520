import type { CDPSession, HTTPRequest, Page } from 'puppeteer-core';
import { WebcapError } from '../errors.js';

/** The guards of one page: they say when its render must end before it is done. */
export interface PageGuards {
  /**
   * Rejects with the reason as soon as the page does something that ends its render: its main
   * frame navigates to a scheme the network policy refuses, or its renderer crashes. Never
   * resolves; a rejection nobody waits for is handled.
   */
  readonly tripped: Promise<never>;
  /**
   * Whether the main frame's current document has fired DOMContentLoaded (its HTML is parsed),
   * whatever it still loads. Read from the browser's events, so it answers even while the page's
   * own thread is busy.
   */
  contentLoaded(): boolean;
}

/**
 * Schemes the browser would open itself rather than hand to another application: local files
 * and the browser's own pages. A page may not send its main frame there (docs/network-guard.md):
 * they are what `parseTargetUrl` refuses as a target. Other schemes (mailto:, tel:, intent:, an
 * app's own) go to an external handler, which a headless browser does not have: the page stays
 * where it is and is captured as it is.
 */
const LOCAL_SCHEMES = new Set([
  'file:',
  'filesystem:',
  'chrome:',
  'chrome-untrusted:',
  'chrome-extension:',
  'chrome-search:',
  'chrome-error:',
  'devtools:',
  'view-source:',
  'ftp:',
]);

/**
 * Whether the main frame may not go to `url`: a local or browser scheme (above), or an about:
 * page other than the blank and srcdoc documents a page makes of itself. Fails closed on a URL
 * that does not parse.
 */
export function isRefusedNavigation(url: string): boolean {
  if (!URL.canParse(url)) return true;
  const { protocol, pathname } = new URL(url);
  if (protocol === 'about:') return pathname !== 'blank' && pathname !== 'srcdoc';
  return LOCAL_SCHEMES.has(protocol);
}

function refusedNavigation(url: string, mainFrame: boolean): WebcapError {
  const where = URL.canParse(url) ? `a ${new URL(url).protocol} URL` : 'a URL that does not parse';
  const who = mainFrame ? 'the page' : 'a frame of the page';
  return new WebcapError('blocked', `${who} navigated to ${where}; only http and https are allowed`);
}

/**
 * Trips on every navigation to a refused scheme that a frame of `session`'s target schedules, and
 * does the same for the frames of other sites inside it (out-of-process iframes, each a target of
 * its own, whose events reach only a session attached to them), however deep.
 */
async function watchNavigations(
  session: CDPSession,
  mainFrameId: string | null,
  trip: (error: WebcapError) => void,
): Promise<void> {
  session.on('Page.frameScheduledNavigation', ({ frameId, url }) => {
    if (isRefusedNavigation(url)) trip(refusedNavigation(url, frameId === mainFrameId));
  });
  session.on('sessionattached', (child: CDPSession) => {
    // A frame's target may be gone before it answers; its navigations then no longer matter.
    watchNavigations(child, null, trip).catch(() => undefined);
  });
  await Promise.all([
    session.send('Page.enable'),
    session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }),
  ]);
}

/**
 * Installs on a fresh page, before any render uses it, what protects the render from the page:
 * - JavaScript dialogs (alert, confirm, prompt, beforeunload) are dismissed as they open. An
 *   open dialog blocks the page's main thread, so a page that calls `alert()` while loading
 *   never reaches `load` and would hold its slot for the whole navigation timeout.
 * - A main frame sent to a refused scheme ends the render at once with `blocked`, and so does any
 *   frame inside the page, of its own site or another (same rule, same reasons). Chromium
 *   refuses such a navigation itself ("Not allowed to load local resource"), but a form
 *   submitted to file: leaves the page loading forever (Chromium 156), and a meta refresh or a
 *   script going to file: or chrome: is the page asking for a target the policy refuses.
 *   `Page.frameScheduledNavigation` is deprecated, but it is the one event that reports every
 *   such navigation: `Page.frameRequestedNavigation` reports the form and not a script, a meta
 *   refresh or a link going to file:, which Chromium stops before they start. A main document
 *   redirected to such a scheme fails with `net::ERR_UNSAFE_REDIRECT` and ends the render the
 *   same way.
 * - A renderer that crashes (a page that allocates until it dies: chromium-args.ts caps its
 *   heap) ends the render at once with a 400: it is the page's doing, and a retry crashes again.
 *   Without the guard the call failed as a 500 from whichever puppeteer call was waiting on the
 *   dead page, or waited for a load that never came.
 * Popups are refused by the browser itself (chromium-args.ts), and the headless shell already
 * refuses downloads without writing a byte (docs/capture.md, "Hostile pages").
 */
export async function guardPage(page: Page): Promise<PageGuards> {
  let trip: (error: WebcapError) => void = () => undefined;
  const tripped = new Promise<never>((_, reject) => {
    trip = reject;
  });
  tripped.catch(() => undefined);

  page.on('dialog', (dialog) => {
    // The page may be gone by the time the answer arrives; nothing waits for it then.
    dialog.dismiss().catch(() => undefined);
  });
  page.on('error', () => {
    trip(
      new WebcapError(
        'bad_request',
        'the page crashed the browser tab rendering it (it ran out of memory or hit a fatal error)',
      ),
    );
  });
  page.on('requestfailed', (request: HTTPRequest) => {
    if (
      request.isNavigationRequest() &&
      request.frame() === page.mainFrame() &&
      request.failure()?.errorText === 'net::ERR_UNSAFE_REDIRECT'
    ) {
      trip(new WebcapError('blocked', 'the page redirected to a scheme other than http or https'));
    }
  });

  const session = await page.createCDPSession();
  const { frameTree } = await session.send('Page.getFrameTree');
  const mainFrameId = frameTree.frame.id;
  let contentLoaded = false;
  // A new document in the main frame starts unparsed; same-document navigations are another event.
  session.on('Page.frameNavigated', ({ frame }) => {
    if (frame.parentId === undefined) contentLoaded = false;
  });
  session.on('Page.domContentEventFired', () => {
    contentLoaded = true;
  });
  await watchNavigations(session, mainFrameId, trip);
  return { tripped, contentLoaded: () => contentLoaded };
}
