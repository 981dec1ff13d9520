/** Request shaping: what the caller asks the target to see of the browser (docs/capture.md, "Request shaping"). */
import { type CDPSession, type Page, ProtocolError } from 'puppeteer-core';
import { invalidParam } from '../errors.js';
import { type DeviceName, deviceProfile } from './devices.js';
import type { Lease } from './pool.js';
import type { RequestShaping, ShapedCookie } from './request-shaping-params.js';

/** Whether a request to `url` goes to `origin` (scheme, host and port alike). */
function sameOrigin(url: string, origin: string): boolean {
  return URL.canParse(url) && new URL(url).origin === origin;
}

/**
 * Adds `extra` to every request to `origin` and to no other: the main document, its same-origin
 * subresources, and a redirect's hop back to the origin; a hop to another origin is paused again
 * by Chromium as a request of its own and continues without them. Cooperative interception at
 * priority 0 like blockRequests (page-setup.ts) and the ad blocker, whose aborts still win; they
 * continue with `continueRequestOverrides()`, so the headers set here survive their pass.
 */
async function sendToOriginOnly(page: Page, origin: string, extra: Record<string, string>): Promise<void> {
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return;
    const overrides = request.continueRequestOverrides();
    if (!sameOrigin(request.url(), origin)) {
      void request.continue(overrides, 0);
      return;
    }
    const headers = { ...(overrides.headers ?? request.headers()), ...extra };
    void request.continue({ ...overrides, headers }, 0);
  });
}

/**
 * The user agent and Accept-Language (which sets navigator.language too) in one override: CDP
 * sets both at once, so a language alone keeps the device's user agent or the browser's own.
 */
async function overrideUserAgent(
  page: Page,
  session: CDPSession,
  shaping: RequestShaping,
  device: DeviceName | null,
): Promise<void> {
  const profile = device === null || shaping.userAgent !== null ? null : deviceProfile(device);
  const userAgent = shaping.userAgent ?? profile?.userAgent ?? (await page.browser().userAgent());
  await session.send('Emulation.setUserAgentOverride', {
    userAgent,
    ...(shaping.acceptLanguage === null ? {} : { acceptLanguage: shaping.acceptLanguage }),
    ...(profile?.platform === undefined ? {} : { platform: profile.platform }),
    ...(profile?.userAgentMetadata === undefined ? {} : { userAgentMetadata: profile.userAgentMetadata }),
  });
}

/** Sets the cookies in the page's context for the target: host-only unless a domain was given. */
async function setCookies(session: CDPSession, target: URL, cookies: readonly ShapedCookie[]): Promise<void> {
  for (const cookie of cookies) {
    const { success } = await session
      .send('Network.setCookie', {
        name: cookie.name,
        value: cookie.value,
        url: target.origin,
        ...(cookie.domain === null ? {} : { domain: cookie.domain }),
        path: cookie.path,
        secure: cookie.secure,
        httpOnly: cookie.httpOnly,
        ...(cookie.sameSite === null ? {} : { sameSite: cookie.sameSite }),
        ...(cookie.expires === null ? {} : { expires: cookie.expires }),
      })
      .catch((error: unknown) => {
        if (error instanceof ProtocolError) return { success: false };
        throw error;
      });
    // The edge checked the form; what is left is the browser's own rules (a `__Host-` cookie
    // needs secure and no domain, for one). The value is never echoed: it may be a secret.
    if (!success) {
      throw invalidParam('cookies', `has cookie ${JSON.stringify(cookie.name)}, which the browser refused`);
    }
  }
}

/**
 * The media type and features in one command: each of puppeteer's emulateMediaType and
 * emulateMediaFeatures sends the whole emulated media, clearing what the other set.
 */
async function emulateMedia(session: CDPSession, shaping: RequestShaping): Promise<void> {
  const features = [
    ...(shaping.darkMode === null
      ? []
      : [{ name: 'prefers-color-scheme', value: shaping.darkMode ? 'dark' : 'light' }]),
    ...(shaping.reducedMotion === null
      ? []
      : [{ name: 'prefers-reduced-motion', value: shaping.reducedMotion ? 'reduce' : 'no-preference' }]),
  ];
  if (features.length === 0 && shaping.mediaType === null) return;
  await session.send('Emulation.setEmulatedMedia', { media: shaping.mediaType ?? '', features });
}

/**
 * Applies the caller's shaping to a fresh page before it navigates to `url`: the user agent and
 * language, cookies and headers for the target's origin only, time zone, geolocation (permission
 * granted to the target's origin only) and media emulation. Does nothing for a missing shaping.
 */
export async function shapeRequests(
  lease: Lease,
  url: string,
  device: DeviceName | null,
  shaping: RequestShaping | undefined,
): Promise<void> {
  if (shaping === undefined) return;
  const { page, context } = lease;
  const target = new URL(url);
  // A session of its own, which stays attached: its overrides end when it detaches, and it
  // closes with the page.
  const session = await page.createCDPSession();
  if (shaping.userAgent !== null || shaping.acceptLanguage !== null) {
    await overrideUserAgent(page, session, shaping, device);
  }
  if (shaping.cookies.length > 0) await setCookies(session, target, shaping.cookies);
  const extra: Record<string, string> = { ...shaping.headers };
  if (shaping.authorization !== null) extra.authorization = shaping.authorization;
  if (Object.keys(extra).length > 0) await sendToOriginOnly(page, target.origin, extra);
  if (shaping.timeZone !== null) {
    // Node's ICU checked the name at the edge; the browser's may be older or newer.
    await page.emulateTimezone(shaping.timeZone).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('Invalid timezone')) {
        throw invalidParam('time_zone', 'is not a time zone the browser knows');
      }
      throw error;
    });
  }
  if (shaping.geolocation !== null) {
    await context.overridePermissions(target.origin, ['geolocation']);
    await page.setGeolocation({ ...shaping.geolocation });
  }
  await emulateMedia(session, shaping);
}
