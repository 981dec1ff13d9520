import type { Page, PDFOptions } from 'puppeteer-core';
import { invalidParam } from '../../errors.js';
import type { PdfMargins, PdfOptions } from './params.js';

/** CSS pixels per unit of the lengths the edge accepts (CSS Values 4: 1in = 96px = 2.54cm). */
const PX_PER_UNIT: Readonly<Record<string, number>> = { px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 };

function lengthPx(length: string): number {
  const unit = /[a-z]+$/.exec(length)?.[0] ?? 'px';
  return Number.parseFloat(length) * (PX_PER_UNIT[unit] ?? 1);
}

/** An empty template: without it Chromium prints its own date, title and URL in the other slot. */
const NO_TEMPLATE = '<span></span>';

/**
 * A caller's template in a box of readable defaults: Chromium draws template text at a size of
 * its own that prints as a speck (about 1 px) at the left edge; the template's own styles win.
 */
function readable(template: string): string {
  return `<div style="width: 100%; font-size: 10px; text-align: center;">${template}</div>`;
}

/**
 * The paper of pdf_fit_one_page: as wide as the viewport the page was laid out in, so the print
 * lays it out the same, and as tall as the document (cut at `maxHeightPx`), both scaled, plus
 * the margins. Only its first page is kept, in case the print layout runs longer than the screen's.
 */
async function onePagePaper(
  page: Page,
  { scale, margins }: { scale: number; margins: PdfMargins },
  maxHeightPx: number,
): Promise<PDFOptions> {
  const { width, height } = await page.evaluate(() => ({
    width: document.documentElement.clientWidth || window.innerWidth,
    height: Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0),
  }));
  const across = lengthPx(margins.left) + lengthPx(margins.right);
  const down = lengthPx(margins.top) + lengthPx(margins.bottom);
  return {
    width: Math.ceil(width * scale + across),
    height: Math.ceil(Math.min(height, maxHeightPx) * scale + down) + 1,
    pageRanges: '1',
  };
}

/**
 * What Chromium refuses of a print, as the 400 of the parameter that caused it; anything else
 * is thrown as it came.
 */
function printError(error: unknown, options: PdfOptions): unknown {
  const message = error instanceof Error ? error.message : '';
  if (message.includes('Page range exceeds page count')) {
    return invalidParam('pdf_page_ranges', 'asks for pages beyond the last page of the document');
  }
  if (message.includes('content area is empty')) {
    const sides = Object.entries(options.margins)
      .filter(([, length]) => lengthPx(length) > 0)
      .map(([side]) => `pdf_margin_${side}`);
    return invalidParam(sides.join(', ') || 'pdf_margin', 'leave no room for the content on the paper');
  }
  // A template's subresource fails the print (the edge refuses those; this is the net below it).
  if (message.includes('Printing failed') && (options.headerTemplate ?? options.footerTemplate) !== null) {
    return invalidParam(
      options.headerTemplate !== null ? 'pdf_header' : 'pdf_footer',
      'could not be printed',
    );
  }
  return error;
}

/**
 * The loaded page printed to PDF as `options` ask; the defaults print as the capture always has
 * (the page's CSS @page size, else Letter; no margins; backgrounds). A paper format, landscape or
 * pdf_fit_one_page takes precedence over the page's @page size.
 */
export async function printPdf(
  page: Page,
  options: PdfOptions,
  omitBackground: boolean,
  maxHeightPx: number,
): Promise<Buffer> {
  const templates = options.headerTemplate !== null || options.footerTemplate !== null;
  const paper: PDFOptions = options.fitOnePage
    ? await onePagePaper(page, options, maxHeightPx)
    : {
        ...(options.paperFormat === null ? {} : { format: options.paperFormat }),
        landscape: options.landscape,
        preferCSSPageSize: options.paperFormat === null && !options.landscape,
        pageRanges: options.pageRanges,
      };
  try {
    return Buffer.from(
      await page.pdf({
        ...paper,
        printBackground: options.printBackground,
        ...(omitBackground ? { omitBackground } : {}),
        margin: options.margins,
        scale: options.scale,
        ...(templates
          ? {
              displayHeaderFooter: true,
              headerTemplate:
                options.headerTemplate === null ? NO_TEMPLATE : readable(options.headerTemplate),
              footerTemplate:
                options.footerTemplate === null ? NO_TEMPLATE : readable(options.footerTemplate),
            }
          : {}),
      }),
    );
  } catch (error) {
    throw printError(error, options);
  }
}
