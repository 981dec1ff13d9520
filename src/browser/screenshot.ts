import type { Page, ScreenshotOptions } from 'puppeteer-core';
import sharp, { type OverlayOptions, type Sharp } from 'sharp';
import { invalidParam } from '../errors.js';

/** Chromium cannot paint one surface taller than this many device pixels (GPU texture limit). */
export const MAX_SURFACE_PX = 16_384;
/** Tiles stay well under the limit so rounding at high scale factors never reaches it. */
const TILE_DEVICE_PX = 8_192;

export type ImageType = 'png' | 'jpeg' | 'webp' | 'avif';

/** How a shot is taken and encoded. */
export interface Encoding {
  readonly type: ImageType;
  /** 1-100, for jpeg, webp and avif. */
  readonly quality: number;
  /** Transparent where the page paints no background of its own (not for jpeg). */
  readonly omitBackground: boolean;
}

/*
 * AVIF: libheif refuses a side above 16,384 px, and AOM's encoder is slow (a 1280 × 8000 page
 * took 2.7 s at effort 0, 9.7 s at 1, and a 1280 × 1024 viewport of noise 42 s at sharp's
 * default 4), so it runs at effort 0 on images of at most 2^25 pixels (about 1280 × 26,000),
 * and a larger one is a 400 rather than a render slot held for a minute.
 */
const AVIF_MAX_SIDE_PX = 16_384;
const AVIF_MAX_PIXELS = 2 ** 25;
const AVIF_EFFORT = 0;

export interface ImageShot {
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
}

function encode(image: Sharp, type: ImageType, quality: number): Sharp {
  if (type === 'jpeg') return image.jpeg({ quality });
  if (type === 'webp') return image.webp({ quality });
  if (type === 'avif') return image.avif({ quality, effort: AVIF_EFFORT });
  return image.png();
}

async function toAvif(png: Buffer, quality: number): Promise<Buffer> {
  const { width, height } = await imageSize(png);
  if (width > AVIF_MAX_SIDE_PX || height > AVIF_MAX_SIDE_PX || width * height > AVIF_MAX_PIXELS) {
    throw invalidParam(
      'format',
      `avif images are at most ${AVIF_MAX_SIDE_PX} pixels a side and ${AVIF_MAX_PIXELS} pixels in all; this one is ${width}x${height}: use png, jpeg or webp`,
    );
  }
  return encode(sharp(png), 'avif', quality).toBuffer();
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The size of an encoded image, read from its header (a PNG's IHDR directly, other formats by sharp). */
export async function imageSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  // The IHDR chunk comes first (PNG spec 5.2): its width and height follow the signature, length and type.
  if (bytes.length >= 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  const meta = await sharp(bytes).metadata();
  return { width: meta.width ?? 0, height: meta.height ?? 0 };
}

/** One screenshot, encoded as asked: Chromium encodes png, jpeg and webp itself, sharp avif from its png. */
async function shoot(
  page: Page,
  { type, quality, omitBackground }: Encoding,
  options: Omit<ScreenshotOptions, 'type' | 'quality' | 'omitBackground'> = {},
): Promise<Buffer> {
  const chromiumType = type === 'avif' ? 'png' : type;
  const bytes = Buffer.from(
    await page.screenshot({
      ...options,
      type: chromiumType,
      ...(chromiumType === 'png' ? {} : { quality }),
      ...(omitBackground ? { omitBackground } : {}),
    }),
  );
  return type === 'avif' ? toAvif(bytes, quality) : bytes;
}

/** The visible viewport. */
export async function viewportShot(page: Page, encoding: Encoding): Promise<ImageShot> {
  const bytes = await shoot(page, encoding);
  return { bytes, ...(await imageSize(bytes)) };
}

/** A rectangle of the document in CSS pixels. */
export interface Region {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * The whole page down to `maxHeightPx` CSS pixels (the rest is cut, a documented bound).
 */
export async function fullPageShot(page: Page, encoding: Encoding, maxHeightPx: number): Promise<ImageShot> {
  // On mobile emulation a page without a viewport meta tag is laid out 980 px wide and zoomed
  // out to the screen; the capture keeps that zoom so it is as wide as the device's screen.
  const { width, height, dpr, zoom } = await page.evaluate(() => ({
    width: document.documentElement.clientWidth || window.innerWidth,
    height: Math.max(
      document.documentElement.scrollHeight,
      document.body?.scrollHeight ?? 0,
      window.innerHeight,
    ),
    dpr: window.devicePixelRatio,
    zoom: window.visualViewport?.scale ?? 1,
  }));
  const region = { x: 0, y: 0, width, height: Math.min(height, maxHeightPx) };
  return regionShot(page, region, encoding, { dpr, zoom });
}

/**
 * An element's box (selectors.ts `elementBox`), cut at `maxHeightPx` CSS pixels like a full page
 * and at Chromium's surface limit in width.
 */
export async function boxShot(
  page: Page,
  box: Region,
  encoding: Encoding,
  maxHeightPx: number,
): Promise<ImageShot> {
  const dpr = await page.evaluate(() => window.devicePixelRatio);
  const region = {
    x: Math.max(0, box.x),
    y: Math.max(0, box.y),
    width: Math.min(box.width, Math.floor(MAX_SURFACE_PX / dpr)),
    height: Math.min(box.height, maxHeightPx),
  };
  return regionShot(page, region, encoding, { dpr, zoom: 1 });
}

/**
 * A caller's clip of the document, clamped to the document (its height cut at `maxHeightPx` like
 * a full page); a clip that starts past the document's edge is a 400.
 */
export async function clipShot(
  page: Page,
  clip: Region,
  encoding: Encoding,
  maxHeightPx: number,
): Promise<ImageShot> {
  const { width, height, dpr } = await page.evaluate(() => ({
    width: Math.max(document.documentElement.scrollWidth, document.body?.scrollWidth ?? 0, window.innerWidth),
    height: Math.max(
      document.documentElement.scrollHeight,
      document.body?.scrollHeight ?? 0,
      window.innerHeight,
    ),
    dpr: window.devicePixelRatio,
  }));
  const docHeight = Math.min(height, maxHeightPx);
  if (clip.x >= width || clip.y >= docHeight) {
    throw invalidParam('clip_x, clip_y', `start outside the page, which is ${width}x${docHeight} CSS pixels`);
  }
  const region = {
    x: clip.x,
    y: clip.y,
    width: Math.min(clip.width, width - clip.x, Math.floor(MAX_SURFACE_PX / dpr)),
    height: Math.min(clip.height, docHeight - clip.y),
  };
  return regionShot(page, region, encoding, { dpr, zoom: 1 });
}

/**
 * One region of the document. Regions whose device-pixel height exceeds Chromium's surface
 * limit are painted in tiles, each its own clip of the document, and stitched, so no tile
 * repeats or comes out blank.
 */
async function regionShot(
  page: Page,
  region: Region,
  encoding: Encoding,
  { dpr, zoom }: { dpr: number; zoom: number },
): Promise<ImageShot> {
  const { x, y: top, width, height: cssHeight } = region;
  const pxPerCss = dpr * zoom;
  if (cssHeight * pxPerCss <= MAX_SURFACE_PX) {
    const bytes = await shoot(page, encoding, {
      clip: { x, y: top, width, height: cssHeight, scale: zoom },
      captureBeyondViewport: true,
    });
    return { bytes, ...(await imageSize(bytes)) };
  }
  const outWidth = Math.round(width * pxPerCss);
  const outHeight = Math.round(cssHeight * pxPerCss);
  const tileCss = Math.floor(TILE_DEVICE_PX / pxPerCss);
  const tiles: OverlayOptions[] = [];
  for (let y = 0; y < cssHeight; y += tileCss) {
    const tileTop = Math.round(y * pxPerCss);
    const shot = await shoot(
      page,
      { type: 'png', quality: 100, omitBackground: encoding.omitBackground },
      {
        clip: { x, y: top + y, width, height: Math.min(tileCss, cssHeight - y), scale: zoom },
        captureBeyondViewport: true,
      },
    );
    // Rounding at fractional scales can make a tile a pixel taller or wider than its slot.
    const size = await imageSize(shot);
    const fits = size.height + tileTop <= outHeight && size.width <= outWidth;
    const input = fits
      ? shot
      : await sharp(shot)
          .extract({
            left: 0,
            top: 0,
            width: Math.min(size.width, outWidth),
            height: Math.min(size.height, outHeight - tileTop),
          })
          .png()
          .toBuffer();
    tiles.push({ input, top: tileTop, left: 0 });
  }
  const canvas = sharp({
    create: {
      width: outWidth,
      height: outHeight,
      channels: 4,
      background: encoding.omitBackground ? { r: 255, g: 255, b: 255, alpha: 0 } : '#ffffff',
    },
    limitInputPixels: false,
  }).composite(tiles);
  // Composite and encode in two passes: sharp applies composite last, after any resize/encode hint.
  const raw = await canvas.png({ compressionLevel: 1 }).toBuffer();
  const bytes =
    encoding.type === 'avif'
      ? await toAvif(raw, encoding.quality)
      : await encode(sharp(raw, { limitInputPixels: false }), encoding.type, encoding.quality).toBuffer();
  return { bytes, width: outWidth, height: outHeight };
}
