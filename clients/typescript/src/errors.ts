/** What went wrong: the API answered an error, no answer came, or a wait ran out of time. */
export type WebcapErrorKind = 'http' | 'network' | 'timeout';

/**
 * The one error the SDK throws (besides an AbortSignal's own reason when the caller aborts).
 * `status` is the HTTP status, null when no answer came; `message` is the API's `error` text.
 */
export class WebcapError extends Error {
  override readonly name = 'WebcapError';
  readonly kind: WebcapErrorKind;
  /** The HTTP status; null for a network failure or a timeout. */
  readonly status: number | null;
  /** Seconds the API asked to wait before trying again (Retry-After), when it said so. */
  readonly retryAfter: number | null;
  /** The error body as the API sent it (parsed JSON, or text). */
  readonly body: unknown;

  constructor(
    message: string,
    options: {
      kind: WebcapErrorKind;
      status?: number | null;
      retryAfter?: number | null;
      body?: unknown;
      cause?: unknown;
    },
  ) {
    super(message, { cause: options.cause });
    this.kind = options.kind;
    this.status = options.status ?? null;
    this.retryAfter = options.retryAfter ?? null;
    this.body = options.body;
  }
}

/**
 * Retry-After in seconds (RFC 9110 §10.2.3: delay-seconds or an HTTP-date), null when absent or
 * unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** The WebcapError of an error response: the API's `error` message, its status and Retry-After. */
export function errorFromResponse(response: Response, body: unknown): WebcapError {
  const apiMessage =
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string'
      ? (body as { error: string }).error
      : typeof body === 'string' && body.length > 0
        ? body.slice(0, 500)
        : `HTTP ${response.status}`;
  return new WebcapError(apiMessage, {
    kind: 'http',
    status: response.status,
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
    body,
  });
}
