import type { Page } from 'puppeteer-core';
import { freezeFixed } from '../../browser/freeze-fixed.js';
import { type LoadedPage, type PageDeps, withLoadedPage } from '../../browser/load-page.js';
import { recordFrames } from '../../browser/record-frames.js';
import {
  boxShot,
  clipShot,
  type Encoding,
  fullPageShot,
  type ImageShot,
  imageSize,
  viewportShot,
} from '../../browser/screenshot.js';
import { elementBox } from '../../browser/selectors.js';
import { invalidParam } from '../../errors.js';
import { stepShotsOf } from '../action-shots.js';
import { type AnimationDeps, encodeAnimation, encodedSize, FRAME_RATES } from './encode-animation.js';
import {
  type AnimatedFormat,
  type AnimationOptions,
  type CaptureParams,
  type CaptureResult,
  CONTENT_TYPES,
  DEFAULT_PDF,
  isAnimated,
} from './params.js';
import { printPdf } from './pdf.js';

export interface CaptureDeps extends PageDeps {
  readonly animation: AnimationDeps;
}

/** The capture's image encoding; the screenshot steps of a PDF or a recording are PNGs. */
function encodingOf(params: CaptureParams): Encoding {
  const { format } = params;
  return {
    type: format === 'pdf' || isAnimated(format) ? 'png' : format,
    quality: params.imageQuality,
    omitBackground: params.omitBackground,
  };
}

async function shoot(page: Page, params: CaptureParams, deps: CaptureDeps): Promise<ImageShot> {
  const encoding = encodingOf(params);
  if (params.clip !== null) return clipShot(page, params.clip, encoding, deps.maxFullPageHeightPx);
  if (params.selector !== null) {
    const box = await elementBox(page, params.selector);
    if (box === null) throw invalidParam('selector', 'matched no element');
    if (!(box.width >= 1 && box.height >= 1)) {
      throw invalidParam('selector', 'matched an element with no visible box');
    }
    return boxShot(page, box, encoding, deps.maxFullPageHeightPx);
  }
  if (params.fullPage) {
    if (params.freezeFixed === true) await freezeFixed(page);
    return fullPageShot(page, encoding, deps.maxFullPageHeightPx);
  }
  return viewportShot(page, encoding);
}

async function print(
  page: Page,
  params: CaptureParams,
  deps: CaptureDeps,
): Promise<Omit<CaptureResult, 'warnings' | 'stepShots'>> {
  const size = await page.evaluate(() => ({ width: window.innerWidth, height: window.innerHeight }));
  const options = params.pdf ?? DEFAULT_PDF;
  const bytes = await printPdf(page, options, params.omitBackground, deps.maxFullPageHeightPx);
  return { bytes, format: 'pdf', contentType: CONTENT_TYPES.pdf, ...size };
}

/** The time a recording adds to the render's limit: the recording itself, and as long again to encode it. */
function recordingTimeMs(animation: AnimationOptions): number {
  return 2 * animation.durationSeconds * 1000;
}

/** Records the loaded page and encodes the frames with ffmpeg as they come. */
async function animate(
  page: Page,
  format: AnimatedFormat,
  animation: AnimationOptions,
  deps: CaptureDeps,
): Promise<Omit<CaptureResult, 'warnings' | 'stepShots'>> {
  const framesPerSecond = FRAME_RATES[format];
  const timeoutMs = deps.animation.renderTimeoutMs + recordingTimeMs(animation);
  const { bytes, recorded: last } = await encodeAnimation(deps.animation, format, timeoutMs, (sink) =>
    recordFrames(
      page,
      {
        scenario: animation.scenario,
        frames: animation.durationSeconds * framesPerSecond,
        framesPerSecond,
        maxScrollPx: deps.maxFullPageHeightPx,
        clockMs: deps.animation.clockMs,
      },
      sink,
    ),
  );
  const size = encodedSize(format, await imageSize(last));
  return { bytes, format, contentType: CONTENT_TYPES[format], ...size };
}

/**
 * Renders one page to an image, a PDF or a recording: the page pipeline loads it (scrolling
 * through it first for a full-page capture that asks to), then it is shot, printed or recorded.
 */
export async function capture(deps: CaptureDeps, params: CaptureParams): Promise<CaptureResult> {
  const scroll = params.fullPage && params.fullPageScroll;
  const encoding = encodingOf(params);
  const page = {
    ...params,
    scrollDurationMs: scroll ? params.fullPageScrollDurationMs : null,
    removal: 'hide' as const,
    stepShots: encoding,
  };
  const { format, animation } = params;
  const extraTimeMs = animation === undefined ? 0 : recordingTimeMs(animation);
  return withLoadedPage(
    deps,
    page,
    async ({ page: loaded, warnings, shots }: LoadedPage) => {
      const stepShots = stepShotsOf(shots, encoding.type);
      if (format === 'pdf') return { ...(await print(loaded, params, deps)), warnings, stepShots };
      if (isAnimated(format)) {
        if (animation === undefined) throw new Error(`format ${format} without its animation options`);
        return { ...(await animate(loaded, format, animation, deps)), warnings, stepShots };
      }
      const shot = await shoot(loaded, params, deps);
      return { ...shot, format, contentType: CONTENT_TYPES[format], warnings, stepShots };
    },
    extraTimeMs,
  );
}
