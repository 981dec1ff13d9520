import { type Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { WebcapError } from '../errors.js';

/** The Accept-Encoding sent with server-side fetches: exactly what readCappedBody decodes. */
export const ACCEPTED_ENCODINGS = 'gzip, deflate, br';

// Like browsers, decode what arrived when a compressed body ends early instead of failing it.
const LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_LENIENT = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

function decoder(encoding: string): Transform {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(LENIENT);
    // RFC 9110 §8.4.1.2: "deflate" is the zlib format.
    case 'deflate':
      return zlib.createInflate(LENIENT);
    case 'br':
      return zlib.createBrotliDecompress(BROTLI_LENIENT);
    default:
      throw new WebcapError('target_unreachable', `unsupported content encoding ${encoding}`);
  }
}

/** The error for a body over the limit: a 400 naming the limit (the caller asked for a page too large to return). */
export function tooLarge(maxBytes: number, decoded: boolean): WebcapError {
  return new WebcapError(
    'bad_request',
    `the page's ${decoded ? 'decoded ' : ''}response body is larger than the limit of ${maxBytes} bytes`,
  );
}

/** A pass-through that fails the pipeline once more than maxBytes went through it. */
function cap(maxBytes: number, decoded: boolean): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? tooLarge(maxBytes, decoded) : null, chunk);
    },
  });
}

/**
 * Reads a body to the end, undoing its Content-Encoding (gzip, deflate, br, in the order listed),
 * and fails with 'bad_request' as soon as the bytes on the wire or the decoded bytes pass maxBytes:
 * decoding is streamed and stops there, so a compression bomb is never inflated whole.
 */
export async function readCappedBody(
  source: Readable,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<Buffer> {
  const encodings = (contentEncoding ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '' && part !== 'identity');
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  let decoders: Transform[];
  try {
    decoders = encodings.reverse().map(decoder);
  } catch (error) {
    discard(source);
    throw error;
  }
  const decoded = decoders.length === 0 ? [] : [...decoders, cap(maxBytes, true)];
  // On failure pipeline destroys every stage, the source (and so the connection) included.
  await pipeline([source, cap(maxBytes, false), ...decoded, sink]);
  return Buffer.concat(chunks);
}

/** Drops a body unread: destroying it closes its connection, and its abort error has nowhere to go. */
export function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}
