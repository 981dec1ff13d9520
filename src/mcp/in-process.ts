import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { usageRecord } from '../billing/usage.js';
import { asJob, type CallSpec, performCall } from '../calls/call-spec.js';
import type { CallDeps } from '../calls/deps.js';
import type { Caller } from '../calls/metering.js';
import type { CrawlAccepted, CrawlRecord } from '../crawls/crawl-record.js';
import type { Crawls } from '../crawls/crawls.js';
import type { ContentResult } from '../engines/content/params.js';
import type { MapBody } from '../engines/map/params.js';
import { errorResponse, invalidParam, WebcapError } from '../errors.js';
import type { Jobs } from '../jobs/jobs.js';
import { refuseScreenshots } from '../requests/actions.js';
import { analyzeRequest } from '../requests/analyze.js';
import { captureRequest } from '../requests/capture.js';
import { contentRequest } from '../requests/content.js';
import { type CrawlCeilings, crawlRequest } from '../requests/crawl.js';
import { crawlerRequest } from '../requests/crawler.js';
import { extractRequest } from '../requests/extract.js';
import { mapRequest } from '../requests/map.js';
import type { Metrics } from '../stats/metrics.js';
import type { RequestLog } from '../stats/request-log.js';
import type { Db } from '../store/db.js';
import { makePrivateDir, writePrivateFile } from '../store/private-files.js';
import {
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

/** The path the request log records MCP tool calls, and their jobs, under. */
export const MCP_PATH = '/mcp';

export interface InProcessDeps {
  readonly calls: CallDeps;
  readonly jobs: Jobs;
  readonly crawls: Crawls;
  /** The service's ceilings of a crawl (CRAWL_MAX_PAGES, CRAWL_MAX_CONCURRENCY). */
  readonly crawlCeilings: CrawlCeilings;
  readonly db: Db;
  readonly requestLog: RequestLog;
  /** Counted where the process serves /metrics; `webcap mcp` serves none. */
  readonly metrics: Metrics | null;
}

/**
 * Where a capture goes: hosted and linked from `baseUrl` (the /mcp endpoint, or PUBLIC_BASE_URL),
 * or, with no address that would serve the link, saved as a file in `dir` (docs/mcp.md).
 */
export type CaptureDestination = { readonly baseUrl: string } | { readonly dir: string };

/** Why screenshot steps are refused where no address serves hosted links. */
const NO_LINKS = 'needs PUBLIC_BASE_URL in this mode: the images are answered as hosted links';

/** Files `webcap mcp` keeps in its captures directory; older ones are deleted. */
const KEPT_CAPTURES = 100;

interface Ran<T> {
  readonly value: T;
  readonly status: number;
  readonly billed: boolean;
}

/**
 * The tools on this process's call layer, for one caller: every call goes through performCall
 * (checks, cache, caps, metering, engine) or jobs.submit, as the REST routes do, and leaves one
 * request-log row (engine, path /mcp, status, billed) as a REST call does.
 */
export class InProcessBackend implements Backend {
  constructor(
    private readonly deps: InProcessDeps,
    /** The caller, verified again for each call (a key revoked meanwhile is refused). */
    private readonly caller: () => Promise<Caller>,
    private readonly destination: CaptureDestination,
  ) {}

  capture(args: CaptureArgs): Promise<Submitted | Done<CapturedFile>> {
    return this.run<Submitted | Done<CapturedFile>>('capture', args.url ?? null, async (caller) => {
      const destination = this.destination;
      const baseUrl = 'baseUrl' in destination ? destination.baseUrl : null;
      if (args.async === true && baseUrl === null) {
        throw invalidParam('async', 'needs PUBLIC_BASE_URL in this mode: a job answers with a hosted link');
      }
      const request = captureRequest(apiParams.capture(args), 'v1', baseUrl ?? '');
      if (baseUrl === null) refuseScreenshots(request.params.actions, NO_LINKS);
      // Without an address that serves links, the bytes are the answer and are saved instead.
      const delivery =
        baseUrl === null ? { ...request.delivery, responseType: 'image' as const } : request.delivery;
      const spec = { ...request, delivery };
      if (args.async === true) return this.submit(caller, spec);
      const done = await performCall(this.deps.calls, caller, spec);
      const { result, body } = done.outcome.value;
      const savedTo =
        'dir' in destination ? await saveCapture(destination.dir, result.bytes, result.format) : null;
      const file: CapturedFile = {
        screenshotUrl: body?.screenshot_url ?? null,
        stepScreenshots: body?.actions?.screenshots ?? [],
        savedTo,
        format: result.format,
        width: result.width,
        height: result.height,
        size: result.bytes.length,
        bytes: result.bytes,
        warnings: result.warnings,
      };
      return { value: { kind: 'done', value: file }, status: 200, billed: done.outcome.billed };
    });
  }

  content(args: ContentArgs): Promise<Submitted | Done<ContentResult>> {
    return this.run<Submitted | Done<ContentResult>>('content', args.url ?? null, async (caller) => {
      const baseUrl = 'baseUrl' in this.destination ? this.destination.baseUrl : null;
      const spec = contentRequest(apiParams.content(args), 'v1', baseUrl ?? '');
      if (baseUrl === null) refuseScreenshots(spec.params.actions, NO_LINKS);
      if (args.async === true) return this.submit(caller, spec);
      return this.json<ContentResult>(caller, spec);
    });
  }

  analyze(args: AnalyzeArgs): Promise<Submitted | Done<Record<string, unknown>>> {
    return this.run<Submitted | Done<Record<string, unknown>>>(
      'analyze',
      args.url ?? null,
      async (caller) => {
        const spec = analyzeRequest(apiParams.analyze(args));
        if (args.async === true) return this.submit(caller, spec);
        return this.json<Record<string, unknown>>(caller, spec);
      },
    );
  }

  extract(args: ExtractArgs): Promise<Submitted | Done<Record<string, unknown>>> {
    return this.run<Submitted | Done<Record<string, unknown>>>(
      'extract',
      args.url ?? null,
      async (caller) => {
        const spec = extractRequest(apiParams.extract(args));
        if (args.async === true) return this.submit(caller, spec);
        return this.json<Record<string, unknown>>(caller, spec);
      },
    );
  }

  websiteCrawler(args: WebsiteCrawlerArgs): Promise<Submitted | Done<WebsiteCrawlerPage>> {
    return this.run<Submitted | Done<WebsiteCrawlerPage>>(
      'website-crawler',
      args.url ?? null,
      async (caller) => {
        const spec = crawlerRequest(apiParams.websiteCrawler(args));
        if (args.async === true) return this.submit(caller, spec);
        const done = await performCall(this.deps.calls, caller, spec);
        const { statusCode, finalUrl, contentType, html } = done.outcome.value;
        const page: WebsiteCrawlerPage = { statusCode, finalUrl, contentType, html };
        return { value: { kind: 'done', value: page }, status: 200, billed: done.outcome.billed };
      },
    );
  }

  map(args: MapArgs): Promise<Submitted | Done<MapBody>> {
    return this.run<Submitted | Done<MapBody>>('map', args.url ?? null, async (caller) => {
      const spec = mapRequest(apiParams.map(args));
      if (args.async === true) return this.submit(caller, spec);
      return this.json<MapBody>(caller, spec);
    });
  }

  crawlStart(args: CrawlStartArgs): Promise<CrawlAccepted> {
    return this.run('crawl', args.url, async (caller) => {
      // crawl_start takes no formats, so no page's image is ever linked from this base.
      const baseUrl = 'baseUrl' in this.destination ? this.destination.baseUrl : '';
      const plan = crawlRequest(args, this.deps.crawlCeilings, baseUrl);
      // A tool call is not retried by a transport of its own, so it names no key.
      const { accepted } = await this.deps.crawls.submit(caller, plan, (id) => this.crawlUrl(id), null);
      return { value: accepted, status: 202, billed: false };
    });
  }

  crawlStatus({
    crawl_id,
    cursor,
    limit,
  }: CrawlStatusArgs & { readonly limit: number }): Promise<CrawlRecord> {
    return this.run('crawl', null, async (caller) => {
      const record = await this.deps.crawls.record(
        caller,
        crawl_id,
        Number(cursor ?? '-1'),
        limit,
        (next) => `${this.crawlUrl(crawl_id)}?cursor=${next}`,
      );
      return { value: record, status: 200, billed: false };
    });
  }

  usage(): Promise<unknown> {
    return this.run('usage', null, async (caller) => ({
      value: await usageRecord(this.deps.db, caller.account, caller.key, this.deps.calls.metering.clock()),
      status: 200,
      billed: false,
    }));
  }

  job(jobId: string): Promise<JobRecord> {
    return this.run('jobs', null, async (caller) => ({
      value: JSON.parse((await this.deps.jobs.record(caller, jobId)).toString()) as JobRecord,
      status: 200,
      billed: false,
    }));
  }

  /** Where REST reads the crawl: under the public address when there is one, else its path. */
  private crawlUrl(id: string): string {
    const baseUrl = 'baseUrl' in this.destination ? this.destination.baseUrl : '';
    return `${baseUrl}/v1/crawl/${id}`;
  }

  /** The call as a job, as REST's is_async=true submits it (its unit held until it ends). */
  private async submit(caller: Caller, spec: CallSpec): Promise<Ran<Submitted>> {
    const { job } = await this.deps.jobs.submit(caller, {
      spec: asJob(spec),
      path: MCP_PATH,
      webhookUrl: null,
      idempotencyKey: null,
    });
    return { value: { kind: 'job', jobId: job.id, status: job.status }, status: 202, billed: false };
  }

  private async json<T>(
    caller: Caller,
    spec: CallSpec<'content' | 'analyze' | 'extract' | 'map'>,
  ): Promise<Ran<Done<T>>> {
    const done = await performCall(this.deps.calls, caller, spec);
    const value = JSON.parse(done.outcome.value.toString()) as T;
    return { value: { kind: 'done', value }, status: 200, billed: done.outcome.billed };
  }

  /** Runs one tool call for the verified caller and records it as REST's access log records a request. */
  private async run<T>(
    engine: string,
    target: string | null,
    call: (caller: Caller) => Promise<Ran<T>>,
  ): Promise<T> {
    const caller = await this.caller();
    const started = performance.now();
    let status = 500;
    let billed = false;
    // What the tool's caller reads when it fails: the API's error text (a 500's has no detail).
    let failure: string | null = null;
    try {
      const ran = await call(caller);
      status = ran.status;
      billed = ran.billed;
      return ran.value;
    } catch (error) {
      const { status: code, body } = errorResponse(
        error instanceof WebcapError ? error : new WebcapError('internal'),
      );
      status = code;
      failure = body.error;
      throw error;
    } finally {
      const durationMs = performance.now() - started;
      this.deps.metrics?.observe(engine, status, durationMs / 1000, billed);
      this.deps.requestLog.record({
        account_id: caller.account.id,
        key_id: caller.key.id,
        engine,
        path: MCP_PATH,
        status,
        duration_ms: Math.round(durationMs),
        billed: billed ? 1 : 0,
        created_at: this.deps.calls.metering.clock().toISOString(),
        target_url: target,
        error: failure,
      });
    }
  }
}

/** Saves a capture in `dir` under a new name and keeps only the newest KEPT_CAPTURES files there. */
async function saveCapture(dir: string, bytes: Buffer, format: string): Promise<string> {
  await makePrivateDir(dir);
  // Names start with the time, so that they sort oldest first.
  const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.${format}`;
  const file = path.join(dir, name);
  await writePrivateFile(file, bytes);
  const names = (await readdir(dir)).filter((entry) => /^\d{4}-.*\.(png|jpeg|webp|pdf)$/.test(entry)).sort();
  for (const old of names.slice(0, Math.max(0, names.length - KEPT_CAPTURES))) {
    await rm(path.join(dir, old), { force: true });
  }
  return file;
}
