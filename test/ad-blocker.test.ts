import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdBlocker, loadAdBlocker } from '../src/browser/ad-blocker.js';
import { blockRequests } from '../src/browser/page-setup.js';
import { type FixtureServer, launchChromium, startFixtureServer } from './helpers/chromium.js';

// A real ad host from EasyList, mapped to the fixture server: nothing leaves the machine. The page
// itself is on a made-up host, not 127.0.0.1, because EasyList turns generic element hiding off for
// loopback addresses (`@@://127.0.0.1$generichide`).
const AD_HOST = 'pagead2.googlesyndication.com';
const SITE_HOST = 'news.webcap.test';
const AD_SCRIPT = '/pagead/js/adsbygoogle.js';
const AD_IMAGE = '/ads/banners/leaderboard.gif';

let cacheDir: string;
let blocker: AdBlocker;
let browser: Browser;
let server: FixtureServer;

beforeAll(async () => {
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'webcap-adblock-'));
  [blocker, browser, server] = await Promise.all([
    loadAdBlocker({ cacheDir }),
    launchChromium([`--host-resolver-rules=MAP ${AD_HOST} 127.0.0.1, MAP ${SITE_HOST} 127.0.0.1`]),
    startFixtureServer(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

/** Loads the ad fixture in a fresh page and reports what the server saw and what the page shows. */
async function loadAdPage(setup: (page: Page) => Promise<void>) {
  const page = await browser.newPage();
  try {
    await setup(page);
    const before = server.requests.length;
    await page.goto(server.url('/ads.html', SITE_HOST), { waitUntil: 'load' });
    await blocker.hideAds(page);
    const seen = server.requests.slice(before);
    const banner = await page.$('#ad_banner');
    return {
      adScript: seen.filter((r) => r.host === AD_HOST && r.path === AD_SCRIPT).length,
      adImage: seen.filter((r) => r.path === AD_IMAGE).length,
      appScript: seen.filter((r) => r.path === '/app.js').length,
      bannerBox: await banner?.boundingBox(),
      bannerDisplay: await page.$eval('#ad_banner', (element) => getComputedStyle(element).display),
      screenshot: Buffer.from(await page.screenshot({ type: 'png' })),
    };
  } finally {
    await page.close();
  }
}

describe('ad blocker built from the shipped filter lists', () => {
  it('matches requests against EasyList rules', () => {
    const sourceUrl = `http://${SITE_HOST}/`;
    expect(blocker.isBlocked(`https://${AD_HOST}${AD_SCRIPT}`, { sourceUrl, type: 'script' })).toBe(true);
    expect(blocker.isBlocked(`http://${SITE_HOST}${AD_IMAGE}`, { sourceUrl, type: 'image' })).toBe(true);
    expect(blocker.isBlocked('https://stats.g.doubleclick.net/g/collect', { sourceUrl, type: 'xhr' })).toBe(
      true,
    );
    expect(blocker.isBlocked(`http://${SITE_HOST}/app.js`, { sourceUrl, type: 'script' })).toBe(false);
    expect(blocker.isBlocked(`http://${SITE_HOST}/img/photo.jpg`, { sourceUrl, type: 'image' })).toBe(false);
  });

  it('never requests the ad script or ad image, and hides the ad slot, with blocking on', async () => {
    const on = await loadAdPage((page) => blocker.enable(page));
    expect(on.adScript).toBe(0);
    expect(on.adImage).toBe(0);
    expect(on.appScript).toBe(1);
    expect(on.bannerDisplay).toBe('none');
    expect(on.bannerBox).toBeNull();

    const off = await loadAdPage(async () => {});
    expect(off.adScript).toBe(1);
    expect(off.adImage).toBe(1);
    expect(off.appScript).toBe(1);
    expect(off.bannerDisplay).toBe('block');
    expect(off.bannerBox).toMatchObject({ width: 728, height: 90 });

    expect(on.screenshot.equals(off.screenshot)).toBe(false);
  });

  it('hides an ad inserted after load as soon as hideAds resolves', async () => {
    const page = await browser.newPage();
    try {
      await blocker.enable(page);
      await page.goto(server.url('/ads.html', SITE_HOST), { waitUntil: 'load' });
      // EasyList's generic `##.ad_banner`; the library's own DOM scan runs every 500 ms, too late
      // for a capture taken now.
      await page.evaluate(() => {
        document
          .querySelector('main')
          ?.insertAdjacentHTML('beforeend', '<div class="ad_banner">late ad</div>');
      });
      await blocker.hideAds(page);
      expect(await page.$eval('.ad_banner', (element) => getComputedStyle(element).display)).toBe('none');
    } finally {
      await page.close();
    }
  });

  it('coexists with another cooperative request handler on the same page', async () => {
    const result = await loadAdPage(async (page) => {
      await blocker.enable(page);
      // The page pipeline's block_urls: it aborts what it blocks and continues the rest.
      await blockRequests(page, { resourceTypes: [], urls: ['*/app.js'] });
    });
    expect(result.adScript).toBe(0);
    expect(result.adImage).toBe(0);
    expect(result.appScript).toBe(0);
    expect(result.bannerDisplay).toBe('none');
  });

  it('stops blocking after disable, keeping interception for the other handler', async () => {
    let continued = 0;
    const result = await loadAdPage(async (page) => {
      await blocker.enable(page);
      page.on('request', (request) => {
        if (request.isInterceptResolutionHandled()) return;
        continued += 1;
        void request.continue(request.continueRequestOverrides(), 0);
      });
      await blocker.disable(page);
    });
    expect(result.adScript).toBe(1);
    expect(result.adImage).toBe(1);
    // Every request still went through the remaining handler: interception stayed on.
    expect(continued).toBeGreaterThanOrEqual(4);
  });
});

describe('serialized engine cache', () => {
  it('parses the lists once, then reads the cached engine', async () => {
    // beforeAll's load was the first in this empty cache dir.
    expect(blocker.source).toBe('lists');
    expect(path.dirname(blocker.cacheFile)).toBe(cacheDir);
    expect(path.basename(blocker.cacheFile)).toMatch(/^adblock-[0-9a-f]{16}\.bin$/);
    expect(fs.statSync(blocker.cacheFile).size).toBeGreaterThan(1_000_000);

    const again = await loadAdBlocker({ cacheDir });
    // Read from the cache, not parsed again (which takes seconds; reading, tens of milliseconds).
    expect(again.source).toBe('cache');
    expect(again.cacheFile).toBe(blocker.cacheFile);
    const request = { sourceUrl: `http://${SITE_HOST}/`, type: 'script' } as const;
    expect(again.isBlocked(`https://${AD_HOST}${AD_SCRIPT}`, request)).toBe(true);
    expect(again.isBlocked(`http://${SITE_HOST}/app.js`, request)).toBe(false);
  });

  it('rebuilds a corrupt cache file and fails clearly without the lists', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webcap-adblock-'));
    try {
      fs.copyFileSync(blocker.cacheFile, path.join(dir, path.basename(blocker.cacheFile)));
      const file = path.join(dir, path.basename(blocker.cacheFile));
      fs.truncateSync(file, 1000);
      // Parsing takes seconds of CPU: on a worker thread, this event loop waits idle for most of
      // the rebuild (on the main thread, it would be busy throughout), whatever the machine's speed.
      const before = performance.eventLoopUtilization();
      const rebuilt = await loadAdBlocker({ cacheDir: dir });
      const { utilization } = performance.eventLoopUtilization(before);
      expect(rebuilt.source).toBe('lists');
      expect(utilization, `event-loop utilization ${utilization.toFixed(3)}`).toBeLessThan(0.5);
      expect(fs.statSync(file).size).toBe(fs.statSync(blocker.cacheFile).size);

      await expect(loadAdBlocker({ cacheDir: dir, listsDir: path.join(dir, 'nowhere') })).rejects.toThrow(
        /filter lists not found: .*easylist\.txt.*webext-ublock-origin-chromium/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('blocks all the same when the cache cannot be written, and says so', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webcap-adblock-'));
    try {
      // A file where the cache's parent directory should be: mkdir fails, even for root (whom a
      // directory's mode would not stop), as it failed in a tmpfs that Podman mounts root's.
      const notADir = path.join(dir, 'data');
      fs.writeFileSync(notADir, '');
      const errors: unknown[] = [];
      const parsed = await loadAdBlocker({
        cacheDir: path.join(notADir, 'cache'),
        onCacheWriteError: (error) => errors.push(error),
      });
      expect(parsed.source).toBe('lists');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: 'ENOTDIR' });
      const request = { sourceUrl: `http://${SITE_HOST}/`, type: 'script' } as const;
      expect(parsed.isBlocked(`https://${AD_HOST}${AD_SCRIPT}`, request)).toBe(true);
      expect(parsed.isBlocked(`http://${SITE_HOST}/app.js`, request)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
