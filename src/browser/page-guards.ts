import type { CDPSession, HTTPRequest, Page, Protocol } from 'puppeteer-core';
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
  /**
   * Stops what the page still loads, and resolves once the browser has answered: every document
   * response it paused before that has been answered by then, as events and answers keep their
   * order on a session. A download the page started as its render ended is so refused here,
   * rather than released unwatched when the closing context detaches the page. Resolves within
   * STOP_WAIT_MS whatever the browser does.
   */
  stopLoading(): Promise<void>;
  /**
   * From now on the main frame's document is not followed through a redirect: the redirect is
   * kept (stoppedRedirect) and the navigation fails there, before its target is asked for. A
   * whole-site crawl takes the redirect as a link, so that no page is fetched twice. Resolves
   * once the browser pauses the main frame's documents.
   */
  stopAtRedirects(): Promise<void>;
  /** The main frame's redirect that was not followed; null when none was. */
  stoppedRedirect(): StoppedRedirect | null;
}

export interface GuardOptions {
  /**
   * Whether the guard refuses downloads itself: the full browser fetches a download and writes
   * it to a temporary file whatever it is told, so every frame's document responses are paused
   * and the downloads among them failed. The headless shell refuses a download before asking
   * for it (test/hostile-pages.test.ts), so it is not told to pause them: pausing puts the
   * browser's interception in the way of every request of the page, 14-31 ms of its CPU per
   * render (docs/performance.md, "Where a render's time goes").
   */
  readonly refuseDownloads: boolean;
}

/** A main-document redirect that was not followed: its status and where it pointed. */
export interface StoppedRedirect {
  readonly status: number;
  /** Absolute: the Location resolved against the URL that answered. */
  readonly location: string;
}

/** Whether the main frame's redirects are followed, and the one that was not. */
interface RedirectStop {
  stopping: boolean;
  stopped: StoppedRedirect | null;
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
 * fails the document responses that would be downloads; the same for the frames of other sites
 * inside it (out-of-process iframes, each a target of its own, whose events and requests reach
 * only a session attached to them), however deep.
 */
async function watchFrames(
  session: CDPSession,
  mainFrameId: string | null,
  trip: (error: WebcapError) => void,
  redirects: RedirectStop,
  refuseDownloads: boolean,
): Promise<void> {
  session.on('Page.frameScheduledNavigation', ({ frameId, url }) => {
    if (isRefusedNavigation(url)) trip(refusedNavigation(url, frameId === mainFrameId));
  });
  session.on('Fetch.requestPaused', (event) => {
    const { requestId } = event;
    const stop = redirects.stopping && event.frameId === mainFrameId && stopsAt(event, redirects);
    const answer =
      stop || isDownload(event)
        ? session.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' })
        : session.send('Fetch.continueRequest', { requestId });
    // The page may be gone by then; nothing waits for the request any more.
    answer.catch(() => undefined);
  });
  session.on('sessionattached', (child: CDPSession) => {
    // A frame's target may be gone before it answers; what it does then no longer matters.
    watchFrames(child, null, trip, redirects, refuseDownloads).catch(() => undefined);
  });
  await Promise.all([
    session.send('Page.enable'),
    refuseDownloads ? pauseDocuments(session) : null,
    session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }),
  ]);
}

/** Every document response of the session's frame is paused once its headers are in (Fetch.requestPaused). */
async function pauseDocuments(session: CDPSession): Promise<void> {
  await session.send('Fetch.enable', { patterns: [{ resourceType: 'Document', requestStage: 'Response' }] });
}

/** Whether the paused main document is a redirect, kept as the one not followed when it is. */
function stopsAt(event: Protocol.Fetch.RequestPausedEvent, redirects: RedirectStop): boolean {
  const status = event.responseStatusCode ?? 0;
  const location = event.responseHeaders?.find((h) => h.name.toLowerCase() === 'location')?.value.trim();
  if (status < 300 || status >= 400 || location === undefined || location === '') return false;
  if (!URL.canParse(location, event.request.url)) return false;
  redirects.stopped ??= { status, location: new URL(location, event.request.url).href };
  return true;
}

/** Content types a frame shows rather than saves; a document of any other type becomes a download. */
const SHOWN_TYPES =
  /^(text\/|image\/|audio\/|video\/|multipart\/x-mixed-replace|application\/(xhtml\+xml|xml|json|javascript|pdf|[\w.-]+\+(xml|json))\s*(;|$))/i;

/**
 * Whether a document response, paused before its body is read, would be saved rather than shown:
 * a download the page started itself (a `download` link: Chromium fetches it with no navigation,
 * so with no network id), an attachment, or a type no frame shows. A response without a type is
 * sniffed and shown.
 */
function isDownload(event: Protocol.Fetch.RequestPausedEvent): boolean {
  if (event.networkId === undefined) return true;
  const header = (name: string) =>
    event.responseHeaders?.find((h) => h.name.toLowerCase() === name)?.value.trim() ?? '';
  // A redirect is followed, whatever its own body's type.
  const status = event.responseStatusCode ?? 0;
  if (status >= 300 && status < 400 && header('location') !== '') return false;
  if (/^attachment/i.test(header('content-disposition'))) return true;
  const type = header('content-type');
  return type !== '' && !SHOWN_TYPES.test(type);
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
 * - Downloads are refused before a byte of them is read. The headless shell never starts one; the
 *   full browser fetches it and writes it to a temporary file, even when told to deny downloads
 *   (`Browser.setDownloadBehavior`). So there (options.refuseDownloads) every document response,
 *   of any frame, is paused once its headers are in, and one that would be saved (isDownload) is
 *   failed, as the headless shell fails it: a main document gets `net::ERR_ABORTED`, a frame or
 *   link stays where it was.
 * Popups are refused by the browser itself (chromium-args.ts).
 */
export async function guardPage(page: Page, options: GuardOptions): Promise<PageGuards> {
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
  const redirects: RedirectStop = { stopping: false, stopped: null };
  const { refuseDownloads } = options;
  await watchFrames(session, mainFrameId, trip, redirects, refuseDownloads);
  // Whether the main frame's documents are paused; only then can a paused one be left unanswered.
  let pausing = refuseDownloads;
  return {
    tripped,
    contentLoaded: () => contentLoaded,
    stopLoading: () => (pausing ? stopLoading(session) : Promise.resolve()),
    stopAtRedirects: async () => {
      redirects.stopping = true;
      if (!pausing) {
        pausing = true;
        await pauseDocuments(session);
      }
    },
    stoppedRedirect: () => redirects.stopped,
  };
}

// A page's renderer may be hung; its context then closes without waiting for the answer.
const STOP_WAIT_MS = 1_000;

async function stopLoading(session: CDPSession): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, STOP_WAIT_MS);
  });
  try {
    await Promise.race([session.send('Page.stopLoading').catch(() => undefined), waited]);
  } finally {
    clearTimeout(timer);
  }
}
