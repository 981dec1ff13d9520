import { type Static, Type } from 'typebox';
import { WebcapError } from '../../errors.js';
import type { FetchResult, GuardedFetcher } from '../../net/guarded-fetch.js';

export interface CrawlerParams {
  /** An http(s) URL; the fetcher checks it and every redirect hop against the network policy. */
  readonly url: string;
  /** false returns the first response as it is, a redirect included. */
  readonly allowRedirects: boolean;
}

/** What the crawler answers about the response (DESIGN.md §2): the schema it is declared and checked with, and its type. */
export const CrawlerDataSchema = Type.Object(
  {
    url: Type.String(),
    finalUrl: Type.String(),
    statusCode: Type.Integer(),
    redirects: Type.Array(Type.Object({ url: Type.String(), status: Type.Integer() })),
    contentType: Type.Union([Type.String(), Type.Null()]),
    headers: Type.Record(Type.String(), Type.String()),
    size: Type.Integer({ description: 'bytes of the body after content decoding' }),
  },
  { additionalProperties: false },
);

export interface CrawlerResult extends Static<typeof CrawlerDataSchema> {
  /** The body as text, decoded from the page's charset. */
  readonly html: string;
}

/** The user agent of the service's own server-side fetches (crawler, sitemaps, favicon probe). */
export const USER_AGENT = 'Mozilla/5.0 (compatible; webcap/1; +https://github.com/webcap)';
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

function mediaType(contentType: string | null): string | null {
  return contentType?.split(';')[0]?.trim().toLowerCase() || null;
}

/** Whether a body without a usable Content-Type looks like HTML (WHATWG sniffing, reduced to the tags that matter). */
function looksLikeHtml(body: Buffer): boolean {
  const head = body
    .subarray(0, 512)
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart()
    .toLowerCase();
  return /^<(!doctype html|html|head|body|!--|title|meta|div|p|script)[\s>]/.test(head);
}

/** The charset from the Content-Type, else from a `<meta>` in the first 1024 bytes, else UTF-8. */
function charsetOf(contentType: string | null, body: Buffer): string {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (fromHeader) return fromHeader;
  const head = body.subarray(0, 1024).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ?? 'utf-8';
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    // An unknown label: browsers fall back to windows-1252 for legacy pages, UTF-8 is the better guess today.
    return new TextDecoder('utf-8').decode(body);
  }
}

function isRedirect(result: FetchResult): boolean {
  return result.status >= 300 && result.status < 400 && result.headers.location !== undefined;
}

/**
 * Fetches a page's raw HTML without rendering. Any status the target answers is a result; a
 * body that is not HTML is a 400, except a redirect returned as is when redirects are off.
 * `signal` ends the fetch (it then rejects with its reason).
 */
export async function fetchRawPage(
  fetcher: GuardedFetcher,
  params: CrawlerParams,
  signal?: AbortSignal,
): Promise<CrawlerResult> {
  const result = await fetcher.fetch(params.url, {
    followRedirects: params.allowRedirects,
    signal,
    headers: { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' },
  });
  const type = mediaType(result.contentType);
  const html = type === null ? looksLikeHtml(result.body) || result.body.length === 0 : HTML_TYPES.has(type);
  if (!html && !isRedirect(result)) {
    throw new WebcapError('bad_request', `the page is not HTML (content-type ${type ?? 'unknown'})`);
  }
  return {
    url: result.url,
    finalUrl: result.finalUrl,
    statusCode: result.status,
    redirects: result.redirects.map(({ url, status }) => ({ url, status })),
    contentType: result.contentType,
    headers: { ...result.headers },
    size: result.body.length,
    html: decode(result.body, charsetOf(result.contentType, result.body)),
  };
}
