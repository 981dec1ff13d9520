import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CookieBannerOutcome,
  type CookieBannerRemover,
  loadCookieBannerRemover,
} from '../src/browser/cookie-banners.js';
import { type FixtureServer, launchChromium, pngSize, startFixtureServer } from './helpers/chromium.js';
import { HANG_MS } from './helpers/waits.js';

let browser: Browser;
let server: FixtureServer;
let banners: CookieBannerRemover;

beforeAll(async () => {
  [browser, server, banners] = await Promise.all([
    launchChromium(),
    startFixtureServer(),
    loadCookieBannerRemover(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface PageState {
  outcome: CookieBannerOutcome | null;
  consentChoice: string | null;
  /** Whether any element of the banner selector still has a box on screen. */
  bannerVisible: boolean;
  /** scrollY after the mouse wheel asked for 1000 px down: 0 while the scroll is locked. */
  scrolledTo: number;
  screenshot: Buffer;
  /** Height of a full-page capture in px, when asked for. */
  fullPageHeight: number | null;
}

/** Opens the fixture in a fresh context, with or without banner removal, and inspects the result. */
async function visit(
  file: string,
  banner: string,
  options: { remove: boolean; timeoutMs?: number; fullPage?: boolean },
) {
  const context = await browser.createBrowserContext();
  try {
    const page: Page = await context.newPage();
    await page.setViewport({ width: 1024, height: 768 });
    const session = options.remove ? await banners.enable(page) : null;
    await page.goto(server.url(`/${file}`), { waitUntil: 'load' });
    // By default only autoconsent's signal that it is done ends the wait, whatever the machine's
    // speed; a test gives a short one only where nothing is left to wait for (no CMP acts).
    const outcome = session === null ? null : await session.settled(options.timeoutMs ?? HANG_MS);
    // Without removal, the banner its script inserts is waited for, however slow the machine.
    if (session === null) await page.waitForSelector(banner, { timeout: HANG_MS });
    const state = await page.evaluate((selector: string) => {
      const consentChoice = (window as unknown as { consentChoice: string | null }).consentChoice;
      const bannerVisible = [...document.querySelectorAll(selector)].some(
        (element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden',
      );
      return { consentChoice, bannerVisible };
    }, banner);
    const screenshot = Buffer.from(await page.screenshot({ type: 'png' }));
    const fullPageHeight = options.fullPage
      ? pngSize(await page.screenshot({ type: 'png', fullPage: true })).height
      : null;
    await page.mouse.move(512, 200);
    await page.mouse.wheel({ deltaY: 1000 });
    // With removal the page should scroll: waited for as long as a loaded machine may need. Without,
    // half a second without a scroll is the sign of the lock (a slow machine can only hide a lock
    // that failed, never fail a lock that held).
    const scrolledTo = await page
      .waitForFunction(() => window.scrollY > 0, { timeout: options.remove ? HANG_MS : 500 })
      .then(() => page.evaluate(() => window.scrollY))
      .catch(() => 0);
    return { outcome, screenshot, fullPageHeight, scrolledTo, ...state } satisfies PageState;
  } finally {
    await context.close();
  }
}

describe('cookie banner removal', () => {
  it('rejects a OneTrust banner through its CMP rule', async () => {
    const on = await visit('cookies-onetrust.html', '#onetrust-banner-sdk', { remove: true });
    expect(on.outcome).toMatchObject({ handledBy: 'autoconsent', cmp: 'Onetrust', hiddenElements: 0 });
    expect(on.consentChoice).toBe('rejected');
    expect(on.bannerVisible).toBe(false);

    const off = await visit('cookies-onetrust.html', '#onetrust-banner-sdk', { remove: false });
    expect(off.consentChoice).toBeNull();
    expect(off.bannerVisible).toBe(true);
    expect(on.screenshot.equals(off.screenshot)).toBe(false);
  });

  it('rejects an unknown site’s own banner with the heuristic, and the page scrolls', async () => {
    const on = await visit('cookies-heuristic.html', '.privacy-bar', { remove: true });
    expect(on.outcome).toMatchObject({ handledBy: 'autoconsent', cmp: 'HEURISTIC-REJECT' });
    expect(on.consentChoice).toBe('rejected');
    expect(on.bannerVisible).toBe(false);
    expect(on.scrolledTo).toBeGreaterThan(0);

    const off = await visit('cookies-heuristic.html', '.privacy-bar', { remove: false });
    expect(off.consentChoice).toBeNull();
    expect(off.bannerVisible).toBe(true);
    expect(off.scrolledTo).toBe(0);
    expect(on.screenshot.equals(off.screenshot)).toBe(false);
  });

  it('hides an accept-only cookie wall it will not accept, and removes the scroll lock', async () => {
    const on = await visit('cookies-generic.html', '.notice, .backdrop', {
      remove: true,
      timeoutMs: 1500,
      fullPage: true,
    });
    expect(on.outcome).toEqual({ handledBy: 'fallback', cmp: null, hiddenElements: 2, scrollUnlocked: true });
    // Never consented on the visitor's behalf.
    expect(on.consentChoice).toBeNull();
    expect(on.bannerVisible).toBe(false);
    expect(on.scrolledTo).toBeGreaterThan(0);
    expect(on.fullPageHeight).toBeGreaterThanOrEqual(3000);

    const off = await visit('cookies-generic.html', '.notice, .backdrop', { remove: false, fullPage: true });
    expect(off.bannerVisible).toBe(true);
    expect(off.scrolledTo).toBe(0);
    // Locked, the document is one viewport tall: a full-page capture would miss the page.
    expect(off.fullPageHeight).toBe(768);
    expect(on.screenshot.equals(off.screenshot)).toBe(false);
  });

  it('stops acting on a reused page after dispose, and can be enabled again', async () => {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const choice = () =>
        page.evaluate(() => (window as unknown as { consentChoice: string | null }).consentChoice);
      const first = await banners.enable(page);
      await page.goto(server.url('/cookies-heuristic.html'), { waitUntil: 'load' });
      expect((await first.settled(HANG_MS)).handledBy).toBe('autoconsent');
      expect(await choice()).toBe('rejected');

      await first.dispose();
      await page.goto(server.url('/cookies-heuristic.html'), { waitUntil: 'load' });
      // Nothing of the session reaches the new document: neither its bridge nor its script, so
      // nothing is left that could act on the banner.
      const traces = await page.evaluate(() => ({
        bridge: typeof (window as unknown as Record<string, unknown>).__webcapCookieBanners,
        script: typeof (window as unknown as Record<string, unknown>).autoconsentSendMessage,
      }));
      expect(traces).toEqual({ bridge: 'undefined', script: 'undefined' });
      expect(await choice()).toBeNull();

      const second = await banners.enable(page);
      await page.goto(server.url('/cookies-heuristic.html'), { waitUntil: 'load' });
      expect((await second.settled(HANG_MS)).handledBy).toBe('autoconsent');
      expect(await choice()).toBe('rejected');
    } finally {
      await context.close();
    }
  });

  it('leaves a page without a banner alone', async () => {
    const on = await visit('device.html', '#report', { remove: true, timeoutMs: 800 });
    expect(on.outcome).toEqual({ handledBy: null, cmp: null, hiddenElements: 0, scrollUnlocked: false });
    expect(on.bannerVisible).toBe(true);
  });
});
