import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closes a new connection at once, before any byte of it is read, when its peer address already
 * holds `max` open connections (MAX_CONNECTIONS_PER_CLIENT). Behind a reverse proxy every
 * connection has the proxy's address, hence off by default (docs/security.md).
 */
export function capConnectionsPerClient(server: Server, max: number): void {
  const open = new Map<string, number>();
  // Ahead of Node's own listener, which would start reading the connection.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
