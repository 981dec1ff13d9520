import { WebcapError as SdkError, type Webcap } from '@webcap/sdk';
import type { ContentResult } from '../engines/content/params.js';
import {
  ApiFailure,
  apiParams,
  type Backend,
  type CapturedFile,
  type CrawlerPage,
  type Done,
  type JobRecord,
  type Submitted,
} from './backend.js';
import type { AnalyzeArgs, CaptureArgs, ContentArgs, CrawlerArgs } from './tools.js';

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
    const { screenshot_url, format, width, height, size, base64, warnings } = answer.data;
    return done({
      screenshotUrl: screenshot_url,
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

  async crawler(args: CrawlerArgs): Promise<Submitted | Done<CrawlerPage>> {
    const params = apiParams.crawler(args);
    if (args.async === true) return this.submit('crawl', params);
    const answer = await sdk(() => this.client.crawl(params));
    if (answer.kind !== 'html') throw new ApiFailure(500, 'the crawler did not answer the page source');
    return done({
      statusCode: answer.targetStatus ?? 0,
      finalUrl: null,
      contentType: null,
      html: answer.html,
    });
  }

  usage(): Promise<unknown> {
    return sdk(() => this.client.usage());
  }

  async job(jobId: string): Promise<JobRecord> {
    return (await sdk(() => this.client.jobs.get(jobId))) as JobRecord;
  }

  private async submit(
    kind: 'capture' | 'content' | 'analyze' | 'crawl',
    params: Parameters<Webcap['jobs']['submit']>[1],
  ): Promise<Submitted> {
    const accepted = await sdk(() => this.client.jobs.submit(kind, params));
    return { kind: 'job', jobId: accepted.job_id, status: accepted.status };
  }
}
