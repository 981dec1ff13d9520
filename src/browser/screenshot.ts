import type { Page, ScreenshotOptions } from 'puppeteer-core';
import sharp, { type OverlayOptions, type Sharp } from 'sharp';

/** Chromium cannot paint one surface taller than this many device pixels (GPU texture limit). */
export const MAX_SURFACE_PX = 16_384;
/** Tiles stay well under the limit so rounding at high scale factors never reaches it. */
const TILE_DEVICE_PX = 8_192;

export type ImageType = 'png' | 'jpeg' | 'webp';

export interface ImageShot {
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
}

function encode(image: Sharp, type: ImageType, quality: number): Sharp {
  if (type === 'jpeg') return image.jpeg({ quality });
  if (type === 'webp') return image.webp({ quality });
  return image.png();
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

async function shoot(page: Page, options: ScreenshotOptions): Promise<Buffer> {
  return Buffer.from(await page.screenshot(options));
}

/** The visible viewport. */
export async function viewportShot(page: Page, type: ImageType, quality: number): Promise<ImageShot> {
  const bytes = await shoot(page, { type, ...(type === 'png' ? {} : { quality }) });
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
export async function fullPageShot(
  page: Page,
  type: ImageType,
  quality: number,
  maxHeightPx: number,
): Promise<ImageShot> {
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
  return regionShot(page, region, { type, quality, dpr, zoom });
}

/**
 * An element's box (selectors.ts `elementBox`), cut at `maxHeightPx` CSS pixels like a full page
 * and at Chromium's surface limit in width.
 */
export async function boxShot(
  page: Page,
  box: Region,
  type: ImageType,
  quality: number,
  maxHeightPx: number,
): Promise<ImageShot> {
  const dpr = await page.evaluate(() => window.devicePixelRatio);
  const region = {
    x: Math.max(0, box.x),
    y: Math.max(0, box.y),
    width: Math.min(box.width, Math.floor(MAX_SURFACE_PX / dpr)),
    height: Math.min(box.height, maxHeightPx),
  };
  return regionShot(page, region, { type, quality, dpr, zoom: 1 });
}

/**
 * One region of the document. Regions whose device-pixel height exceeds Chromium's surface
 * limit are painted in tiles, each its own clip of the document, and stitched, so no tile
 * repeats or comes out blank.
 */
async function regionShot(
  page: Page,
  region: Region,
  { type, quality, dpr, zoom }: { type: ImageType; quality: number; dpr: number; zoom: number },
): Promise<ImageShot> {
  const { x, y: top, width, height: cssHeight } = region;
  const pxPerCss = dpr * zoom;
  if (cssHeight * pxPerCss <= MAX_SURFACE_PX) {
    const bytes = await shoot(page, {
      type,
      ...(type === 'png' ? {} : { quality }),
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
    const shot = await shoot(page, {
      type: 'png',
      clip: { x, y: top + y, width, height: Math.min(tileCss, cssHeight - y), scale: zoom },
      captureBeyondViewport: true,
    });
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
    create: { width: outWidth, height: outHeight, channels: 4, background: '#ffffff' },
    limitInputPixels: false,
  }).composite(tiles);
  // Composite and encode in two passes: sharp applies composite last, after any resize/encode hint.
  const raw = await canvas.png({ compressionLevel: 1 }).toBuffer();
  const bytes = await encode(sharp(raw, { limitInputPixels: false }), type, quality).toBuffer();
  return { bytes, width: outWidth, height: outHeight };
}
