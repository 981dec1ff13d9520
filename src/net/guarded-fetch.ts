import type { IncomingHttpHeaders } from 'node:http';
import { Agent, buildConnector, errors as undiciErrors } from 'undici';
import { WebcapError } from '../errors.js';
import type { NetworkPolicy } from './address-policy.js';
import { unreachable } from './net-error.js';
import { ACCEPTED_ENCODINGS, discard, readCappedBody, tooLarge } from './read-body.js';
import { pinnedLookup, type Resolver, resolvePinned, systemResolver } from './resolve.js';
import { parseTargetUrl, redirectTarget } from './target-url.js';

export interface GuardedFetchOptions {
  readonly policy: NetworkPolicy;
  readonly resolver?: Resolver;
  /** Largest body accepted, on the wire and after decoding (FETCH_MAX_BYTES). */
  readonly maxBytes: number;
  /** Longest wait to connect and for response headers, per hop (FETCH_HEADERS_TIMEOUT_MS). */
  readonly headersTimeoutMs: number;
  /** Deadline of the whole fetch, every redirect and the body included (FETCH_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Redirects followed before giving up; 10 by default, like the crawler contract. */
  readonly maxRedirects?: number;
}

export interface FetchOptions {
  /** false returns the first response as it is, a redirect included. Default true. */
  readonly followRedirects?: boolean;
  /** Extra request headers (user agent, accept); Accept-Encoding is always ours. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Ends the fetch, its connection included, when it aborts; the fetch then rejects with its reason. */
  readonly signal?: AbortSignal;
  /** Sends this body with POST instead of a GET; a redirect is then returned, never followed. */
  readonly post?: { readonly body: Buffer; readonly contentType: string };
}

export interface RedirectHop {
  readonly url: string;
  readonly status: number;
}

export interface FetchResult {
  /** The URL asked for, normalized. */
  readonly url: string;
  /** The URL that gave the returned response, after redirects. */
  readonly finalUrl: string;
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", " as the Fetch API does. */
  readonly headers: Readonly<Record<string, string>>;
  /** Each redirect followed, in order: the URL that answered and its status. */
  readonly redirects: readonly RedirectHop[];
  /** Decoded (Content-Encoding undone). */
  readonly body: Buffer;
  readonly contentType: string | null;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function findWebcapError(error: unknown): WebcapError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof WebcapError) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * Server-side HTTP(S) fetches for the crawler, sitemaps, robots.txt and favicons, inside the network
 * guard: every connection (each redirect hop too) goes to an address resolved once and checked by
 * the policy, redirects are followed by hand with the same checks, and size and time are bounded.
 */
export class GuardedFetcher {
  private readonly agent: Agent;
  private readonly maxRedirects: number;

  constructor(private readonly options: GuardedFetchOptions) {
    this.maxRedirects = options.maxRedirects ?? 10;
    const resolver = options.resolver ?? systemResolver;
    this.agent = new Agent({
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.headersTimeoutMs,
      // Every new connection resolves its host once, checks each address, and connects only to those.
      connect: (connectOptions, callback) => {
        const { hostname, protocol } = connectOptions;
        const port = Number(connectOptions.port) || (protocol === 'https:' ? 443 : 80);
        resolvePinned(hostname, port, options.policy, resolver).then(
          (addresses) => {
            const connector = buildConnector({
              timeout: options.headersTimeoutMs,
              lookup: pinnedLookup(hostname, addresses),
            });
            connector(connectOptions, callback);
          },
          (error: Error) => callback(error, null),
        );
      },
    });
  }

  /**
   * GETs an http(s) URL. Throws WebcapError: 'bad_request' for a URL that is not http(s) or a body
   * over maxBytes, 'blocked' for a refused address (any hop), 'target_unreachable' for network
   * errors and redirect loops, 'timeout' past the deadline. A 4xx/5xx answer is a result, not an error.
   */
  async fetch(url: string | URL, options: FetchOptions = {}): Promise<FetchResult> {
    const first = parseTargetUrl(String(url), this.options.policy);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.options.timeoutMs);
    const { signal } = options;
    try {
      options.signal?.throwIfAborted();
      const stop = signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, signal]);
      return await this.follow(first.url, options, stop);
    } catch (error) {
      if (signal?.aborted && !deadline.signal.aborted) throw signal.reason;
      throw this.translate(error, deadline.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes every pooled connection; fetches still running fail. */
  async close(): Promise<void> {
    await this.agent.destroy();
  }

  private async follow(start: URL, options: FetchOptions, signal: AbortSignal): Promise<FetchResult> {
    const redirects: RedirectHop[] = [];
    let current = start;
    for (;;) {
      const { post } = options;
      const response = await this.agent.request({
        origin: current.origin,
        path: `${current.pathname}${current.search}`,
        method: post === undefined ? 'GET' : 'POST',
        headers: {
          accept: '*/*',
          ...options.headers,
          'accept-encoding': ACCEPTED_ENCODINGS,
          ...(post === undefined ? {} : { 'content-type': post.contentType }),
        },
        body: post?.body,
        signal,
      });
      const location = response.headers.location;
      if (
        options.followRedirects !== false &&
        post === undefined &&
        REDIRECT_STATUSES.has(response.statusCode) &&
        typeof location === 'string'
      ) {
        discard(response.body);
        redirects.push({ url: current.href, status: response.statusCode });
        if (redirects.length > this.maxRedirects) {
          throw new WebcapError('target_unreachable', `too many redirects (more than ${this.maxRedirects})`);
        }
        current = redirectTarget(location, current, this.options.policy).url;
        continue;
      }
      const headers = flatHeaders(response.headers);
      const declared = Number(headers['content-length']);
      if (headers['content-encoding'] === undefined && declared > this.options.maxBytes) {
        discard(response.body);
        throw tooLarge(this.options.maxBytes, false);
      }
      const body = await readCappedBody(response.body, headers['content-encoding'], this.options.maxBytes);
      return {
        url: start.href,
        finalUrl: current.href,
        status: response.statusCode,
        headers,
        redirects,
        body,
        contentType: headers['content-type'] ?? null,
      };
    }
  }

  private translate(error: unknown, deadline: AbortSignal): WebcapError {
    const known = findWebcapError(error);
    if (known !== undefined) return known;
    if (deadline.aborted) {
      return new WebcapError('timeout', `the page did not load within ${this.options.timeoutMs} ms`, {
        cause: error,
      });
    }
    if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
      return new WebcapError('timeout', `the page sent nothing for ${this.options.headersTimeoutMs} ms`, {
        cause: error,
      });
    }
    return unreachable(error);
  }
}
