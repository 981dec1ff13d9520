export {
  type AnalyzeResult,
  type CallOptions,
  type ContentResult,
  type CrawlReadOptions,
  type CrawlWaitOptions,
  type ExtractResult,
  type MapResult,
  type SubmitOptions,
  type WaitOptions,
  Webcap,
  WebcapCrawls,
  WebcapJobs,
  WebcapLegacy,
  type WebcapOptions,
} from './client.js';
export { parseRetryAfter, WebcapError, type WebcapErrorKind } from './errors.js';
export type { FromSchema, JsonSchema, JsonTypeName } from './json-schema.js';
export type { paths } from './openapi.js';
export {
  canonicalQuery,
  rfc3986,
  type SignedEndpoint,
  type SignedParamValue,
  type SignUrlInput,
  signUrl,
} from './signed-links.js';
export type * from './types.js';
export { checkWebhook, type VerifyWebhookInput, verifyWebhook, type WebhookVerdict } from './webhook.js';
