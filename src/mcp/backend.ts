import type { ContentResult } from '../engines/content/params.js';
import type { AnalyzeArgs, CaptureArgs, ContentArgs, CrawlerArgs } from './tools.js';

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

/** A page fetched by the crawler: its source and what the answer said about it. */
export interface CrawlerPage {
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
  crawler(args: CrawlerArgs): Promise<Submitted | Done<CrawlerPage>>;
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
 * own options (async, paging, links) left out, content always with Markdown and cached for an
 * hour by default (so that the parts read with `offset` come from one copy), the crawler's page source.
 */
export const apiParams = {
  capture({ async: _a, headers, ...rest }: CaptureArgs) {
    return { ...rest, ...headersText(headers), response_type: 'json' as const };
  },
  content({ async: _a, max_chars: _m, offset: _o, include_links: _l, cache, headers, ...rest }: ContentArgs) {
    // The cache's shortest lifetime: a copy for reading on, not a stale page for a month.
    return {
      ...rest,
      ...headersText(headers),
      include_markdown: true,
      cache: cache ?? true,
      cache_ttl: 3600,
    };
  },
  analyze({ async: _a, headers, ...rest }: AnalyzeArgs) {
    return { ...rest, ...headersText(headers) };
  },
  crawler({ url, allow_redirects }: CrawlerArgs) {
    return {
      query: url,
      allow_redirects: allow_redirects ?? true,
      return_page_source: true,
    };
  },
};
