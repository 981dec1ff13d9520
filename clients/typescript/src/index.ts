export {
  type AnalyzeResult,
  type CallOptions,
  type ContentResult,
  type SubmitOptions,
  type WaitOptions,
  Webcap,
  WebcapJobs,
  WebcapLegacy,
  type WebcapOptions,
} from './client.js';
export { parseRetryAfter, WebcapError, type WebcapErrorKind } from './errors.js';
export type { paths } from './openapi.js';
export type * from './types.js';
export { checkWebhook, type VerifyWebhookInput, verifyWebhook, type WebhookVerdict } from './webhook.js';
