import net, { type AddressInfo } from 'node:net';

/** A SOCKS5 server for tests: user/password auth, CONNECT only, and only to the destinations it is given. */
export interface Socks5Server {
  readonly port: number;
  /** Each CONNECT it was asked for, as "host:port" (a name when the client sent one). */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Reads exact byte counts from a socket, in order. */
function reader(socket: net.Socket) {
  let buffered = Buffer.alloc(0);
  let waiting: { size: number; resolve: (bytes: Buffer) => void } | null = null;
  const feed = () => {
    if (waiting !== null && buffered.length >= waiting.size) {
      const { size, resolve } = waiting;
      waiting = null;
      const bytes = buffered.subarray(0, size);
      buffered = buffered.subarray(size);
      resolve(bytes);
    }
  };
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    feed();
  });
  return (size: number) =>
    new Promise<Buffer>((resolve) => {
      waiting = { size, resolve };
      feed();
    });
}

/**
 * Starts a SOCKS5 server (RFC 1928, RFC 1929 auth) on 127.0.0.1. `routes` maps "host:port" as the
 * client names it to the loopback port to connect to; anything else is refused (reply 0x02), so a
 * test never sends traffic anywhere else.
 */
export async function startSocks5(
  credentials: { username: string; password: string },
  routes: Record<string, number>,
): Promise<Socks5Server> {
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer(async (client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const read = reader(client);
    const [, methodCount = 0] = await read(2);
    const methods = await read(methodCount);
    if (!methods.includes(0x02)) return void client.end(Buffer.from([5, 0xff]));
    client.write(Buffer.from([5, 0x02]));
    const [, userLength = 0] = await read(2);
    const username = (await read(userLength)).toString();
    const [passwordLength = 0] = await read(1);
    const password = (await read(passwordLength)).toString();
    const authorized = username === credentials.username && password === credentials.password;
    client.write(Buffer.from([1, authorized ? 0 : 1]));
    if (!authorized) return void client.end();
    const [, , , type] = await read(4);
    let host: string;
    if (type === 1) host = [...(await read(4))].join('.');
    else if (type === 3) host = (await read((await read(1))[0] ?? 0)).toString();
    else host = `[${(await read(16)).toString('hex').replace(/(.{4})(?!$)/g, '$1:')}]`;
    const port = (await read(2)).readUInt16BE(0);
    requests.push(`${host}:${port}`);
    const target = routes[`${host}:${port}`];
    const reply = (code: number) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
    if (target === undefined) return void client.end(reply(0x02));
    const upstream = net.connect(target, '127.0.0.1', () => {
      client.write(reply(0));
      client.removeAllListeners('data');
      client.pipe(upstream);
      upstream.pipe(client);
    });
    sockets.add(upstream);
    upstream.once('close', () => client.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
