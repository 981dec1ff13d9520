import { parseRetryAfter, WebcapError } from './errors.js';

/** When and how long a request is tried again. */
export interface RetryPolicy {
  /** Tries after the first; 0 turns retries off. */
  readonly retries: number;
  /** The first backoff's upper bound; each next one doubles (full jitter: a random wait up to it). */
  readonly baseDelayMs: number;
  /** The longest wait between tries: a Retry-After beyond it is not waited, the error is thrown. */
  readonly maxDelayMs: number;
}

/**
 * The statuses that say "try again": 500 (internal error or timeout) and 503 (busy). A 4xx is an
 * answer about the request, which the same request would get again, with one exception: a 409
 * with Retry-After to a request that carries an Idempotency-Key says that another request with
 * that key is being taken at that moment (the IETF draft's "concurrent request"), which its retry
 * resolves; a 409 about the key's other use comes without Retry-After.
 */
const RETRIED_STATUSES = new Set([500, 503]);

function retried(request: Request, response: Response): boolean {
  if (RETRIED_STATUSES.has(response.status)) return true;
  return (
    response.status === 409 && request.headers.has('idempotency-key') && response.headers.has('retry-after')
  );
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Full jitter (a random wait between 0 and the doubled bound) spreads the retries of many clients. */
function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
}

/**
 * A fetch that tries a request again on 500, 503, a submission's 409 "in use" and network errors, up to `policy.retries`
 * times, waiting Retry-After when the answer gives one (and at most `maxDelayMs`), else an
 * exponential backoff with full jitter. The last answer is returned as it came; a network failure
 * on the last try throws a WebcapError of kind `network`. The request's signal ends the waits too.
 */
export function retryingFetch(
  fetchImpl: (request: Request) => Promise<Response>,
  policy: RetryPolicy,
): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetchImpl(request.clone());
      } catch (error) {
        if (request.signal.aborted) throw request.signal.reason;
        if (attempt >= policy.retries) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new WebcapError(`network error: ${reason}`, { kind: 'network', cause: error });
        }
        await sleep(backoffMs(policy, attempt), request.signal);
        continue;
      }
      if (!retried(request, response) || attempt >= policy.retries) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const waitMs = retryAfter === null ? backoffMs(policy, attempt) : retryAfter * 1000;
      if (waitMs > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(waitMs, request.signal);
    }
  };
}
