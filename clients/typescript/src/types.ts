import type { JsonSchema } from './json-schema.js';
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
  /** `image/png`, `image/jpeg`, `image/webp`, `image/avif`, `application/pdf`, `video/mp4`, `video/webm` or `image/gif`. */
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

/** One selector rule of `extract_rules`: a CSS selector (its text), or what to take from the elements it matches. */
export type ExtractRule =
  | string
  | {
      readonly selector: string;
      /** Default `text`; `object` with nested rules in `output`, `attribute` with `attribute`. */
      readonly type?: 'text' | 'html' | 'attribute' | 'list' | 'object' | 'item';
      readonly attribute?: string;
      /** Nested rules (matched inside each element), or ScrapingBee's `text`, `html`, `@attribute`. */
      readonly output?: 'text' | 'html' | `@${string}` | ExtractRules;
    };
/** `extract_rules`: each field of the answer and its rule. */
export interface ExtractRules {
  readonly [field: string]: ExtractRule;
}
/**
 * Parameters of `POST /v1/extract`: a JSON Schema of the answer (`schema`, with an optional
 * `prompt`) or selector rules (`extract_rules`), one of them.
 */
export type ExtractParams<S extends JsonSchema = JsonSchema> = Omit<
  JsonBody<'/v1/extract', 'post'>,
  AsyncFields | 'extract_rules' | 'schema' | 'prompt'
> &
  (
    | { readonly schema: S; readonly prompt?: string; readonly extract_rules?: never }
    | { readonly extract_rules: ExtractRules | string; readonly schema?: never; readonly prompt?: never }
  );
/** The answer of `/v1/extract` without `success`: the fields asked for, and the rules that matched nothing. */
export type ExtractData = Omit<Ok<'/v1/extract', 'post'>, 'success'>;

/*
 * The contract's single-page crawler (`/v1/website/crawler`: one page's raw response, no browser)
 * is `websiteCrawler` everywhere in the clients; `crawl` is the whole-site crawl (`/v1/crawl`).
 */

/** Parameters of `GET /v1/website/crawler`. */
export type WebsiteCrawlerParams = Omit<Query<'/v1/website/crawler', 'get'>, AsyncFields>;
/** The `data` of the website crawler's JSON answer. */
export type WebsiteCrawlerData = Ok<'/v1/website/crawler', 'get'>['data'];
/** The website crawler's JSON answer: about the response, without its body. */
export interface WebsiteCrawlerJson {
  readonly kind: 'json';
  readonly data: WebsiteCrawlerData;
}
/** The website crawler's answer with `return_page_source`: the page source itself. */
export interface WebsiteCrawlerSource {
  readonly kind: 'html';
  readonly html: string;
  /** The target's HTTP status (`x-webcap-target-status`). */
  readonly targetStatus: number | null;
}
/** The website crawler's answer: JSON about the response, or the page source with `return_page_source`. */
export type WebsiteCrawlerResult = WebsiteCrawlerJson | WebsiteCrawlerSource;

/** Parameters of `POST /v1/crawl`: a whole-site crawl (its `webhook_url` receives the crawl's events). */
export type CrawlParams = Omit<JsonBody<'/v1/crawl', 'post'>, 'x_api_key'>;
/** The answer to `POST /v1/crawl` (HTTP 202): the crawl's id and where to read it. */
export type CrawlAccepted = paths['/v1/crawl']['post']['responses'][202]['content']['application/json'];
/** A crawl's record (`GET /v1/crawl/{crawl_id}`): status, counts, and one page of its finished pages. */
export type CrawlRecord = Ok<'/v1/crawl/{crawl_id}', 'get'>;
/** A crawl's status: `queued` and `running` are live; `completed`, `cancelled`, `failed` and `stopped` are ends. */
export type CrawlStatus = CrawlRecord['status'];
/** One finished page of a crawl: completed, failed or skipped, with the formats the crawl kept. */
export type CrawlPage = CrawlRecord['pages'][number];

/** Parameters of `POST /v1/map`. */
export type MapParams = Omit<JsonBody<'/v1/map', 'post'>, AsyncFields>;
/** The map's answer: the site's URLs (`links`), how many matched (`total`), whether `limit` cut them. */
export type MapBody = Ok<'/v1/map', 'post'>;

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
  extract: ExtractParams;
  'website-crawler': WebsiteCrawlerParams;
  map: MapParams;
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
