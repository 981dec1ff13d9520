/** The capture engine's typed input: what the HTTP edge produces after validation. */
import type { PageParams } from '../../browser/page-params.js';
import type { StepShot } from '../action-shots.js';

export const IMAGE_FORMATS = ['png', 'jpeg', 'webp', 'avif', 'pdf'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];
/** Recordings of the page over time, encoded by ffmpeg (docs/capture.md, "Animated captures"). */
export const ANIMATED_FORMATS = ['mp4', 'webm', 'gif'] as const;
export type AnimatedFormat = (typeof ANIMATED_FORMATS)[number];
export type CaptureFormat = ImageFormat | AnimatedFormat;

/** Whether a format is a recording rather than one image or a PDF. */
export function isAnimated(format: CaptureFormat): format is AnimatedFormat {
  return (ANIMATED_FORMATS as readonly string[]).includes(format);
}

export const CONTENT_TYPES: Record<CaptureFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  webm: 'video/webm',
  gif: 'image/gif',
};

/** What an animated capture records: the page as it moves by itself, or scrolled top to bottom. */
export const SCENARIOS = ['default', 'scroll'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface AnimationOptions {
  readonly scenario: Scenario;
  /** Length of the recording, 1-30 s: the file plays exactly this long. */
  readonly durationSeconds: number;
}

/** Chromium's named paper sizes (puppeteer's `PaperFormat`, lower case). */
export const PAPER_FORMATS = [
  'letter',
  'legal',
  'tabloid',
  'ledger',
  'a0',
  'a1',
  'a2',
  'a3',
  'a4',
  'a5',
  'a6',
] as const;
export type PaperFormat = (typeof PAPER_FORMATS)[number];

/** Margins of a printed page as CSS lengths (`12`, `1.5cm`, `0.5in`; no unit is px). */
export interface PdfMargins {
  readonly top: string;
  readonly right: string;
  readonly bottom: string;
  readonly left: string;
}

/** How a PDF is printed; the defaults (`DEFAULT_PDF`) are the capture's PDF as it always was. */
export interface PdfOptions {
  /** Null: the page's CSS `@page` size, else Letter. */
  readonly paperFormat: PaperFormat | null;
  readonly landscape: boolean;
  readonly printBackground: boolean;
  readonly margins: PdfMargins;
  /** 0.1-2. */
  readonly scale: number;
  /** Chromium's page ranges (`1-3,5`), checked at the edge; empty prints every page. */
  readonly pageRanges: string;
  /** The whole page on one PDF page as wide as the viewport (paper size, orientation and ranges are the caller's otherwise). */
  readonly fitOnePage: boolean;
  /** HTML templates (they load nothing: checked at the edge); null for none. */
  readonly headerTemplate: string | null;
  readonly footerTemplate: string | null;
}

export const DEFAULT_PDF: PdfOptions = {
  paperFormat: null,
  landscape: false,
  printBackground: true,
  margins: { top: '0', right: '0', bottom: '0', left: '0' },
  scale: 1,
  pageRanges: '',
  fitOnePage: false,
  headerTemplate: null,
  footerTemplate: null,
};

/** A rectangle of the document to capture, in CSS pixels. */
export interface Clip {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface CaptureParams extends Omit<PageParams, 'scrollDurationMs' | 'removal' | 'stepShots'> {
  readonly format: CaptureFormat;
  readonly fullPage: boolean;
  readonly fullPageScroll: boolean;
  readonly fullPageScrollDurationMs: number;
  /** 1-100, for jpeg, webp and avif. */
  readonly imageQuality: number;
  /** Null unless format is pdf. */
  readonly pdf: PdfOptions | null;
  /** Absent unless format is mp4, webm or gif (absent, not null: other captures keep their cache keys). */
  readonly animation?: AnimationOptions;
  /** A transparent page background where the page paints none (png, webp, avif, pdf). */
  readonly omitBackground: boolean;
  /** A region of the document instead of the viewport; clamped to the document. */
  readonly clip: Clip | null;
  /**
   * Fixed and sticky elements drawn once, where the first viewport shows them, on a full page
   * (Urlbox's `freeze_fixed`); absent is false, so a call without it keeps its cache key.
   */
  readonly freezeFixed?: boolean;
}

export interface CaptureResult {
  readonly bytes: Buffer;
  readonly format: CaptureFormat;
  readonly contentType: string;
  /** Pixels of the image or of the recording's frames; for a PDF, the CSS pixels of the page it printed. */
  readonly width: number;
  readonly height: number;
  /** What the page pipeline gave up on (a page that never finished loading); empty when nothing. */
  readonly warnings: readonly string[];
  /** The images of the `screenshot` steps, in order, in the capture's image format (PNG for a PDF); empty when none. */
  readonly stepShots: readonly StepShot[];
}
