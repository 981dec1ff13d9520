import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { ResolvedAddress, Resolver } from '../../src/net/resolve.js';

/** A server the tests start on a loopback address and a free port. */
export interface TestServer {
  readonly server: http.Server;
  readonly port: number;
  /** Every TCP connection it accepted, whatever came over it. */
  connections(): number;
  close(): Promise<void>;
}

/** An HTTP server on `host` (127.0.0.1 unless told) at a free port, counting TCP connections. */
export async function startServer(
  handler: http.RequestListener,
  host = '127.0.0.1',
  port = 0,
): Promise<TestServer> {
  const server = http.createServer(handler);
  const sockets = new Set<net.Socket>();
  let connections = 0;
  server.on('connection', (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The canary: a server on a loopback port the policy does not allow. Anything that reaches it,
 * even a TCP handshake carrying TLS or a tunnel, counts as a leak.
 */
export function startCanary(host = '127.0.0.1', port = 0): Promise<TestServer> {
  return startServer((_req, res) => res.end('canary reached'), host, port);
}

/** A port nothing listens on, and nothing of the run will. */
export async function closedPort(): Promise<number> {
  // Below the kernel's ephemeral range, which listen(0) and outgoing connections draw from: a port
  // that was free there could be handed to another server or connection of the run meanwhile.
  const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
  const below = Math.max(Math.min(Number(low), 32_768), 10_001);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = randomInt(10_000, below);
    if (await refused(port)) return port;
  }
  throw new Error('no closed port found below the ephemeral range');
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * A resolver answering from a table (a value may be a function of the call count, for rebinding),
 * recording each lookup; names not in the table fail like getaddrinfo's ENOTFOUND.
 */
export function tableResolver(
  table: Record<string, readonly string[] | ((call: number) => readonly string[])>,
): Resolver & { readonly calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    calls.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    const answers =
      typeof entry === 'function' ? entry(calls.filter((name) => name === hostname).length) : entry;
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}
