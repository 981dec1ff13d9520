import type { Socket } from 'node:net';
import { invalidParam, WebcapError } from '../errors.js';
import { type ConnectOptions, connectPinned, type Guard } from './pinned-connect.js';

/** A caller's own proxy (the `proxy` parameter), chained behind the egress proxy. */
export interface UpstreamProxy {
  readonly protocol: 'http:' | 'https:' | 'socks5:';
  /** Without IPv6 brackets. */
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
}

const DEFAULT_PORTS = { 'http:': 80, 'https:': 443, 'socks5:': 1080 } as const;

function parseOrNull(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function decodedOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** Parses `scheme://user:password@host:port` (http, https, socks5/socks5h); anything else is a 400 naming `param`. */
export function parseUpstreamProxy(raw: string, param = 'proxy'): UpstreamProxy {
  const expected = 'must be an http, https or socks5 URL such as http://user:password@host:port';
  const url = parseOrNull(raw);
  if (url === null) throw invalidParam(param, expected);
  const scheme = url.protocol === 'socks5h:' ? 'socks5:' : url.protocol;
  if (scheme !== 'http:' && scheme !== 'https:' && scheme !== 'socks5:') throw invalidParam(param, expected);
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    throw invalidParam(param, `${expected}, without a path`);
  }
  // socks5: is not a special scheme, so WHATWG leaves its host opaque; reparsed as http: the host
  // gets the browser normalization (0x7f.1 → 127.0.0.1) that the policy check relies on. An
  // opaque host that is no valid http host (empty, `%zz`) fails here.
  const hostname = url.host === '' ? '' : (parseOrNull(`http://${url.host}`)?.hostname ?? '');
  if (hostname === '' || url.port === '0') throw invalidParam(param, expected);
  const username = decodedOrNull(url.username);
  const password = decodedOrNull(url.password);
  if (username === null || password === null) {
    throw invalidParam(param, 'has a user name or password with a malformed %-escape');
  }
  return {
    protocol: scheme,
    host: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    port: url.port === '' ? DEFAULT_PORTS[scheme] : Number(url.port),
    username,
    password,
  };
}

/** The Proxy-Authorization value for an http(s) upstream, null without credentials. */
export function proxyAuthorization(upstream: UpstreamProxy): string | null {
  if (upstream.username === '' && upstream.password === '') return null;
  return `Basic ${Buffer.from(`${upstream.username}:${upstream.password}`).toString('base64')}`;
}

/** A connection to the upstream proxy itself (TLS for https:), its host checked by the policy and pinned like any target's. */
export function connectToUpstream(upstream: UpstreamProxy, guard: Guard, timeoutMs: number): Promise<Socket> {
  const options: ConnectOptions = { tls: upstream.protocol === 'https:', timeoutMs };
  return connectPinned(upstream.host, upstream.port, guard, options);
}

function authority(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

const MAX_HEAD_BYTES = 16_384;

/** Sends CONNECT over a connection to an http(s) proxy and waits (up to timeoutMs) for its 2xx; bytes after the head stay readable. */
function httpConnect(
  socket: Socket,
  upstream: UpstreamProxy,
  target: { host: string; port: number },
  timeoutMs: number,
): Promise<void> {
  const name = authority(target.host, target.port);
  const auth = proxyAuthorization(upstream);
  socket.write(
    `CONNECT ${name} HTTP/1.1\r\nHost: ${name}\r\n${auth === null ? '' : `Proxy-Authorization: ${auth}\r\n`}\r\n`,
  );
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const done = (error?: Error) => {
      socket.setTimeout(0);
      socket.off('data', onData);
      socket.off('error', done);
      socket.off('end', onEnd);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onEnd = () => done(new WebcapError('target_unreachable', 'proxy closed the connection'));
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES)
          done(new WebcapError('target_unreachable', 'proxy sent a bad answer'));
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.toString('latin1', 0, end))?.[1];
      if (status === undefined || !status.startsWith('2')) {
        done(new WebcapError('target_unreachable', `proxy answered ${status ?? 'garbage'} to CONNECT`));
        return;
      }
      socket.pause();
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      done();
    };
    socket.setTimeout(timeoutMs, () =>
      done(new WebcapError('target_unreachable', 'proxy did not answer CONNECT')),
    );
    socket.on('data', onData);
    socket.once('error', done);
    socket.once('end', onEnd);
  });
}

/**
 * A byte stream to host:port through the upstream proxy (HTTP CONNECT, or a SOCKS5 CONNECT with
 * the name sent for the proxy to resolve). The upstream's own address is checked; the target's is
 * the upstream's business, since the connection to it leaves from there, not from this machine.
 */
export async function tunnelThrough(
  upstream: UpstreamProxy,
  host: string,
  port: number,
  guard: Guard,
  timeoutMs: number,
): Promise<Socket> {
  const socket = await connectToUpstream(upstream, guard, timeoutMs);
  try {
    if (upstream.protocol === 'socks5:') {
      // Loaded on the first SOCKS tunnel: the request fields that every door reads import this module.
      const { SocksClient } = await import('socks');
      const { socket: tunnel } = await SocksClient.createConnection({
        command: 'connect',
        destination: { host, port },
        proxy: {
          host: upstream.host,
          port: upstream.port,
          type: 5,
          ...(upstream.username === '' ? {} : { userId: upstream.username, password: upstream.password }),
        },
        existing_socket: socket,
        timeout: timeoutMs,
      });
      return tunnel;
    }
    await httpConnect(socket, upstream, { host, port }, timeoutMs);
    return socket;
  } catch (error) {
    socket.destroy();
    if (error instanceof WebcapError) throw error;
    throw new WebcapError(
      'target_unreachable',
      `proxy refused the connection (${(error as Error).message})`,
      {
        cause: error,
      },
    );
  }
}
