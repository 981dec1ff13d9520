import type { AnalyzeParams } from '../engines/analyze/params.js';
import type { CaptureParams } from '../engines/capture/params.js';
import type { ContentParams } from '../engines/content/params.js';
import type { CrawlParams } from '../engines/crawler/crawl.js';
import { analyzeCall } from './analyze.js';
import { captureCall, checkCapture, type Delivery } from './capture.js';
import { contentCall } from './content.js';
import { checkCrawl, crawlCall } from './crawl.js';
import { type CallDeps, checkPage } from './deps.js';
import { enveloped } from './json-result.js';
import type { Caller } from './metering.js';

type Cache = { readonly ttlSeconds: number } | null;

/**
 * A billable call described as data, so that it can be stored and run later (an async job). Every
 * member is plain JSON. A capture's delivery is always JSON (an image cannot be a job's result).
 */
export type CallSpec =
  | {
      readonly engine: 'capture';
      readonly params: CaptureParams;
      readonly delivery: Delivery & { readonly responseType: 'json' | 'base64' };
    }
  | { readonly engine: 'content'; readonly params: ContentParams; readonly cache: Cache }
  | { readonly engine: 'analyze'; readonly params: AnalyzeParams; readonly cache: Cache }
  | { readonly engine: 'website-crawler'; readonly params: CrawlParams; readonly pageSource: boolean };

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

/**
 * Runs the call through the same path as its synchronous form and returns the body that form
 * answers, as JSON. The crawler's page source, which its synchronous form sends as text/html, is
 * `data.html` here.
 */
export async function runCall(deps: CallDeps, caller: Caller, spec: CallSpec): Promise<Buffer> {
  switch (spec.engine) {
    case 'capture': {
      const { body } = await captureCall(deps, caller, spec.params, spec.delivery);
      return Buffer.from(JSON.stringify(body));
    }
    case 'content':
      return enveloped((await contentCall(deps, caller, spec.params, spec.cache)).data);
    case 'analyze':
      return enveloped((await analyzeCall(deps, caller, spec.params, spec.cache)).data);
    case 'website-crawler': {
      const { value } = await crawlCall(deps, caller, spec.params);
      const { html, ...data } = value;
      return Buffer.from(JSON.stringify({ success: true, data: spec.pageSource ? { ...data, html } : data }));
    }
  }
}
