import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import type { CrawlAccepted, CrawlPageJson, CrawlRecord } from '../crawls/crawl-record.js';
import type { ContentResult } from '../engines/content/params.js';
import type { MapBody } from '../engines/map/params.js';
import { errorResponse, WebcapError } from '../errors.js';
import {
  ApiFailure,
  type CapturedFile,
  type JobRecord,
  type Submitted,
  type WebsiteCrawlerPage,
} from './backend.js';
import { CRAWL_STATUS_LIMITS, TEXT_CHARS } from './tools.js';

/*
 * How tool results are shaped for an agent's context: every text within max_chars (at most
 * TEXT_CHARS.max), with a note that says how to read on; the capture preview within
 * PREVIEW's width, height and bytes.
 */

/** The capture preview: at most this wide and tall (the top of a taller page), and skipped above this size. */
export const PREVIEW = { maxWidth: 1024, maxHeight: 2048, maxBytes: 800_000, quality: 70 } as const;

/** Links listed per kind (internal, external, social) by the content tool. */
const MAX_LINKS = 100;

export interface Paging {
  readonly max_chars?: number;
  readonly offset?: number;
}

const text = (value: string): CallToolResult['content'][number] => ({ type: 'text', text: value });

/** A tool error: the API's status and message, as its REST answer says them. */
export function errorResult(message: string): CallToolResult {
  return { isError: true, content: [text(message)] };
}

/** The message of a refusal; anything that is not the API's own refusal is a 500 whose detail stays in the log. */
export function refusal(error: unknown): { message: string; expected: boolean } {
  if (error instanceof WebcapError) {
    const { status, body } = errorResponse(error);
    const retry = error.options.retryAfterSeconds;
    return {
      message: `${status} ${body.error}${retry === undefined ? '' : ` (retry after ${retry} s)`}`,
      expected: true,
    };
  }
  if (error instanceof ApiFailure) {
    const retry = error.retryAfterSeconds === null ? '' : ` (retry after ${error.retryAfterSeconds} s)`;
    return { message: `${error.status} ${error.apiMessage}${retry}`, expected: true };
  }
  return { message: `500 ${errorResponse(new WebcapError('internal')).body.error}`, expected: false };
}

/**
 * The part of `whole` the paging asks for, and a note when there is more (or the offset is past
 * the end): the agent reads a long document in parts instead of receiving all of it.
 */
export function paged(whole: string, paging: Paging, what: string): string {
  const maxChars = Math.min(paging.max_chars ?? TEXT_CHARS.default, TEXT_CHARS.max);
  const offset = paging.offset ?? 0;
  if (offset > 0 && offset >= whole.length) {
    return `[offset ${offset} is past the end: the ${what} has ${whole.length} characters]`;
  }
  const end = Math.min(whole.length, offset + maxChars);
  const part = whole.slice(offset, end);
  if (offset === 0 && end === whole.length) return part;
  const more =
    end < whole.length
      ? ` Call again with offset=${end} for the next part (each call is a new call, billed as one).`
      : ' This is the end.';
  return `${part}\n\n[Characters ${offset}-${end} of ${whole.length} of the ${what}.${more}]`;
}

/** A JSON value as text within the default bound (pretty enough to read, compact enough to fit). */
export function jsonText(value: unknown, paging: Paging = {}): string {
  return paged(JSON.stringify(value, null, 1), paging, 'JSON');
}

export function submittedResult(job: Submitted): CallToolResult {
  return {
    content: [
      text(
        `Job ${job.jobId} is ${job.status}. Call job_status with job_id "${job.jobId}" (free) until it is completed; ` +
          'its credit is held now and billed only when it completes.',
      ),
    ],
  };
}

/** Formats without a still image to preview; a GIF's preview is its first frame. */
const NOT_PREVIEWED = new Set(['pdf', 'mp4', 'webm']);

/** A downscaled JPEG of an image capture, or null (a PDF, a video, or a preview over PREVIEW.maxBytes). */
export async function preview(
  bytes: Buffer,
  format: string,
): Promise<{ data: Buffer; width: number; height: number } | null> {
  if (NOT_PREVIEWED.has(format)) return null;
  const { width, height } = await sharp(bytes).metadata();
  if (width === undefined || height === undefined) return null;
  const scale = Math.min(1, PREVIEW.maxWidth / width);
  // A tall page keeps its top: the part of the source that fits maxHeight once scaled.
  const sourceHeight = Math.min(height, Math.floor(PREVIEW.maxHeight / scale));
  const { data, info } = await sharp(bytes)
    .extract({ left: 0, top: 0, width, height: sourceHeight })
    .resize({ width: Math.max(1, Math.round(width * scale)) })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: PREVIEW.quality })
    .toBuffer({ resolveWithObject: true });
  if (data.length > PREVIEW.maxBytes) return null;
  return { data, width: info.width, height: info.height };
}

/** The links of the screenshot steps, one line each, in order. */
function stepScreenshotLines(links: readonly string[]): string[] {
  return links.map((link, index) => `actions screenshot ${index + 1}: ${link}`);
}

export async function captureResult(file: CapturedFile): Promise<CallToolResult> {
  const lines = [
    ...(file.screenshotUrl === null ? [] : [`screenshot_url: ${file.screenshotUrl}`]),
    ...(file.savedTo === null ? [] : [`saved to: ${file.savedTo}`]),
    `format: ${file.format}, ${file.width}x${file.height} px, ${file.size} bytes`,
    ...stepScreenshotLines(file.stepScreenshots),
    ...file.warnings.map((warning) => `warning: ${warning}`),
  ];
  const shown = file.bytes === null ? null : await preview(file.bytes, file.format);
  if (shown !== null) {
    const cut = shown.height < Math.round(file.height * (shown.width / file.width)) - 1;
    lines.push(`preview: ${shown.width}x${shown.height} JPEG${cut ? ' (the top of the page)' : ''}`);
  } else if (!NOT_PREVIEWED.has(file.format) && file.bytes !== null) {
    lines.push('preview: none (too large); open screenshot_url');
  }
  return {
    content: [
      text(lines.join('\n')),
      ...(shown === null
        ? []
        : [{ type: 'image' as const, data: shown.data.toString('base64'), mimeType: 'image/jpeg' }]),
    ],
  };
}

function linksSection(links: ContentResult['links']): string {
  const part = (name: string, list: readonly string[]) =>
    list.length === 0
      ? []
      : [
          `${name} (${list.length}${list.length > MAX_LINKS ? `, first ${MAX_LINKS}` : ''}):`,
          ...list.slice(0, MAX_LINKS).map((link) => `- ${link}`),
        ];
  return [
    '## Links',
    ...part('internal', links.internal),
    ...part('external', links.external),
    ...part('social', links.social),
  ].join('\n');
}

/** A content result as one Markdown document (title, URL, description, the page, links), read in parts. */
export function contentResult(
  result: ContentResult,
  options: Paging & { include_links?: boolean },
): CallToolResult {
  const { title, description } = result.metadata;
  // Main content's Markdown already begins with the article's title.
  const titled = result.markdown?.startsWith('# ') === true;
  const document = [
    ...(title === '' || titled ? [] : [`# ${title}`]),
    `URL: ${result.url} (HTTP ${result.statusCode})`,
    ...(description === '' ? [] : [`> ${description}`]),
    ...stepScreenshotLines(result.actions?.screenshots ?? []),
    ...result.warnings.map((warning) => `warning: ${warning}`),
    '',
    result.markdown ?? '',
    ...(options.include_links === true ? ['', linksSection(result.links)] : []),
  ].join('\n');
  return { content: [text(paged(document, options, 'page'))] };
}

export function websiteCrawlerResult(page: WebsiteCrawlerPage, paging: Paging): CallToolResult {
  const head = [
    `HTTP ${page.statusCode}${page.finalUrl === null ? '' : ` ${page.finalUrl}`}`,
    ...(page.contentType === null ? [] : [`content-type: ${page.contentType}`]),
  ].join('\n');
  return { content: [text(`${head}\n\n${paged(page.html, paging, 'page source')}`)] };
}

/** A map as text: how many URLs of how many, the warnings, then one URL a line, read in parts. */
export function mapResult(body: MapBody, paging: Paging): CallToolResult {
  const document = [
    `${body.links.length} URLs${body.truncated ? ` of ${body.total} (limit)` : ''}`,
    ...body.warnings.map((warning) => `warning: ${warning}`),
    '',
    ...body.links.map((link) => link.url),
  ].join('\n');
  return { content: [text(paged(document, paging, 'list'))] };
}

export function crawlStartedResult(accepted: CrawlAccepted): CallToolResult {
  return {
    content: [
      text(
        `Crawl ${accepted.crawl_id} is ${accepted.status}. Call crawl_status with crawl_id "${accepted.crawl_id}" (free) ` +
          'to follow it and read its pages; each page fetched costs 1 credit.',
      ),
    ],
  };
}

/** The crawl's own header line at most: a start URL can be long. */
const HEAD_CHARS = 500;
/** A page's Markdown in a crawl_status answer at most, before the answer's share applies. */
const PAGE_CHARS = 4000;
/** What the note on a shortened page and the separators take beside a page's lines. */
const PAGE_OVERHEAD_CHARS = 100;

const cut = (value: string, chars: number) =>
  value.length <= chars ? value : `${value.slice(0, Math.max(0, chars - 1))}…`;

/** A page's lines (title, URL, status; where it landed; its error), within `chars` together. */
function pageHead(page: CrawlPageJson, index: number, chars: number): string {
  const code = page.status_code === null ? '' : `, HTTP ${page.status_code}`;
  const title = page.metadata?.title ? ` ${page.metadata.title}` : '';
  const lines = [
    `## ${index}.${title} ${page.url} (${page.status}${code}, depth ${page.depth})`,
    ...(page.final_url === undefined ? [] : [`landed on ${page.final_url}`]),
    ...(page.error === undefined ? [] : [`error: ${page.error}`]),
  ];
  return cut(lines.join('\n'), chars);
}

/**
 * A crawl's counts and its listed pages within CRAWL_STATUS_LIMITS.chars whatever the pages hold:
 * each page's lines within an equal share of half of it, each page's Markdown within an equal
 * share of what is left (and at most PAGE_CHARS); then how to read on (the `cursor`) or that all
 * is read.
 */
export function crawlStatusResult(crawl: CrawlRecord, readOn: { cursor?: string }): CallToolResult {
  const c = crawl.counts;
  const reason = crawl.stop_reason === null ? '' : ` (${crawl.stop_reason})`;
  const head = [
    cut(`crawl ${crawl.crawl_id}: ${crawl.status}${reason} from ${crawl.url}`, HEAD_CHARS),
    `pages: ${c.discovered} discovered, ${c.completed} completed, ${c.failed} failed, ${c.skipped} skipped, ${c.running} running; ${c.credits_used} credits used`,
  ].join('\n');
  const live = crawl.status === 'queued' || crawl.status === 'running' || c.running > 0;
  const foot =
    crawl.cursor === null
      ? live
        ? 'No finished page past these yet: call crawl_status again in a few seconds.'
        : 'All pages are read.'
      : crawl.pages.length === 0
        ? `No finished page past these yet: call crawl_status again in a few seconds with cursor "${crawl.cursor}".`
        : `More: call crawl_status with cursor "${crawl.cursor}".`;
  const from = readOn.cursor === undefined ? '' : ` after cursor "${readOn.cursor}"`;
  const intro = `${crawl.pages.length} pages${from}:`;
  const count = Math.max(1, crawl.pages.length);
  const headChars = Math.floor(CRAWL_STATUS_LIMITS.chars / 2 / count) - PAGE_OVERHEAD_CHARS;
  const heads = crawl.pages.map((page, i) => pageHead(page, i + 1, headChars));
  const fixed =
    head.length +
    intro.length +
    foot.length +
    heads.reduce((sum, line) => sum + line.length + PAGE_OVERHEAD_CHARS, 0);
  const share = Math.max(0, Math.min(PAGE_CHARS, Math.floor((CRAWL_STATUS_LIMITS.chars - fixed) / count)));
  const pages = crawl.pages.map((page, i) => {
    const markdown = page.markdown ?? '';
    const body =
      markdown.length <= share
        ? markdown
        : `${markdown.slice(0, share)}\n[… ${markdown.length - share} more characters: the content tool reads the whole page]`;
    return body === '' ? (heads[i] as string) : `${heads[i]}\n${body}`;
  });
  const listed = crawl.pages.length === 0 ? [] : [intro, ...pages];
  return { content: [text([head, ...listed, foot].join('\n\n'))] };
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * A job's state, or its result shaped as its tool shapes it: a content job's Markdown, a
 * website crawler job's page source, a capture's link, a map's URLs; any other result as JSON. Every part is paged.
 */
export function jobResult(job: JobRecord, paging: Paging): CallToolResult {
  const head = `job ${job.job_id}: ${job.status}`;
  if (job.status === 'queued' || job.status === 'running') {
    return { content: [text(`${head}. Call job_status again in a few seconds.`)] };
  }
  if (job.status === 'failed') {
    return errorResult(`${head}: ${job.error === null ? '500' : `${job.error.status} ${job.error.error}`}`);
  }
  const result = record(job.result);
  const data = record(result?.data);
  if (typeof result?.screenshot_url === 'string') {
    const { screenshot_url, format, width, height, size } = result;
    const steps = record(result.actions)?.screenshots;
    const links = Array.isArray(steps) ? steps.filter((link) => typeof link === 'string') : [];
    return {
      content: [
        text(
          [
            `${head}\nscreenshot_url: ${screenshot_url}\nformat: ${format}, ${width}x${height} px, ${size} bytes`,
            ...stepScreenshotLines(links),
          ].join('\n'),
        ),
      ],
    };
  }
  if (data !== null && typeof data.markdown === 'string' && record(data.metadata) !== null) {
    const shaped = contentResult(data as unknown as ContentResult, paging);
    return { content: [text(head), ...shaped.content] };
  }
  if (data !== null && typeof data.html === 'string' && typeof data.statusCode === 'number') {
    const page: WebsiteCrawlerPage = {
      statusCode: data.statusCode,
      finalUrl: typeof data.finalUrl === 'string' ? data.finalUrl : null,
      contentType: typeof data.contentType === 'string' ? data.contentType : null,
      html: data.html,
    };
    return { content: [text(head), ...websiteCrawlerResult(page, paging).content] };
  }
  if (result !== null && Array.isArray(result.links) && typeof result.total === 'number') {
    return { content: [text(head), ...mapResult(result as unknown as MapBody, paging).content] };
  }
  return { content: [text(head), text(jsonText(job.result, paging))] };
}
