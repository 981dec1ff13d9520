import { SYNTHETIC_ORIGIN } from '../browser/page-params.js';
import type { AnalyzeParams } from '../engines/analyze/params.js';
import type { CaptureParams } from '../engines/capture/params.js';
import type { ContentParams } from '../engines/content/params.js';
import type { CrawlerParams, CrawlerResult } from '../engines/crawler/crawler.js';
import type { ExtractParams } from '../engines/extract/extract.js';
import type { MapParams } from '../engines/map/params.js';
import { analyzeCall } from './analyze.js';
import type { CachedOutcome } from './cached-call.js';
import { type CaptureOutcome, captureCall, checkCapture } from './capture.js';
import { contentCall } from './content.js';
import { checkCrawler, crawlerBody, crawlerCall } from './crawler.js';
import type { Delivery } from './delivery.js';
import { type CallDeps, checkPage } from './deps.js';
import { extractCall } from './extract.js';
import { enveloped, type JsonOutcome, succeeded } from './json-result.js';
import { checkMap, mapCall } from './map.js';
import type { Caller } from './metering.js';

type Cache = { readonly ttlSeconds: number } | null;

/** What each engine's call carries besides its name. Every member is plain JSON. */
interface CallSpecs {
  readonly capture: { readonly params: CaptureParams; readonly delivery: Delivery };
  /** `baseUrl`: where the images of screenshot steps are linked from, as a capture's delivery has it. */
  readonly content: { readonly params: ContentParams; readonly cache: Cache; readonly baseUrl: string };
  readonly analyze: { readonly params: AnalyzeParams; readonly cache: Cache };
  readonly extract: { readonly params: ExtractParams; readonly cache: Cache };
  readonly 'website-crawler': { readonly params: CrawlerParams; readonly pageSource: boolean };
  readonly map: { readonly params: MapParams; readonly cache: Cache };
}

/** The engines a billable call runs on. */
export type Engine = keyof CallSpecs;

/** A billable call described as data, whichever way it is answered: at once, or later as a job. */
export type CallSpec<E extends Engine = Engine> = {
  [K in E]: { readonly engine: K } & CallSpecs[K];
}[E];

/** A call as a job stores it: its result is JSON, so a capture's delivery is (an image cannot be a job's result). */
export type JobSpec =
  | CallSpec<Exclude<Engine, 'capture'>>
  | {
      readonly engine: 'capture';
      readonly params: CaptureParams;
      readonly delivery: Delivery & { readonly responseType: 'json' | 'base64' };
    };

/** The page a call is about, as the request log records it; null for a caller's own page without base_url. */
export function targetOf(spec: CallSpec | JobSpec): string | null {
  const { url } = spec.params;
  return url === SYNTHETIC_ORIGIN ? null : url;
}

/** The call to run as a job: a capture answered as an image becomes its hosted link (DESIGN.md §2). */
export function asJob(spec: CallSpec): JobSpec {
  if (spec.engine !== 'capture') return spec;
  const responseType = spec.delivery.responseType === 'base64' ? 'base64' : 'json';
  return { ...spec, delivery: { ...spec.delivery, responseType } };
}

/** What each engine's call produced; its transport shapes the answer. */
interface CallOutcomes {
  readonly capture: { readonly outcome: CaptureOutcome };
  readonly content: { readonly outcome: JsonOutcome };
  readonly analyze: { readonly outcome: JsonOutcome };
  /** `{data, warnings?}` as JSON: `success` is added in front, not an envelope around it. */
  readonly extract: { readonly outcome: JsonOutcome };
  readonly 'website-crawler': {
    /** The crawler keeps no cache: `cache` is always null. */
    readonly outcome: CachedOutcome<CrawlerResult>;
    readonly pageSource: boolean;
  };
  /** The whole body of POST /v1/map as JSON (no envelope). */
  readonly map: { readonly outcome: JsonOutcome };
}

/** What a call on engine E produced. */
export type CallOutcome<E extends Engine = Engine> = {
  [K in E]: { readonly engine: K } & CallOutcomes[K];
}[E];

/** Refuses what the call cannot run with, before anything is reserved: the checks its synchronous form makes first. */
export async function checkCall(deps: CallDeps, spec: CallSpec): Promise<void> {
  switch (spec.engine) {
    case 'capture':
      return checkCapture(deps, spec.params, spec.delivery);
    case 'content':
    case 'analyze':
    case 'extract':
      return checkPage(deps, spec.params);
    case 'website-crawler':
      return checkCrawler(deps, spec.params);
    case 'map':
      return checkMap(deps, spec.params);
  }
}

type Run<E extends Engine> = (deps: CallDeps, caller: Caller, spec: CallSpec<E>) => Promise<CallOutcome<E>>;

/** Each engine's path (checks, cache, metering, engine, delivery). */
const RUN: { readonly [E in Engine]: Run<E> } = {
  capture: async (deps, caller, spec) => ({
    engine: 'capture',
    outcome: await captureCall(deps, caller, spec.params, spec.delivery),
  }),
  content: async (deps, caller, spec) => ({
    engine: 'content',
    outcome: await contentCall(deps, caller, spec.params, spec.cache, spec.baseUrl),
  }),
  analyze: async (deps, caller, spec) => ({
    engine: 'analyze',
    outcome: await analyzeCall(deps, caller, spec.params, spec.cache),
  }),
  extract: async (deps, caller, spec) => ({
    engine: 'extract',
    outcome: await extractCall(deps, caller, spec.params, spec.cache),
  }),
  'website-crawler': async (deps, caller, spec) => ({
    engine: 'website-crawler',
    outcome: { ...(await crawlerCall(deps, caller, spec.params)), cache: null },
    pageSource: spec.pageSource,
  }),
  map: async (deps, caller, spec) => ({
    engine: 'map',
    outcome: await mapCall(deps, caller, spec.params, spec.cache),
  }),
};

/** Runs the call through its one path; the outcome is the spec's engine's, known to the caller's types. */
export function performCall<E extends Engine>(
  deps: CallDeps,
  caller: Caller,
  spec: CallSpec<E>,
): Promise<CallOutcome<E>> {
  const run: Run<E> = RUN[spec.engine];
  return run(deps, caller, spec);
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
    case 'extract':
      return succeeded(done.outcome.value);
    case 'website-crawler':
      return Buffer.from(JSON.stringify(crawlerBody(done.outcome.value, done.pageSource)));
    case 'map':
      return done.outcome.value;
  }
}
