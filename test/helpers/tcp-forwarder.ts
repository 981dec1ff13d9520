import net, { type AddressInfo } from 'node:net';

/**
 * A TCP forwarder on 127.0.0.1 in front of a real server (PostgreSQL, Redis, S3), which a test
 * puts between the service and that server to break the network in ways the server itself
 * never would, without touching the shared server.
 */
export interface TcpForwarder {
  readonly port: number;
  /** `url` with its host and port replaced by the forwarder's. */
  via(url: string): string;
  /** Resets every open connection and each new one as it arrives: a server that went away. */
  cut(): void;
  /**
   * Stops passing bytes on open connections and accepts new ones without ever answering: a
   * network partition, where nothing fails and nothing arrives.
   */
  stall(): void;
  /** Forwards new connections again; connections left frozen by `stall` are reset, as peers that gave up. */
  restore(): void;
  close(): Promise<void>;
}

interface Link {
  readonly client: net.Socket;
  upstream: net.Socket | null;
}

/** Starts a forwarder to host:port on a free loopback port, passing traffic until told otherwise. */
export async function startTcpForwarder(host: string, port: number): Promise<TcpForwarder> {
  let mode: 'open' | 'cut' | 'stalled' = 'open';
  const links = new Set<Link>();
  const drop = (link: Link) => {
    if (!links.delete(link)) return;
    link.client.resetAndDestroy();
    link.upstream?.resetAndDestroy();
  };
  const server = net.createServer((client) => {
    const link: Link = { client, upstream: null };
    client.on('error', () => undefined);
    client.on('close', () => drop(link));
    links.add(link);
    if (mode === 'cut') return drop(link);
    if (mode === 'stalled') return client.pause();
    const upstream = net.connect(port, host);
    link.upstream = upstream;
    upstream.on('error', () => undefined);
    upstream.on('close', () => drop(link));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const own = (server.address() as AddressInfo).port;
  return {
    port: own,
    via(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(own);
      return parsed.toString();
    },
    cut() {
      mode = 'cut';
      for (const link of [...links]) drop(link);
    },
    stall() {
      mode = 'stalled';
      for (const { client, upstream } of links) {
        client.unpipe();
        upstream?.unpipe();
        client.pause();
        upstream?.pause();
      }
    },
    restore() {
      if (mode === 'stalled') for (const link of [...links]) drop(link);
      mode = 'open';
    },
    close() {
      for (const link of [...links]) drop(link);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
