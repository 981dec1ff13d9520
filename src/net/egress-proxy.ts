import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebcapError } from '../errors.js';
import { blockedError, type NetworkPolicy } from './address-policy.js';
import { describeNetworkError } from './net-error.js';
import { connectPinned, type Guard } from './pinned-connect.js';
import { type Resolver, resolvePinned, systemResolver } from './resolve.js';
import {
  connectToUpstream,
  proxyAuthorization,
  tunnelThrough,
  type UpstreamProxy,
} from './upstream-proxy.js';

export interface EgressProxyOptions {
  readonly policy: NetworkPolicy;
  readonly resolver?: Resolver;
  /** Longest wait to connect to a target or an upstream proxy; 10 s by default. */
  readonly connectTimeoutMs?: number;
}

/** One refused request: what was asked for and why it was refused. */
export interface Refusal {
  /** A URL for forwarded requests and upgrades, host:port for CONNECT tunnels. */
  readonly target: string;
  readonly reason: string;
}

/** What the proxy answered in a target's place: a refusal by the guard, or a target it could not reach. */
export interface ProxyAnswer {
  readonly kind: 'blocked' | 'unreachable';
  readonly reason: string;
}

export interface RouteStats {
  /** The latest refusals, oldest first (at most 50). */
  readonly refusals: readonly Refusal[];
}

/** One way out through the proxy, for one browser context: how it is selected and where it leads. */
export interface ProxyRoute {
  /** This route's own listener, `http://127.0.0.1:<port>`, for a context's proxyServer: no credentials needed. */
  readonly proxyServer: string;
  readonly stats: RouteStats;
  /**
   * Sends connections opened from now on direct (null) or through `upstream`, whose own host is
   * resolved, checked and pinned on each of them (EgressProxy.checkUpstream gives that answer early).
   */
  use(upstream: UpstreamProxy | null): void;
  /**
   * What the proxy answered itself for the plain request to `url` (a full URL) on this route,
   * among the latest 50 such answers; undefined when the answer, if any, was the target's own.
   */
  answerFor(url: string): ProxyAnswer | undefined;
  /** Closes the route's listener and cuts its connections. */
  close(): Promise<void>;
}

class Route implements ProxyRoute {
  /** The caller's proxy chained behind ours; null connects directly. */
  upstream: UpstreamProxy | null = null;
  readonly stats = { refusals: [] as Refusal[] };
  /** Client and outgoing sockets of this route, cut when it closes. */
  readonly sockets = new Set<Duplex>();
  /** Kept-alive connections of a direct route to its targets (EgressProxy.directAgent). */
  agent: http.Agent | null = null;
  /** The proxy's own answers to plain requests, by URL, oldest first (at most MAX_REFUSALS). */
  private readonly answers = new Map<string, ProxyAnswer>();

  constructor(
    readonly proxyServer: string,
    private readonly server: http.Server,
    private readonly onClose: (route: Route) => void,
  ) {}

  use(upstream: UpstreamProxy | null): void {
    this.upstream = upstream;
    // Connections kept for the direct exit must not serve requests meant for the upstream.
    this.agent?.destroy();
    this.agent = null;
  }

  answerFor(url: string): ProxyAnswer | undefined {
    return this.answers.get(url);
  }

  recordAnswer(url: string, answer: ProxyAnswer): void {
    this.answers.delete(url);
    this.answers.set(url, answer);
    if (this.answers.size > MAX_REFUSALS) this.answers.delete(this.answers.keys().next().value ?? '');
  }

  async close(): Promise<void> {
    this.onClose(this);
    this.agent?.destroy();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

interface Outbound {
  readonly socket: Socket;
  /** Through an http(s) upstream a plain request is forwarded as is (absolute-form), with its credentials. */
  readonly absoluteForm: boolean;
  readonly authorization: string | null;
}

interface Refused {
  readonly status: 403 | 502;
  /** Why the policy refused, sent as X-Webcap-Blocked; null for a network error. */
  readonly reason: string | null;
  /** The network error, sent as X-Webcap-Unreachable; null for a refusal. */
  readonly failure: string | null;
  readonly text: string;
}

const MAX_REFUSALS = 50;

// RFC 9110 §7.6.1: connection-specific fields, never forwarded; plus the proxy's own credentials.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Header name/value pairs of a raw header list minus hop-by-hop ones (and those its Connection names). */
function endToEnd(raw: readonly string[], keepUpgrade = false): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'connection') {
      for (const token of (raw[i + 1] ?? '').split(',')) named.add(token.trim().toLowerCase());
    }
  }
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const upgrade = keepUpgrade && (name === 'upgrade' || name === 'connection');
    if (upgrade || (!HOP_BY_HOP.has(name) && !named.has(name))) kept.push(raw[i] ?? '', raw[i + 1] ?? '');
  }
  return kept;
}

function rawResponse(status: number, reason: string, body: string, headers: readonly string[] = []): string {
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...headers,
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

const CHALLENGE = 'Proxy-Authenticate: Basic realm="webcap"';

/** Pipes two streams into each other; when either side ends or fails, both are torn down. */
function splice(client: Duplex, target: Duplex, head: Buffer): void {
  const close = () => {
    client.destroy();
    target.destroy();
  };
  for (const side of [client, target]) {
    side.on('error', close);
    side.on('close', close);
  }
  if (head.length > 0) target.write(head);
  client.pipe(target);
  target.pipe(client);
}

/** host:port of a CONNECT request; the host normalized the way a browser parses it. */
function parseAuthority(authority: string | undefined): { host: string; port: number } | null {
  const match = /^([^\s/?#@]+):(\d{1,5})$/.exec(authority ?? '');
  if (match === null) return null;
  try {
    const hostname = new URL(`http://${match[1]}`).hostname;
    const port = Number(match[2]);
    if (port < 1 || port > 65535) return null;
    return { host: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname, port };
  } catch {
    return null;
  }
}

/** Listens on 127.0.0.1 at a free port; resolves with the port. */
function listen(server: http.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The in-process HTTP proxy that is Chromium's only way out (DESIGN.md §3): plain requests
 * (absolute-URI), CONNECT tunnels (HTTPS, wss) and WebSocket upgrades are each checked by the
 * policy with pinned resolution before any connection is made; refusals get 403. One proxy serves
 * the process. Each browser context gets a route, a direct exit or the caller's chained upstream,
 * at the route's own listener (its proxyServer). The shared port, Chromium's launch-wide
 * --proxy-server, answers 407 to everything, so a context without a route of its own (the
 * default one) gets nothing out.
 */
export class EgressProxy {
  private readonly routes = new Set<Route>();
  private readonly sockets = new Set<Duplex>();
  private readonly guard: Guard;
  private readonly connectTimeoutMs: number;
  private sharedPort = 0;

  private constructor(
    private readonly server: http.Server,
    options: EgressProxyOptions,
  ) {
    this.guard = { policy: options.policy, resolver: options.resolver ?? systemResolver };
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.refuseAll(server);
  }

  /** Starts a proxy whose shared port listens on 127.0.0.1 at a free port. */
  static async start(options: EgressProxyOptions): Promise<EgressProxy> {
    const server = http.createServer();
    const proxy = new EgressProxy(server, options);
    proxy.sharedPort = await listen(server);
    return proxy;
  }

  /** The shared port, for Chromium's --proxy-server: it lets nothing out. */
  get port(): number {
    return this.sharedPort;
  }

  /** Whether an upstream proxy's own host passes the policy now: 'blocked' naming the proxy if not, 'target_unreachable' if it does not resolve. */
  async checkUpstream(upstream: UpstreamProxy): Promise<void> {
    await resolvePinned(upstream.host, upstream.port, this.guard.policy, this.guard.resolver).catch(
      (error: WebcapError) => {
        throw new WebcapError(error.code, `proxy ${error.detail}`, { cause: error });
      },
    );
  }

  /** Opens a route with its own listener, direct until its `use` says otherwise. */
  async addRoute(): Promise<ProxyRoute> {
    const server = http.createServer();
    const proxyServer = `http://127.0.0.1:${await listen(server)}`;
    const route = new Route(proxyServer, server, (closing) => {
      this.routes.delete(closing);
    });
    this.serve(server, route);
    this.routes.add(route);
    return route;
  }

  /** Stops every listener and destroys every connection, tunnels included. */
  async stop(): Promise<void> {
    const routes = [...this.routes].map((route) => route.close());
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await Promise.all([closed, ...routes]);
  }

  /** The shared port's traffic: 407 to every request, tunnel and upgrade. */
  private refuseAll(server: http.Server): void {
    server.on('connection', (socket: Socket) => this.track(socket, null));
    server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="webcap"', 'content-type': 'text/plain' });
      res.end('Proxy authentication required\n');
    });
    const refuseTunnel = (_req: IncomingMessage, client: Duplex) => {
      client.on('error', () => client.destroy());
      client.end(rawResponse(407, 'Proxy Authentication Required', '', [CHALLENGE]));
    };
    server.on('connect', refuseTunnel);
    server.on('upgrade', refuseTunnel);
    server.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  /** A route's listener: its traffic goes out along that route. */
  private serve(server: http.Server, route: Route): void {
    server.on('connection', (socket: Socket) => this.track(socket, route));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void this.onRequest(req, res, route);
    });
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.onTunnel(req, socket, head, 'connect', route);
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.onTunnel(req, socket, head, 'upgrade', route);
    });
    server.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  private track(socket: Duplex, route: Route | null): void {
    const sets = route === null ? [this.sockets] : [this.sockets, route.sockets];
    for (const set of sets) set.add(socket);
    socket.once('close', () => {
      for (const set of sets) set.delete(socket);
    });
  }

  /** The answer to a connection that failed: 403 for a refusal (recorded), 502 for a network error. */
  private refuse(route: Route, target: string, error: unknown): Refused {
    if (error instanceof WebcapError && error.code === 'blocked') {
      const reason = error.detail ?? 'blocked';
      route.stats.refusals.push({ target, reason });
      if (route.stats.refusals.length > MAX_REFUSALS) route.stats.refusals.shift();
      return { status: 403, reason, failure: null, text: `Blocked by the webcap network guard: ${reason}` };
    }
    const detail =
      (error instanceof WebcapError ? error.detail : describeNetworkError(error)) ?? 'unreachable';
    return { status: 502, reason: null, failure: detail, text: `Could not reach ${target}: ${detail}` };
  }

  /** A connection for host:port along the route, after every check; throws 'blocked' when refused. */
  private async connect(route: Route, host: string, port: number, forward: boolean): Promise<Outbound> {
    const { upstream } = route;
    const timeoutMs = this.connectTimeoutMs;
    if (upstream === null) {
      const socket = await connectPinned(host, port, this.guard, { tls: false, timeoutMs });
      return { socket: this.outbound(socket, route), absoluteForm: false, authorization: null };
    }
    // Through a caller's proxy, names are resolved over there; an IP literal the policy refuses is
    // refused on every route, so a URL's verdict never depends on the proxy it went through.
    if (isIP(host) !== 0) {
      const verdict = this.guard.policy.check(host, port);
      if (!verdict.allowed) throw blockedError(host, verdict, 'literal');
    }
    if (forward && upstream.protocol !== 'socks5:') {
      const socket = await connectToUpstream(upstream, this.guard, timeoutMs);
      return {
        socket: this.outbound(socket, route),
        absoluteForm: true,
        authorization: proxyAuthorization(upstream),
      };
    }
    const socket = await tunnelThrough(upstream, host, port, this.guard, timeoutMs);
    return { socket: this.outbound(socket, route), absoluteForm: false, authorization: null };
  }

  private outbound(socket: Socket, route: Route): Socket {
    this.track(socket, route);
    socket.on('error', () => socket.destroy());
    return socket;
  }

  /**
   * A plain http:// request in absolute form: checked, then forwarded. A direct route keeps its
   * connections to targets alive for the requests that follow (a page fetches most of its
   * subresources from a few hosts); through a caller's proxy each request has a connection of its own.
   */
  private async onRequest(req: IncomingMessage, res: ServerResponse, route: Route): Promise<void> {
    const url = URL.canParse(req.url ?? '') ? new URL(req.url ?? '') : null;
    if (url === null || url.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('An absolute http:// URL is expected; use CONNECT for https\n');
      return;
    }
    const host = hostOf(url);
    const port = Number(url.port) || 80;
    const headers = endToEnd(req.rawHeaders);
    let target: http.RequestOptions;
    if (route.upstream === null) {
      target = { agent: this.directAgent(route), host, port, path: `${url.pathname}${url.search}` };
    } else {
      let outbound: Outbound;
      try {
        outbound = await this.connect(route, host, port, true);
      } catch (error) {
        this.answerRefusal(res, route, url.href, error);
        return;
      }
      if (res.destroyed) {
        outbound.socket.destroy();
        return;
      }
      if (outbound.authorization !== null) headers.push('Proxy-Authorization', outbound.authorization);
      const path = outbound.absoluteForm ? url.href : `${url.pathname}${url.search}`;
      target = { createConnection: () => outbound.socket, path };
    }
    this.forward(req, res, route, url, { ...target, method: req.method, headers }, true);
  }

  /** Sends the request on, and the answer back; `retry` allows one more try when a kept-alive connection turns out closed. */
  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    url: URL,
    options: http.RequestOptions,
    retry: boolean,
  ): void {
    const forwarded = http.request(options);
    forwarded.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      answer.on('error', () => res.destroy());
      answer.pipe(res);
    });
    forwarded.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // The target may close an idle connection just as it is reused; a request without a body is sent again.
      const bodiless = req.method === 'GET' || req.method === 'HEAD';
      if (retry && bodiless && forwarded.reusedSocket && error.code === 'ECONNRESET' && !res.destroyed) {
        this.forward(req, res, route, url, options, false);
        return;
      }
      this.answerRefusal(res, route, url.href, error);
    });
    // Either side going away early tears the other down; a finished exchange leaves the connection to the agent.
    res.on('close', () => {
      if (!res.writableFinished) forwarded.destroy();
    });
    req.on('error', () => forwarded.destroy());
    req.pipe(forwarded);
  }

  /**
   * The answer to a request the guard refused (403) or could not connect (502), recorded on the
   * route (Route.answerFor) for the engines. The headers tell a person reading the answer.
   */
  private answerRefusal(res: ServerResponse, route: Route, target: string, error: unknown): void {
    const { status, reason, failure, text } = this.refuse(route, target, error);
    route.recordAnswer(
      target,
      reason !== null
        ? { kind: 'blocked', reason }
        : { kind: 'unreachable', reason: failure ?? 'unreachable' },
    );
    const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
    if (reason !== null) headers['x-webcap-blocked'] = reason;
    if (failure !== null) headers['x-webcap-unreachable'] = failure;
    res.writeHead(status, headers);
    res.end(`${text}\n`);
  }

  /**
   * The route's pool of kept-alive connections to targets: each new connection is checked and
   * pinned like any other (a reused one goes to an address that was checked); closed with the route.
   */
  private directAgent(route: Route): http.Agent {
    if (route.agent === null) {
      const agent = new http.Agent({ keepAlive: true });
      const createConnection = (
        options: { host?: string | null; port?: number | string | null },
        oncreate: (error: Error | null, socket?: Socket) => void,
      ) => {
        const host = options.host ?? '';
        const port = Number(options.port) || 80;
        connectPinned(host, port, this.guard, { tls: false, timeoutMs: this.connectTimeoutMs }).then(
          (socket) => oncreate(null, this.outbound(socket, route)),
          (error: Error) => oncreate(error),
        );
        return undefined;
      };
      route.agent = Object.assign(agent, { createConnection });
    }
    return route.agent;
  }

  /**
   * CONNECT host:port (HTTPS, wss) and GET-with-Upgrade in absolute form (ws://): checked, then the
   * client's bytes are spliced to the target. The socket is the client's from here on.
   */
  private async onTunnel(
    req: IncomingMessage,
    client: Duplex,
    head: Buffer,
    kind: 'connect' | 'upgrade',
    route: Route,
  ) {
    client.on('error', () => client.destroy());
    const target = kind === 'connect' ? parseAuthority(req.url) : this.upgradeTarget(req.url);
    if (target === null) {
      client.end(
        rawResponse(400, 'Bad Request', 'A host:port (CONNECT) or an absolute ws:// URL is expected\n'),
      );
      return;
    }
    const label = kind === 'connect' ? `${target.host}:${target.port}` : (req.url ?? '');
    let outbound: Outbound;
    try {
      outbound = await this.connect(route, target.host, target.port, false);
    } catch (error) {
      const { status, reason, text } = this.refuse(route, label, error);
      const extra = reason === null ? [] : [`X-Webcap-Blocked: ${reason}`];
      client.end(rawResponse(status, status === 403 ? 'Forbidden' : 'Bad Gateway', `${text}\n`, extra));
      return;
    }
    if (client.destroyed) {
      outbound.socket.destroy();
      return;
    }
    if (kind === 'connect') {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    } else {
      // The upgrade request goes on in origin form; the target's 101 and frames flow back untouched.
      const { pathname, search } = new URL(req.url ?? '');
      const lines = [`${req.method} ${pathname}${search} HTTP/1.1`];
      const headers = endToEnd(req.rawHeaders, true);
      for (let i = 0; i + 1 < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
      outbound.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    }
    splice(client, outbound.socket, head);
  }

  /** host:port of an upgrade request in absolute form (http:// or ws://). */
  private upgradeTarget(raw: string | undefined): { host: string; port: number } | null {
    if (!URL.canParse(raw ?? '')) return null;
    const url = new URL(raw ?? '');
    if (url.protocol !== 'http:' && url.protocol !== 'ws:') return null;
    return { host: hostOf(url), port: Number(url.port) || 80 };
  }
}
