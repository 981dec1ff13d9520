import type { Page } from 'puppeteer-core';
import { type LoadedPage, type PageDeps, withLoadedPage } from '../../browser/load-page.js';
import {
  boxShot,
  clipShot,
  type Encoding,
  fullPageShot,
  type ImageShot,
  viewportShot,
} from '../../browser/screenshot.js';
import { elementBox } from '../../browser/selectors.js';
import { invalidParam } from '../../errors.js';
import { type CaptureParams, type CaptureResult, CONTENT_TYPES, DEFAULT_PDF } from './params.js';
import { printPdf } from './pdf.js';

export type CaptureDeps = PageDeps;

async function shoot(page: Page, params: CaptureParams, deps: CaptureDeps): Promise<ImageShot> {
  const encoding: Encoding = {
    type: params.format === 'pdf' ? 'png' : params.format,
    quality: params.imageQuality,
    omitBackground: params.omitBackground,
  };
  if (params.clip !== null) return clipShot(page, params.clip, encoding, deps.maxFullPageHeightPx);
  if (params.selector !== null) {
    const box = await elementBox(page, params.selector);
    if (box === null) throw invalidParam('selector', 'matched no element');
    if (!(box.width >= 1 && box.height >= 1)) {
      throw invalidParam('selector', 'matched an element with no visible box');
    }
    return boxShot(page, box, encoding, deps.maxFullPageHeightPx);
  }
  if (params.fullPage) return fullPageShot(page, encoding, deps.maxFullPageHeightPx);
  return viewportShot(page, encoding);
}

async function print(
  page: Page,
  params: CaptureParams,
  deps: CaptureDeps,
): Promise<Omit<CaptureResult, 'warnings'>> {
  const size = await page.evaluate(() => ({ width: window.innerWidth, height: window.innerHeight }));
  const options = params.pdf ?? DEFAULT_PDF;
  const bytes = await printPdf(page, options, params.omitBackground, deps.maxFullPageHeightPx);
  return { bytes, format: 'pdf', contentType: CONTENT_TYPES.pdf, ...size };
}

/**
 * Renders one page to an image or PDF: the page pipeline loads it (scrolling through it first
 * for a full-page capture that asks to), then it is shot or printed.
 */
export async function capture(deps: CaptureDeps, params: CaptureParams): Promise<CaptureResult> {
  const scroll = params.fullPage && params.fullPageScroll;
  const page = {
    ...params,
    scrollDurationMs: scroll ? params.fullPageScrollDurationMs : null,
    removal: 'hide' as const,
  };
  return withLoadedPage(deps, page, async ({ page: loaded, warnings }: LoadedPage) => {
    if (params.format === 'pdf') return { ...(await print(loaded, params, deps)), warnings };
    const shot = await shoot(loaded, params, deps);
    return { ...shot, format: params.format, contentType: CONTENT_TYPES[params.format], warnings };
  });
}
