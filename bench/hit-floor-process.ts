import { createServer } from 'node:http';

/*
 * Child-process entry (forked by hit-floor.ts): a bare node:http server that answers every
 * request with the bytes and content type the parent sends, and nothing else: no routing, no
 * parsing, no key, no ledger, no log. What this machine can do at all for that payload over
 * loopback, to judge the service's cache hits against in the same run.
 */

interface Payload {
  readonly base64: string;
  readonly contentType: string;
}

process.once('message', (payload: Payload) => {
  const body = Buffer.from(payload.base64, 'base64');
  const headers = { 'content-type': payload.contentType, 'content-length': String(body.length) };
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, headers);
    response.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
});
// A parent that died without closing it leaves no server behind.
process.once('disconnect', () => process.exit(0));
