import { type ExtractParams, type JobKind, WebcapError as SdkError, type Webcap } from '@webcap/sdk';
import type { CrawlAccepted, CrawlRecord } from '../crawls/crawl-record.js';
import type { ContentResult } from '../engines/content/params.js';
import type { MapBody } from '../engines/map/params.js';
import {
  ApiFailure,
  apiParams,
  type Backend,
  type CapturedFile,
  type Done,
  type JobRecord,
  type Submitted,
  type WebsiteCrawlerPage,
} from './backend.js';
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

/** The SDK's error as the tools report it: the API's status and message, or why no answer came. */
function failure(error: unknown): unknown {
  if (!(error instanceof SdkError)) return error;
  if (error.status === null)
    return new ApiFailure(503, `webcap did not answer (${error.kind}): ${error.message}`);
  return new ApiFailure(error.status, error.message, error.retryAfter);
}

async function sdk<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw failure(error);
  }
}

const done = <T>(value: T): Done<T> => ({ kind: 'done', value });

/**
 * The tools on a remote webcap through @webcap/sdk (`webcap mcp --server URL`): the server
 * bills, caps, guards and logs each call as the REST call it is. Async calls are submitted with
 * the SDK's Idempotency-Key, so a retried submission is queued once.
 */
export class RemoteBackend implements Backend {
  constructor(private readonly client: Webcap) {}

  async capture(args: CaptureArgs): Promise<Submitted | Done<CapturedFile>> {
    const params = apiParams.capture(args);
    if (args.async === true) return this.submit('capture', params);
    // base64: the link and the file in one answer, for the preview.
    const answer = await sdk(() => this.client.capture({ ...params, response_type: 'base64' }));
    if (answer.kind !== 'json') throw new ApiFailure(500, 'the capture did not answer JSON');
    const { screenshot_url, format, width, height, size, base64, warnings, actions } = answer.data;
    return done({
      screenshotUrl: screenshot_url,
      stepScreenshots: actions?.screenshots ?? [],
      savedTo: null,
      format,
      width,
      height,
      size,
      bytes: base64 === undefined ? null : Buffer.from(base64, 'base64'),
      warnings: warnings ?? [],
    });
  }

  async content(args: ContentArgs): Promise<Submitted | Done<ContentResult>> {
    const params = apiParams.content(args);
    if (args.async === true) return this.submit('content', params);
    return done((await sdk(() => this.client.content(params))).data);
  }

  async analyze(args: AnalyzeArgs): Promise<Submitted | Done<Record<string, unknown>>> {
    const params = apiParams.analyze(args);
    if (args.async === true) return this.submit('analyze', params);
    return done((await sdk(() => this.client.analyze(params))).data as Record<string, unknown>);
  }

  async extract(args: ExtractArgs): Promise<Submitted | Done<Record<string, unknown>>> {
    const params = apiParams.extract(args) as ExtractParams;
    if (args.async === true) return this.submit('extract', params);
    const { cache: _cache, ...answer } = await sdk(() => this.client.extract(params));
    return done(answer);
  }

  async websiteCrawler(args: WebsiteCrawlerArgs): Promise<Submitted | Done<WebsiteCrawlerPage>> {
    const params = apiParams.websiteCrawler(args);
    if (args.async === true) return this.submit('website-crawler', params);
    const answer = await sdk(() => this.client.websiteCrawler(params));
    if (answer.kind !== 'html')
      throw new ApiFailure(500, 'the website crawler did not answer the page source');
    return done({
      statusCode: answer.targetStatus ?? 0,
      finalUrl: null,
      contentType: null,
      html: answer.html,
    });
  }

  async map(args: MapArgs): Promise<Submitted | Done<MapBody>> {
    const params = apiParams.map(args);
    if (args.async === true) return this.submit('map', params);
    return done((await sdk(() => this.client.map(params))).data);
  }

  async crawlStart(args: CrawlStartArgs): Promise<CrawlAccepted> {
    return await sdk(() => this.client.crawl.start(args));
  }

  async crawlStatus({
    crawl_id,
    cursor,
    limit,
  }: CrawlStatusArgs & { readonly limit: number }): Promise<CrawlRecord> {
    // The SDK's type is read from the served document, which CrawlRecordSchema itself declares.
    return (await sdk(() => this.client.crawl.get(crawl_id, { cursor, limit }))) as CrawlRecord;
  }

  usage(): Promise<unknown> {
    return sdk(() => this.client.usage());
  }

  async job(jobId: string): Promise<JobRecord> {
    return (await sdk(() => this.client.jobs.get(jobId))) as JobRecord;
  }

  private async submit(kind: JobKind, params: Parameters<Webcap['jobs']['submit']>[1]): Promise<Submitted> {
    const accepted = await sdk(() => this.client.jobs.submit(kind, params));
    return { kind: 'job', jobId: accepted.job_id, status: accepted.status };
  }
}
