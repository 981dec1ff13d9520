import { getDefaultHighWaterMark, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { WebcapError } from '../errors.js';
import { readCappedBody } from './read-body.js';

const text = Buffer.from('<html><body>hello, world</body></html>'.repeat(50));

function stream(...chunks: Buffer[]): Readable {
  return Readable.from(chunks);
}

async function failure(attempt: Promise<unknown>): Promise<WebcapError> {
  const error = await attempt.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof WebcapError) return error;
  throw new Error(`expected a WebcapError, got ${String(error)}`);
}

describe('readCappedBody', () => {
  it('returns a plain body, and undoes gzip, x-gzip, deflate, br and stacked encodings', async () => {
    expect(await readCappedBody(stream(text), undefined, 1_000_000)).toEqual(text);
    expect(await readCappedBody(stream(text), 'identity', 1_000_000)).toEqual(text);
    expect(await readCappedBody(stream(zlib.gzipSync(text)), 'gzip', 1_000_000)).toEqual(text);
    expect(await readCappedBody(stream(zlib.gzipSync(text)), 'X-Gzip', 1_000_000)).toEqual(text);
    expect(await readCappedBody(stream(zlib.deflateSync(text)), 'deflate', 1_000_000)).toEqual(text);
    expect(await readCappedBody(stream(zlib.brotliCompressSync(text)), 'br', 1_000_000)).toEqual(text);
    // Listed in the order applied: gzip first, then br.
    const stacked = zlib.brotliCompressSync(zlib.gzipSync(text));
    expect(await readCappedBody(stream(stacked), 'gzip, br', 1_000_000)).toEqual(text);
  });

  it('keeps what arrived of a truncated compressed body, as browsers do', async () => {
    const gzipped = zlib.gzipSync(text);
    const body = await readCappedBody(stream(gzipped.subarray(0, gzipped.length - 8)), 'gzip', 1_000_000);
    expect(body).toEqual(text);
  });

  it('refuses a body over the cap as a 400 naming the limit', async () => {
    const error = await failure(readCappedBody(stream(text, text), undefined, text.length + 10));
    expect(error).toMatchObject({
      code: 'bad_request',
      detail: `the page's response body is larger than the limit of ${text.length + 10} bytes`,
    });
  });

  it('stops a gzip bomb at the decoded cap without inflating it', async () => {
    // 1024 gzip members of 4 MiB of zeros: one valid gzip stream of 4 GiB, ~4 MiB on the wire.
    const bomb = Buffer.concat(Array<Buffer>(1024).fill(zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024))));
    expect(bomb.length).toBeLessThan(8 * 1024 * 1024);
    let sent = 0;
    const source = new Readable({
      read() {
        // Dribbles the compressed bytes so that stopping early is observable.
        const chunk = bomb.subarray(sent, sent + 1024);
        sent += chunk.length;
        this.push(chunk.length > 0 ? chunk : null);
      },
    });
    const error = await failure(readCappedBody(source, 'gzip', 1024 * 1024));
    expect(error.detail).toBe("the page's decoded response body is larger than the limit of 1048576 bytes");
    // 1 MiB of zeros is ~1 KiB of gzip: decoding stopped near the start of the bomb. What was
    // read beyond that fills the pipeline's buffers, about four streams' highWaterMark: 16 KiB
    // each on Node 20 (64 KiB read), 64 KiB on Node 22 (255 KiB read).
    expect(sent).toBeLessThan(8 * getDefaultHighWaterMark(false));
    expect(sent).toBeLessThan(bomb.length / 10);
    expect(source.destroyed).toBe(true);
  });

  it('calls corrupt or unknown encodings unreachable, not a server error', async () => {
    const corrupt = await readCappedBody(stream(Buffer.from('not gzip at all')), 'gzip', 1000).catch(
      (error: unknown) => error,
    );
    expect((corrupt as NodeJS.ErrnoException).code).toMatch(/^Z_/);
    expect(await failure(readCappedBody(stream(text), 'zstd', 1000))).toMatchObject({
      code: 'target_unreachable',
      detail: 'unsupported content encoding zstd',
    });
  });
});
