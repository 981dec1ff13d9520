import net, { type AddressInfo } from 'node:net';

/**
 * A server on 127.0.0.1 that reads each whole HTTP request (headers and Content-Length body) and
 * then answers with raw bytes of the test's choosing, or never: a storage endpoint that answers
 * what no S3 service would, or stalls, to point the service at as its bucket.
 */
export interface RawEndpoint {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly port: number;
  /** Complete requests read so far. */
  requests(): number;
  close(): Promise<void>;
}

/**
 * What to do once a whole request has arrived: write bytes and close (or, with `hold`, write them
 * and keep the connection open without another byte: an answer whose body stops arriving), reset
 * the connection, or never answer.
 */
export type RawAnswer = { readonly bytes: string | Buffer; readonly hold?: boolean } | 'reset' | 'stall';

/** Raw HTTP/1.1 answer with a body and Connection: close. */
export function rawResponse(statusLine: string, headers: Record<string, string>, body = ''): RawAnswer {
  const lines = Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return { bytes: `HTTP/1.1 ${statusLine}\r\n${lines}Connection: close\r\n\r\n${body}` };
}

const HEADERS_END = Buffer.from('\r\n\r\n');

/** Starts the endpoint on a free loopback port; every request gets `answer`. */
export async function startRawEndpoint(answer: RawAnswer): Promise<RawEndpoint> {
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      // Keep reading whatever arrives after a request, so that the client is never held up sending.
      for (;;) {
        const end = buffered.indexOf(HEADERS_END);
        if (end < 0) return;
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(buffered.subarray(0, end).toString('latin1'));
        const total = end + HEADERS_END.length + Number(length?.[1] ?? 0);
        if (buffered.length < total) return;
        buffered = buffered.subarray(total);
        requests += 1;
        if (answer === 'stall') continue;
        if (answer === 'reset') socket.resetAndDestroy();
        else if (answer.hold === true) socket.write(answer.bytes);
        else socket.end(answer.bytes);
        return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    requests: () => requests,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
