import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDevice, DEVICE_NAMES, deviceProfile } from '../src/browser/devices.js';
import { type FixtureServer, launchChromium, pngSize, startFixtureServer } from './helpers/chromium.js';

interface DeviceReport {
  userAgent: string;
  platform: string;
  screen: [number, number];
  inner: [number, number];
  devicePixelRatio: number;
  coarsePointer: boolean;
  hover: boolean;
  touchEvents: boolean;
  maxTouchPoints: number;
  mobileHint: boolean | null;
}

let browser: Browser;
let page: Page;
let server: FixtureServer;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchChromium(), startFixtureServer()]);
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('device emulation in Chromium', () => {
  it.each(DEVICE_NAMES)('%s: the capture is css × scale and the page sees the device', async (name) => {
    const profile = deviceProfile(name);
    const { width, height, deviceScaleFactor } = profile.viewport;
    await applyDevice(page, name);
    const before = server.requests.length;
    await page.goto(server.url('/device.html'), { waitUntil: 'load' });

    const png = await page.screenshot({ type: 'png' });
    // Chromium rounds css × scale to whole pixels (Pixel 5: 393 × 2.75 = 1080.75 → 1081).
    expect(pngSize(png)).toEqual({
      width: Math.round(width * deviceScaleFactor),
      height: Math.round(height * deviceScaleFactor),
    });

    const report = (await page.evaluate('window.deviceReport')) as DeviceReport;
    expect(report.userAgent).toBe(profile.userAgent);
    expect(report.platform).toBe(profile.platform);
    expect(report.screen).toEqual([width, height]);
    expect(report.inner).toEqual([width, height]);
    expect(report.devicePixelRatio).toBe(deviceScaleFactor);
    expect(report.coarsePointer).toBe(true);
    expect(report.hover).toBe(false);
    expect(report.touchEvents).toBe(true);
    expect(report.maxTouchPoints).toBeGreaterThan(0);
    if (profile.userAgentMetadata !== undefined) expect(report.mobileHint).toBe(true);

    // The server saw the device's user agent on the document request too.
    const served = server.requests.slice(before).find((r) => r.path === '/device.html');
    expect(served?.userAgent).toBe(profile.userAgent);
  });

  it('iphone_14_pro_max captures 1290×2796', async () => {
    await applyDevice(page, 'iphone_14_pro_max');
    await page.goto(server.url('/device.html'), { waitUntil: 'load' });
    expect(pngSize(await page.screenshot({ type: 'png' }))).toEqual({ width: 1290, height: 2796 });
  });
});
