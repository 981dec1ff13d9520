/**
 * The one error type of the service. Engines, billing and stores throw it with a code from a
 * closed set and no HTTP status; `http/errors.ts` maps codes to statuses and bodies.
 */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_key'
  | 'rate_limited'
  | 'insufficient_credits'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'headers_too_large'
  | 'request_timeout'
  | 'target_unreachable'
  | 'blocked'
  | 'timeout'
  | 'unavailable'
  | 'internal';

export interface ErrorOptions {
  /** Seconds after which a retry may succeed; sent as Retry-After. */
  readonly retryAfterSeconds?: number;
  /** Extra response headers, such as X-RateLimit-*. */
  readonly headers?: Readonly<Record<string, string | number>>;
  readonly cause?: unknown;
}

export class WebcapError extends Error {
  constructor(
    readonly code: ErrorCode,
    /** Safe to show the caller: it follows the spec's message after ': '. */
    readonly detail: string | undefined = undefined,
    readonly options: ErrorOptions = {},
  ) {
    super(detail === undefined ? code : `${code}: ${detail}`, { cause: options.cause });
    this.name = 'WebcapError';
  }
}

/** A caller's parameter that is missing or wrong; the message names it. */
export function invalidParam(param: string, why: string): WebcapError {
  return new WebcapError('bad_request', `${param} ${why}`);
}
