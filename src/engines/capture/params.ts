/** The capture engine's typed input: what the HTTP edge produces after validation. */
import type { DeviceName } from '../../browser/devices.js';
import type { UpstreamProxy } from '../../net/upstream-proxy.js';

export const IMAGE_FORMATS = ['png', 'jpeg', 'webp', 'pdf'] as const;
export type CaptureFormat = (typeof IMAGE_FORMATS)[number];

export const RESOURCE_TYPES = [
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'texttrack',
  'xhr',
  'fetch',
  'eventsource',
  'websocket',
  'manifest',
  'other',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export const WAIT_EVENTS = ['domcontentloaded', 'load', 'networkidle0', 'networkidle2'] as const;
export type WaitEvent = (typeof WAIT_EVENTS)[number];

export const CONTENT_TYPES: Record<CaptureFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  pdf: 'application/pdf',
};

export interface CaptureParams {
  /** An http(s) URL already accepted by the edge check; the egress proxy checks every hop. */
  readonly url: string;
  readonly format: CaptureFormat;
  readonly device: DeviceName | null;
  readonly fullPage: boolean;
  readonly fullPageScroll: boolean;
  readonly fullPageScrollDurationMs: number;
  /** Null keeps the device's size, or 1280 × 1024 without a device. */
  readonly viewportWidth: number | null;
  readonly viewportHeight: number | null;
  /** Null keeps the device's factor, or 1 without a device. */
  readonly scaleFactor: number | null;
  /** 1-100, for jpeg and webp. */
  readonly imageQuality: number;
  readonly selector: string | null;
  readonly removeSelectors: readonly string[];
  readonly removeAds: boolean;
  readonly removeCookieBanners: boolean;
  readonly blockResources: readonly ResourceType[];
  readonly blockUrls: readonly string[];
  readonly delayMs: number;
  readonly waitUntil: readonly WaitEvent[];
  readonly waitForSelector: string | null;
  /** A caller's proxy, chained behind the egress proxy. */
  readonly proxy: UpstreamProxy | null;
}

export interface CaptureResult {
  readonly bytes: Buffer;
  readonly format: CaptureFormat;
  readonly contentType: string;
  /** Pixels of the image; for a PDF, the CSS pixels of the page it printed. */
  readonly width: number;
  readonly height: number;
}
