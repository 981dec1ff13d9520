import net, { isIP, type Socket } from 'node:net';
import tls from 'node:tls';
import type { NetworkPolicy } from './address-policy.js';
import { pinnedLookup, type Resolver, resolvePinned } from './resolve.js';

/** What every outgoing connection is checked with. */
export interface Guard {
  readonly policy: NetworkPolicy;
  readonly resolver: Resolver;
}

export interface ConnectOptions {
  /** TLS to `host`: SNI and certificate verification use the name, the connection the checked address. */
  readonly tls: boolean;
  readonly timeoutMs: number;
}

/**
 * Opens a TCP (or TLS) connection to host:port at an address resolvePinned checked; resolves once
 * connected (TLS: handshake done). Rejects with 'blocked' or 'target_unreachable' WebcapErrors from
 * the resolution, or the socket's error; ETIMEDOUT after timeoutMs.
 */
export async function connectPinned(
  host: string,
  port: number,
  guard: Guard,
  options: ConnectOptions,
): Promise<Socket> {
  const addresses = await resolvePinned(host, port, guard.policy, guard.resolver);
  const lookup = pinnedLookup(host, addresses);
  return new Promise((resolve, reject) => {
    const socket: Socket = options.tls
      ? tls.connect({ host, port, lookup, servername: isIP(host) === 0 ? host : undefined })
      : net.connect({ host, port, lookup });
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(options.timeoutMs, () => {
      const error: NodeJS.ErrnoException = new Error(`connecting to ${host}:${port} timed out`);
      error.code = 'ETIMEDOUT';
      fail(error);
    });
    socket.once('error', fail);
    socket.once(options.tls ? 'secureConnect' : 'connect', () => {
      socket.setTimeout(0);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}
