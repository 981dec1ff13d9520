/** The capture engine's typed input: what the HTTP edge produces after validation. */
import type { PageParams } from '../../browser/page-params.js';

export const IMAGE_FORMATS = ['png', 'jpeg', 'webp', 'pdf'] as const;
export type CaptureFormat = (typeof IMAGE_FORMATS)[number];

export const CONTENT_TYPES: Record<CaptureFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  pdf: 'application/pdf',
};

export interface CaptureParams extends Omit<PageParams, 'scrollDurationMs' | 'removal'> {
  readonly format: CaptureFormat;
  readonly fullPage: boolean;
  readonly fullPageScroll: boolean;
  readonly fullPageScrollDurationMs: number;
  /** 1-100, for jpeg and webp. */
  readonly imageQuality: number;
}

export interface CaptureResult {
  readonly bytes: Buffer;
  readonly format: CaptureFormat;
  readonly contentType: string;
  /** Pixels of the image; for a PDF, the CSS pixels of the page it printed. */
  readonly width: number;
  readonly height: number;
  /** What the page pipeline gave up on (a page that never finished loading); empty when nothing. */
  readonly warnings: readonly string[];
}
