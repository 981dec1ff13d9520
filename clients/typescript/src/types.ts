import type { paths } from './openapi.js';

/*
 * The SDK's public types, read from the generated OpenAPI types (openapi.ts) so that they follow
 * the document the service serves; only what the document cannot say is written here.
 */

type Query<P extends keyof paths, M extends 'get' | 'delete'> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;
type JsonBody<P extends keyof paths, M extends 'post'> = paths[P][M] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;
type Ok<P extends keyof paths, M extends 'get' | 'post' | 'delete'> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer R } } };
}
  ? R
  : never;

/**
 * How an asynchronous submission is asked for (the SDK's `jobs.submit` sets these itself), and
 * how a call is authenticated: the client's key, or a signed link's fields (`signUrl`).
 */
type AsyncFields =
  | 'is_async'
  | 'webhook_url'
  | 'x_api_key'
  | 'access_key'
  | 'key_id'
  | 'expires'
  | 'signature';
/** The named fields of a type whose schema also allows `[key: string]: string` (custom fields). */
type Named<T> = T extends infer A & { [key: string]: string } ? A : T;

/** Whether the result cache served the call (`x-webcap-cache`): null when `cache` was not asked for. */
export type CacheState = 'hit' | 'miss' | null;

/** Parameters of `GET /v1/capture`. */
export type CaptureParams = Omit<Query<'/v1/capture', 'get'>, AsyncFields>;
/** The JSON answer of a capture (`response_type=json|base64`, or `s3_url=true`). */
export type CaptureJson = Ok<'/v1/capture', 'get'>;
/** A capture answered as the file itself. */
export interface CaptureFile {
  readonly kind: 'file';
  readonly bytes: Uint8Array;
  /** `image/png`, `image/jpeg`, `image/webp` or `application/pdf`. */
  readonly contentType: string;
  readonly cache: CacheState;
  /** Set when the page was captured before it finished loading (`x-webcap-warning`). */
  readonly warnings: readonly string[];
}
/** A capture answered as JSON (`response_type=json|base64`, or `s3_url=true`). */
export interface CaptureJsonResult {
  readonly kind: 'json';
  readonly data: CaptureJson;
  readonly cache: CacheState;
}
/** A capture: the file itself, or its JSON description when the parameters ask for JSON. */
export type CaptureResult = CaptureFile | CaptureJsonResult;

/** Parameters of `GET /v1/content`. */
export type ContentParams = Omit<Query<'/v1/content', 'get'>, AsyncFields>;
/** The `data` of a content answer. */
export type ContentData = Ok<'/v1/content', 'get'>['data'];

/** Parameters of `POST /v1/analyze`; `custom_response` maps each extra field's name to its meaning. */
export type AnalyzeParams<Field extends string = never> = Omit<
  JsonBody<'/v1/analyze', 'post'>,
  AsyncFields | 'custom_response'
> & { custom_response?: { readonly [K in Field]: string } };
/** The fields every analysis has. */
export type AnalysisData = Named<Ok<'/v1/analyze', 'post'>['data']>;
/** An analysis with the custom fields asked for, each a string (empty when the page does not say). */
export type Analysis<Field extends string = never> = AnalysisData & { readonly [K in Field]: string };

/** Parameters of `GET /v1/website/crawler`. */
export type CrawlParams = Omit<Query<'/v1/website/crawler', 'get'>, AsyncFields>;
/** The `data` of the crawler's JSON answer. */
export type CrawlData = Ok<'/v1/website/crawler', 'get'>['data'];
/** The crawler's JSON answer: about the response, without its body. */
export interface CrawlJson {
  readonly kind: 'json';
  readonly data: CrawlData;
}
/** The crawler's answer with `return_page_source`: the page source itself. */
export interface CrawlSource {
  readonly kind: 'html';
  readonly html: string;
  /** The target's HTTP status (`x-webcap-target-status`). */
  readonly targetStatus: number | null;
}
/** The crawler's answer: JSON about the response, or the page source with `return_page_source`. */
export type CrawlResult = CrawlJson | CrawlSource;

/** The account's usage record (`GET /v1/usage`). */
export type Usage = Ok<'/v1/usage', 'get'>;
/** Parameters of `GET /v1/stats`: an engine, a path, or both. */
export type StatsParams = Query<'/v1/stats', 'get'>;
/** The one-hour health snapshot (`GET /v1/stats`). */
export type StatsSnapshot = Ok<'/v1/stats', 'get'>;

/** A job's record (`GET /jobs/{job_id}`). `status` is `queued`, `running`, `completed` or `failed`. */
export type JobRecord = Ok<'/jobs/{job_id}', 'get'>;
/** A job's status. A cancelled job is `failed` with `error.status` 409. */
export type JobStatus = JobRecord['status'];
/** The answer to an asynchronous submission (HTTP 202). */
export type JobAccepted = paths['/v1/capture']['get']['responses'][202]['content']['application/json'] & {
  /** True when an earlier submission with the same Idempotency-Key is answered (`Idempotent-Replayed`). */
  readonly replayed: boolean;
};
/** What each kind of job takes. */
export interface JobParams {
  capture: CaptureParams;
  content: ContentParams;
  analyze: AnalyzeParams<string>;
  crawl: CrawlParams;
}
export type JobKind = keyof JobParams;

/** Parameters of the unversioned `GET /capture` (image_quality a number, wait_until one string). */
export type LegacyCaptureParams = Omit<Query<'/capture', 'get'>, AsyncFields>;
/** Parameters of the unversioned `GET /content` (with viewport and cookie-banner options). */
export type LegacyContentParams = Omit<Query<'/content', 'get'>, AsyncFields>;
/** Parameters of the unversioned `POST /analyze`. */
export type LegacyAnalyzeParams<Field extends string = never> = Omit<
  JsonBody<'/analyze', 'post'>,
  AsyncFields | 'custom_response'
> & { custom_response?: { readonly [K in Field]: string } };
