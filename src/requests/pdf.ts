import { type Static, type TObject, Type } from 'typebox';
import { DEFAULT_PDF, PAPER_FORMATS, type PdfMargins, type PdfOptions } from '../engines/capture/params.js';
import { invalidParam } from '../errors.js';
import { Flag, flag } from './common-fields.js';

/** A CSS length as Chromium's printing takes it; bounded and without nested repetition, so no backtracking. */
const Length = (side: string) =>
  Type.Optional(
    Type.String({
      maxLength: 12,
      pattern: '^\\d{1,4}(\\.\\d{1,3})?(px|in|cm|mm)?$',
      description: `${side}: a length with px (the default), in, cm or mm`,
    }),
  );

const TEMPLATE_CHARS = 8000;

const Template = (where: string) =>
  Type.Optional(
    Type.String({
      maxLength: TEMPLATE_CHARS,
      description: `HTML printed at the ${where} of every page; spans of class pageNumber, totalPages, date, title and url are filled in; nothing is loaded (src, href, url(), @import are refused)`,
    }),
  );

/** The PDF options of /v1/capture (docs/capture.md, "PDF options"): ScreenshotOne's names. */
export const pdfFields = {
  pdf_paper_format: Type.Optional(
    Type.Enum([...PAPER_FORMATS], { description: "default: the page's CSS @page size, else letter" }),
  ),
  pdf_landscape: Type.Optional(Flag),
  pdf_print_background: Type.Optional(Flag),
  pdf_margin: Length('every side, default 0'),
  pdf_margin_top: Length('top, over pdf_margin'),
  pdf_margin_right: Length('right, over pdf_margin'),
  pdf_margin_bottom: Length('bottom, over pdf_margin'),
  pdf_margin_left: Length('left, over pdf_margin'),
  pdf_scale: Type.Optional(Type.Number({ minimum: 0.1, maximum: 2, description: 'default 1' })),
  pdf_page_ranges: Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: '^\\d{1,5}(-\\d{1,5})?(, ?\\d{1,5}(-\\d{1,5})?){0,31}$',
      description: 'pages to keep, such as 1-3,5; default all',
    }),
  ),
  pdf_fit_one_page: Type.Optional(Flag),
  pdf_header: Template('top'),
  pdf_footer: Template('bottom'),
};

type PdfInput = Static<TObject<typeof pdfFields>>;

/*
 * Chromium loads nothing a header or footer template names (test/capture-options.test.ts counts 0
 * requests), and a stylesheet, @import or font it is asked for fails the whole print. So anything
 * that would fetch is refused here, with what hides it: CSS escapes (`\75rl(`) and character
 * references other than the five basic ones (`url&lpar;`). A template holds text, markup, styles
 * and Chromium's classes; an image goes in as the page's own or not at all.
 */
const FETCHES =
  /(?:src|href|poster|background|data|action|formaction|ping|srcset)\s*=|url\(|@import|image-set|\\|<(?:link|iframe|frame|object|embed|script|meta|base|portal|video|audio)\b/i;
const HIDDEN_REFERENCE = /&(?!(?:amp|lt|gt|quot|apos|nbsp);|\s)/i;

function template(param: 'pdf_header' | 'pdf_footer', raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const fetch = FETCHES.exec(raw);
  if (fetch !== null) {
    throw invalidParam(param, `may not load anything (found ${JSON.stringify(fetch[0])})`);
  }
  if (HIDDEN_REFERENCE.test(raw)) {
    throw invalidParam(param, 'may use only the character references &amp; &lt; &gt; &quot; &apos; &nbsp;');
  }
  return raw;
}

/** Each range's start at least 1 and at most its end; the pattern has checked the form. */
function pageRanges(raw: string | undefined): string {
  if (raw === undefined) return '';
  for (const range of raw.split(',')) {
    const [start = 0, end = start] = range.trim().split('-').map(Number);
    if (start < 1 || end < start) {
      throw invalidParam(
        'pdf_page_ranges',
        `has ${JSON.stringify(range.trim())}; pages count from 1, start ≤ end`,
      );
    }
  }
  return raw.replaceAll(' ', '');
}

/** Margins given for a header or footer default to room for it: a template in a 0 margin is not printed. */
const TEMPLATE_MARGIN = '1cm';

function margins(input: PdfInput, header: boolean, footer: boolean): PdfMargins {
  const all = input.pdf_margin;
  return {
    top: input.pdf_margin_top ?? all ?? (header ? TEMPLATE_MARGIN : DEFAULT_PDF.margins.top),
    right: input.pdf_margin_right ?? all ?? DEFAULT_PDF.margins.right,
    bottom: input.pdf_margin_bottom ?? all ?? (footer ? TEMPLATE_MARGIN : DEFAULT_PDF.margins.bottom),
    left: input.pdf_margin_left ?? all ?? DEFAULT_PDF.margins.left,
  };
}

/** The names of the PDF fields present in a request. */
export function pdfFieldsGiven(input: PdfInput): string[] {
  return Object.keys(pdfFields).filter((name) => input[name as keyof PdfInput] !== undefined);
}

/**
 * The PDF options of a validated request. pdf_fit_one_page chooses the paper itself, so a paper
 * format, an orientation or page ranges beside it are a 400 naming them.
 */
export function pdfOptionsOf(input: PdfInput): PdfOptions {
  const fitOnePage = flag(input.pdf_fit_one_page);
  if (fitOnePage) {
    const clash = (['pdf_paper_format', 'pdf_landscape', 'pdf_page_ranges'] as const).filter(
      (name) => input[name] !== undefined,
    );
    if (clash.length > 0) {
      throw invalidParam(
        clash.join(', '),
        'cannot be combined with pdf_fit_one_page, which sizes the paper to the page',
      );
    }
  }
  const headerTemplate = template('pdf_header', input.pdf_header);
  const footerTemplate = template('pdf_footer', input.pdf_footer);
  return {
    paperFormat: input.pdf_paper_format ?? null,
    landscape: flag(input.pdf_landscape),
    printBackground: input.pdf_print_background === undefined || flag(input.pdf_print_background),
    margins: margins(input, headerTemplate !== null, footerTemplate !== null),
    scale: input.pdf_scale ?? DEFAULT_PDF.scale,
    pageRanges: pageRanges(input.pdf_page_ranges),
    fitOnePage,
    headerTemplate,
    footerTemplate,
  };
}
