import type { CrawlAccepted, CrawlRecord } from '../crawls/crawl-record.js';
import type { ContentResult } from '../engines/content/params.js';
import type { MapBody } from '../engines/map/params.js';
import type {
  AnalyzeArgs,
  CaptureArgs,
  ContentArgs,
  CrawlStartArgs,
  CrawlStatusArgs,
  ExtractArgs,
  MapArgs,
  WebsiteCrawlerArgs,
} from './tools.js';

/** An async call accepted as a job: the agent polls job_status with its id. */
export interface Submitted {
  readonly kind: 'job';
  readonly jobId: string;
  readonly status: string;
}

export interface Done<T> {
  readonly kind: 'done';
  readonly value: T;
}

/** A finished capture as the capture tool reports it. */
export interface CapturedFile {
  /** The hosted, signed link; null when there is none to give (docs/mcp.md, in-process mode). */
  readonly screenshotUrl: string | null;
  /** The hosted links of the `screenshot` steps of `actions`, in order. */
  readonly stepScreenshots: readonly string[];
  /** Where the file was saved on this machine, when it was (in-process mode without a public URL). */
  readonly savedTo: string | null;
  readonly format: string;
  readonly width: number;
  readonly height: number;
  readonly size: number;
  /** The file itself, for the preview; null when the backend did not get it. */
  readonly bytes: Buffer | null;
  readonly warnings: readonly string[];
}

/** A page fetched by the website crawler: its source and what the answer said about it. */
export interface WebsiteCrawlerPage {
  readonly statusCode: number;
  readonly finalUrl: string | null;
  readonly contentType: string | null;
  readonly html: string;
}

/**
 * What the tools run on: the call layer in this process, or a webcap server through the SDK.
 * Arguments are the tools' own; a refusal is thrown (a WebcapError, or an ApiFailure from a
 * remote server) and becomes a tool error with the API's message.
 */
export interface Backend {
  capture(args: CaptureArgs): Promise<Submitted | Done<CapturedFile>>;
  content(args: ContentArgs): Promise<Submitted | Done<ContentResult>>;
  analyze(args: AnalyzeArgs): Promise<Submitted | Done<Record<string, unknown>>>;
  /** The extract answer without `success`: `{data, warnings?}`. */
  extract(args: ExtractArgs): Promise<Submitted | Done<Record<string, unknown>>>;
  websiteCrawler(args: WebsiteCrawlerArgs): Promise<Submitted | Done<WebsiteCrawlerPage>>;
  /** Starts a whole-site crawl (POST /v1/crawl). */
  crawlStart(args: CrawlStartArgs): Promise<CrawlAccepted>;
  /** A crawl's record with at most `limit` pages after `cursor` (GET /v1/crawl/{crawl_id}). */
  crawlStatus(args: CrawlStatusArgs & { readonly limit: number }): Promise<CrawlRecord>;
  map(args: MapArgs): Promise<Submitted | Done<MapBody>>;
  usage(): Promise<unknown>;
  /** The job record (GET /jobs/{job_id}) as JSON. */
  job(jobId: string): Promise<JobRecord>;
}

/** The job record as the tools read it (jobs/job-record.ts JobRecordSchema). */
export interface JobRecord {
  readonly job_id: string;
  readonly status: string;
  readonly endpoint: string;
  readonly result: unknown;
  readonly error: { readonly status: number; readonly error: string } | null;
  readonly [field: string]: unknown;
}

/** An answer of a remote webcap that is not a success: its status and its `error` message. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly apiMessage: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(`${status} ${apiMessage}`);
    this.name = 'ApiFailure';
  }
}

/** A tool's headers object as the JSON text a query string carries (the REST endpoints take either). */
function headersText(headers: Readonly<Record<string, string>> | undefined): { headers?: string } {
  return headers === undefined ? {} : { headers: JSON.stringify(headers) };
}

/**
 * The API parameters a tool's arguments stand for, as the REST endpoint takes them: the tool's
 * own options (async, paging, links) left out, content always with Markdown, of the main content
 * unless `whole_page` (what an agent reads a page for, without the menus it would pay for), and
 * cached for an hour by default (so that the parts read with `offset` come from one copy), the
 * website crawler's page source. A crawl's tool arguments are its API parameters as they are.
 */
export const apiParams = {
  capture({ async: _a, headers, ...rest }: CaptureArgs) {
    return { ...rest, ...headersText(headers), response_type: 'json' as const };
  },
  content({
    async: _a,
    max_chars: _m,
    offset: _o,
    include_links: _l,
    whole_page,
    cache,
    headers,
    ...rest
  }: ContentArgs) {
    // The cache's shortest lifetime: a copy for reading on, not a stale page for a month.
    return {
      ...rest,
      ...headersText(headers),
      include_markdown: true,
      use_defuddle: whole_page !== true,
      cache: cache ?? true,
      cache_ttl: 3600,
    };
  },
  analyze({ async: _a, headers, ...rest }: AnalyzeArgs) {
    return { ...rest, ...headersText(headers) };
  },
  extract({ async: _a, ...rest }: ExtractArgs) {
    return rest;
  },
  websiteCrawler({ url, allow_redirects }: WebsiteCrawlerArgs) {
    return {
      query: url,
      allow_redirects: allow_redirects ?? true,
      return_page_source: true,
    };
  },
  map({ async: _a, max_chars: _m, offset: _o, ...rest }: MapArgs) {
    return rest;
  },
};
