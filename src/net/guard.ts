import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Config } from '../config.js';
import { WebcapError } from '../errors.js';
import { NetworkPolicy } from './address-policy.js';
import { EgressProxy } from './egress-proxy.js';
import { GuardedFetcher } from './guarded-fetch.js';
import { connectPinned, type Guard } from './pinned-connect.js';
import { type Resolver, resolvePinned, systemResolver } from './resolve.js';
import { parseTargetUrl } from './target-url.js';
import type { UpstreamProxy } from './upstream-proxy.js';

type Oncreate = (error: Error | null, socket?: Socket) => void;

/**
 * node:http agents whose every connection goes to a policy-checked, pinned address, IP-literal
 * hosts included (Node skips an agent's `lookup` for those, so the check lives in createConnection).
 */
function guardedAgents(guard: Guard, timeoutMs: number) {
  const connect =
    (tls: boolean) =>
    (options: { host?: string | null; port?: number | string | null }, oncreate: Oncreate) => {
      const host = options.host ?? 'localhost';
      const port = Number(options.port) || (tls ? 443 : 80);
      connectPinned(host, port, guard, { tls, timeoutMs }).then(
        (socket) => oncreate(null, socket),
        (error: Error) => oncreate(error),
      );
      return undefined;
    };
  const httpAgent = new http.Agent({ keepAlive: true });
  const httpsAgent = new https.Agent({ keepAlive: true });
  Object.assign(httpAgent, { createConnection: connect(false) });
  Object.assign(httpsAgent, { createConnection: connect(true) });
  return { httpAgent, httpsAgent };
}

/**
 * The one network guard of a process: the policy, the egress proxy Chromium leaves through, the
 * fetcher for server-side requests and agents for SDKs that connect themselves (S3 uploads).
 */
export class NetworkGuard {
  readonly agents: { readonly httpAgent: http.Agent; readonly httpsAgent: https.Agent };

  private constructor(
    private readonly policy: NetworkPolicy,
    private readonly resolver: Resolver,
    readonly proxy: EgressProxy,
    readonly fetcher: GuardedFetcher,
    connectTimeoutMs: number,
  ) {
    this.agents = guardedAgents({ policy, resolver }, connectTimeoutMs);
  }

  static async start(config: Config, resolver: Resolver = systemResolver): Promise<NetworkGuard> {
    const policy = new NetworkPolicy(config.allowPrivate);
    const proxy = await EgressProxy.start({
      policy,
      resolver,
      connectTimeoutMs: config.fetchHeadersTimeoutMs,
    });
    const fetcher = new GuardedFetcher({
      policy,
      resolver,
      maxBytes: config.fetchMaxBytes,
      headersTimeoutMs: config.fetchHeadersTimeoutMs,
      timeoutMs: config.fetchTimeoutMs,
    });
    return new NetworkGuard(policy, resolver, proxy, fetcher, config.fetchHeadersTimeoutMs);
  }

  /**
   * Checks a caller's URL before any work or billing: http(s) only (else 400 naming `param`), and
   * its host, resolved once, must pass the policy ('blocked'). A page URL (`url`, `query`) whose
   * host does not resolve is 'target_unreachable'; any other URL's is a 'bad_request' naming
   * `param`. The proxy and the fetcher check again on every connection and redirect.
   */
  async checkTarget(raw: string, param: string): Promise<void> {
    try {
      const target = parseTargetUrl(raw, this.policy, param);
      if (!target.ipLiteral) await resolvePinned(target.host, target.port, this.policy, this.resolver);
    } catch (error) {
      // The page's URL is the call's subject; any other URL a caller gives (a webhook, a storage
      // endpoint) is named in its refusal, and its host not resolving is that parameter's fault,
      // not a page that "could not be loaded".
      if (!(error instanceof WebcapError) || param === 'url' || param === 'query') throw error;
      if (error.code === 'blocked') {
        throw new WebcapError('blocked', `${param} ${error.detail}`, { cause: error });
      }
      if (error.code === 'target_unreachable') {
        throw new WebcapError(
          'bad_request',
          `${param} names a host that could not be resolved (${error.detail})`,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
  }

  /** A caller's proxy must itself be an allowed destination. */
  checkUpstream(upstream: UpstreamProxy): Promise<void> {
    return this.proxy.checkUpstream(upstream);
  }

  async close(): Promise<void> {
    this.agents.httpAgent.destroy();
    this.agents.httpsAgent.destroy();
    await Promise.all([this.proxy.stop(), this.fetcher.close()]);
  }
}
