import type { AnalyzeParams } from '../engines/analyze/params.js';
import type { CaptureParams } from '../engines/capture/params.js';
import type { ContentParams } from '../engines/content/params.js';
import type { CrawlParams, CrawlResult } from '../engines/crawler/crawl.js';
import { analyzeCall } from './analyze.js';
import type { CachedOutcome } from './cached-call.js';
import { type CaptureOutcome, captureCall, checkCapture, type Delivery } from './capture.js';
import { contentCall } from './content.js';
import { checkCrawl, crawlCall, crawlerBody } from './crawl.js';
import { type CallDeps, checkPage } from './deps.js';
import { enveloped, type JsonOutcome } from './json-result.js';
import type { Caller } from './metering.js';

type Cache = { readonly ttlSeconds: number } | null;

/** A billable call described as data, whichever way it is answered: at once, or later as a job. Every member is plain JSON. */
export type CallSpec =
  | { readonly engine: 'capture'; readonly params: CaptureParams; readonly delivery: Delivery }
  | { readonly engine: 'content'; readonly params: ContentParams; readonly cache: Cache }
  | { readonly engine: 'analyze'; readonly params: AnalyzeParams; readonly cache: Cache }
  | { readonly engine: 'website-crawler'; readonly params: CrawlParams; readonly pageSource: boolean };

/** A call as a job stores it: its result is JSON, so a capture's delivery is (an image cannot be a job's result). */
export type JobSpec =
  | Exclude<CallSpec, { readonly engine: 'capture' }>
  | {
      readonly engine: 'capture';
      readonly params: CaptureParams;
      readonly delivery: Delivery & { readonly responseType: 'json' | 'base64' };
    };

/** The call to run as a job: a capture answered as an image becomes its hosted link (DESIGN.md §2). */
export function asJob(spec: CallSpec): JobSpec {
  if (spec.engine !== 'capture') return spec;
  const responseType = spec.delivery.responseType === 'base64' ? 'base64' : 'json';
  return { ...spec, delivery: { ...spec.delivery, responseType } };
}

/** What a call produced, by engine; its transport shapes the answer. */
export type CallOutcome =
  | { readonly engine: 'capture'; readonly outcome: CaptureOutcome }
  | { readonly engine: 'content' | 'analyze'; readonly outcome: JsonOutcome }
  | {
      readonly engine: 'website-crawler';
      /** The crawler keeps no cache: `cache` is always null. */
      readonly outcome: CachedOutcome<CrawlResult>;
      readonly pageSource: boolean;
    };

/** Refuses what the call cannot run with, before anything is reserved: the checks its synchronous form makes first. */
export async function checkCall(deps: CallDeps, spec: CallSpec): Promise<void> {
  switch (spec.engine) {
    case 'capture':
      return checkCapture(deps, spec.params, spec.delivery);
    case 'content':
    case 'analyze':
      return checkPage(deps, spec.params);
    case 'website-crawler':
      return checkCrawl(deps, spec.params);
  }
}

/** Runs the call through its one path (checks, cache, metering, engine, delivery). */
export async function performCall(deps: CallDeps, caller: Caller, spec: CallSpec): Promise<CallOutcome> {
  switch (spec.engine) {
    case 'capture':
      return { engine: 'capture', outcome: await captureCall(deps, caller, spec.params, spec.delivery) };
    case 'content':
      return { engine: 'content', outcome: await contentCall(deps, caller, spec.params, spec.cache) };
    case 'analyze':
      return { engine: 'analyze', outcome: await analyzeCall(deps, caller, spec.params, spec.cache) };
    case 'website-crawler':
      return {
        engine: 'website-crawler',
        outcome: { ...(await crawlCall(deps, caller, spec.params)), cache: null },
        pageSource: spec.pageSource,
      };
  }
}

/**
 * Runs a job's call and returns the body its synchronous form answers, as JSON. The crawler's
 * page source, which its synchronous form sends as text/html, is `data.html` here.
 */
export async function runCall(deps: CallDeps, caller: Caller, spec: JobSpec): Promise<Buffer> {
  const done = await performCall(deps, caller, spec);
  switch (done.engine) {
    case 'capture':
      return Buffer.from(JSON.stringify(done.outcome.value.body));
    case 'content':
    case 'analyze':
      return enveloped(done.outcome.value);
    case 'website-crawler':
      return Buffer.from(JSON.stringify(crawlerBody(done.outcome.value, done.pageSource)));
  }
}
