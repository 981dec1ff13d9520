import type { IncomingHttpHeaders } from 'node:http';
import { Agent, buildConnector, errors as undiciErrors } from 'undici';
import { WebcapError } from '../errors.js';
import type { NetworkPolicy } from './address-policy.js';
import { unreachable } from './net-error.js';
import type { Guard } from './pinned-connect.js';
import { ACCEPTED_ENCODINGS, discard, readCappedBody, tooLarge } from './read-body.js';
import { pinnedLookup, type Resolver, resolvePinned, systemResolver } from './resolve.js';
import { parseTargetUrl, redirectTarget } from './target-url.js';
import {
  connectToUpstream,
  proxyAuthorization,
  tunnelThrough,
  type UpstreamProxy,
} from './upstream-proxy.js';

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
  /**
   * The caller's proxy (the `proxy` parameter): every connection of the fetch goes through it, as
   * the browser's do. Its own host is resolved, checked and pinned on each connection; a target
   * that is an IP literal is still checked here, a name is resolved over there (egress-proxy.ts).
   */
  readonly proxy?: UpstreamProxy | null;
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

/** Whether a request for a `protocol` URL goes to an http(s) upstream as is, in absolute form, rather than through a tunnel. */
function absoluteForm(upstream: UpstreamProxy, protocol: string): boolean {
  return protocol === 'http:' && upstream.protocol !== 'socks5:';
}

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
  private readonly guard: Guard;

  constructor(private readonly options: GuardedFetchOptions) {
    this.maxRedirects = options.maxRedirects ?? 10;
    const resolver = options.resolver ?? systemResolver;
    this.guard = { policy: options.policy, resolver };
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
    const { signal, proxy } = options;
    // Through a caller's proxy, connections are the fetch's own and end with it.
    const agent = proxy == null ? this.agent : this.upstreamAgent(proxy);
    try {
      options.signal?.throwIfAborted();
      const stop = signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, signal]);
      return await this.follow(first.url, options, stop, agent);
    } catch (error) {
      if (signal?.aborted && !deadline.signal.aborted) throw signal.reason;
      throw this.translate(error, deadline.signal);
    } finally {
      clearTimeout(timer);
      if (agent !== this.agent) await agent.destroy();
    }
  }

  /** Closes every pooled connection; fetches still running fail. */
  async close(): Promise<void> {
    await this.agent.destroy();
  }

  /**
   * An agent whose connections go through `upstream`: https targets (and any target through a
   * SOCKS5 proxy) in a tunnel, TLS to the target inside it; plain http through an http(s) proxy
   * to the proxy itself, the request sent in absolute form (follow), as the egress proxy does.
   */
  private upstreamAgent(upstream: UpstreamProxy): Agent {
    const timeoutMs = this.options.headersTimeoutMs;
    const tlsInTunnel = buildConnector({ timeout: timeoutMs });
    return new Agent({
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: (connectOptions, callback) => {
        const { hostname, protocol } = connectOptions;
        const port = Number(connectOptions.port) || (protocol === 'https:' ? 443 : 80);
        const fail = (error: Error) => callback(error, null);
        if (absoluteForm(upstream, protocol)) {
          connectToUpstream(upstream, this.guard, timeoutMs).then((socket) => callback(null, socket), fail);
          return;
        }
        const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
        tunnelThrough(upstream, host, port, this.guard, timeoutMs).then((socket) => {
          if (protocol === 'https:') tlsInTunnel({ ...connectOptions, httpSocket: socket }, callback);
          else callback(null, socket);
        }, fail);
      },
    });
  }

  private async follow(
    start: URL,
    options: FetchOptions,
    signal: AbortSignal,
    agent: Agent,
  ): Promise<FetchResult> {
    const redirects: RedirectHop[] = [];
    let current = start;
    const { proxy } = options;
    const authorization = proxy == null ? null : proxyAuthorization(proxy);
    for (;;) {
      const { post } = options;
      const viaProxy = proxy != null && absoluteForm(proxy, current.protocol);
      const path = `${current.pathname}${current.search}`;
      const response = await agent.request({
        origin: current.origin,
        path: viaProxy ? `${current.origin}${path}` : path,
        method: post === undefined ? 'GET' : 'POST',
        headers: {
          accept: '*/*',
          ...options.headers,
          'accept-encoding': ACCEPTED_ENCODINGS,
          ...(post === undefined ? {} : { 'content-type': post.contentType }),
          ...(viaProxy && authorization !== null ? { 'proxy-authorization': authorization } : {}),
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
