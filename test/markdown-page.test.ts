import type { Browser } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownPage } from '../src/engines/markdown-page/markdown-page.js';
import { launchChromium } from './helpers/chromium.js';

/*
 * The Markdown page's stylesheet in real Chromium: light by default, dark when the page is shown
 * with prefers-color-scheme: dark (emulated here through CDP, as a dark_mode option would).
 */
describe('the Markdown page stylesheet', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The background at the page's left margin and the darkest and lightest ink of the heading's band. */
  async function shot(scheme: 'light' | 'dark') {
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 1000, height: 400 });
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
      await page.setContent(markdownPage('# A heading of some length\n\nA paragraph.'));
      const png = Buffer.from(await page.screenshot({ type: 'png' }));
      const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const luma = (x: number, y: number) => {
        const at = (y * info.width + x) * 3;
        return ((data[at] ?? 0) + (data[at + 1] ?? 0) + (data[at + 2] ?? 0)) / 3;
      };
      let darkest = 255;
      let lightest = 0;
      for (let y = 32; y < 80; y++) {
        for (let x = 150; x < 850; x++) {
          darkest = Math.min(darkest, luma(x, y));
          lightest = Math.max(lightest, luma(x, y));
        }
      }
      return { background: luma(5, 200), darkest, lightest };
    } finally {
      await page.close();
    }
  }

  it('is dark text on white in light mode', async () => {
    const light = await shot('light');
    expect(light.background).toBeGreaterThan(245);
    expect(light.darkest).toBeLessThan(60);
  });

  it('is light text on a dark background with prefers-color-scheme: dark', async () => {
    const dark = await shot('dark');
    expect(dark.background).toBeLessThan(30);
    expect(dark.lightest).toBeGreaterThan(200);
  });
});
