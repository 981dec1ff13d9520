/**
 * The one error type of the service. Engines, billing and stores throw it with a code from a
 * closed set and no HTTP status; the catalogue below gives each code its status and message, and
 * `http/errors.ts` sends them.
 */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_key'
  | 'unauthorized'
  | 'rate_limited'
  | 'insufficient_credits'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'cancelled'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'headers_too_large'
  | 'request_timeout'
  | 'target_unreachable'
  | 'blocked'
  | 'timeout'
  | 'unavailable'
  | 'model_failed'
  | 'internal';

/** The limit a rate-limited call met; the HTTP layer sends it as X-RateLimit-*. */
export interface RateLimitState {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window frees a call. */
  readonly resetSeconds: number;
}

export interface ErrorOptions {
  /** Seconds after which a retry may succeed; sent as Retry-After. */
  readonly retryAfterSeconds?: number;
  readonly rateLimit?: RateLimitState;
  /** The methods the path takes, when the one used is refused; sent as Allow. */
  readonly allow?: string;
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

/** Status and the spec's message for each error code (spec "Errors", DESIGN.md §2). */
export const ERROR_CATALOGUE: Readonly<
  Record<ErrorCode, { readonly status: number; readonly message: string }>
> = {
  bad_request: { status: 400, message: 'Bad Request' },
  invalid_key: { status: 401, message: 'Invalid API Key' },
  /** The console: no session, or a sign-in refused (docs/console.md). */
  unauthorized: { status: 401, message: 'Unauthorized' },
  rate_limited: { status: 401, message: 'Rate limit exceeded for the API key' },
  insufficient_credits: { status: 402, message: 'Insufficient credits' },
  forbidden: { status: 403, message: 'Forbidden' },
  not_found: { status: 404, message: 'Not Found' },
  method_not_allowed: { status: 405, message: 'Method Not Allowed' },
  conflict: { status: 409, message: 'Conflict' },
  cancelled: { status: 409, message: 'Cancelled' },
  payload_too_large: { status: 413, message: 'Payload Too Large' },
  uri_too_long: { status: 414, message: 'URI Too Long' },
  headers_too_large: { status: 431, message: 'Request Header Fields Too Large' },
  request_timeout: { status: 408, message: 'Request Timeout' },
  target_unreachable: { status: 400, message: 'Bad Request: page could not be loaded' },
  blocked: { status: 400, message: 'Bad Request: blocked by the network policy' },
  timeout: { status: 500, message: 'Internal Error: timeout' },
  unavailable: { status: 503, message: 'Service Unavailable' },
  /** The operator's model answered, but not what was asked (an extraction outside its schema after a repair round). */
  model_failed: { status: 502, message: 'Bad Gateway' },
  internal: { status: 500, message: 'Internal Error' },
};

export interface ErrorResponse {
  readonly status: number;
  readonly body: { readonly error: string };
}

/** The status and `{"error"}` body of a WebcapError, from the catalogue. */
export function errorResponse(error: WebcapError): ErrorResponse {
  const { status, message } = ERROR_CATALOGUE[error.code];
  // target_unreachable reads "page could not be loaded (<net error>)"; the others append ": detail".
  const text =
    error.detail === undefined
      ? message
      : error.code === 'target_unreachable'
        ? `${message} (${error.detail})`
        : `${message}: ${error.detail}`;
  return { status, body: { error: text } };
}
