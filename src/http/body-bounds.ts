import { type Readable, Transform } from 'node:stream';
import { WebcapError } from '../errors.js';

/**
 * Deepest nesting of arrays and objects a JSON body may have. No parameter nests (admin bodies
 * are flat, `custom_response` is JSON text in a string), so this only refuses input crafted to
 * make JSON.parse spend the event loop (a 1 MB body of nested arrays took 0.1-0.3 s).
 */
export const BODY_MAX_DEPTH = 32;

/** Most keys a body may hold: object members and array elements in JSON, fields in a form. */
export const BODY_MAX_KEYS = 5000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const AMPERSAND = 0x26;

function isOpener(byte: number): boolean {
  return byte === 0x5b || byte === 0x7b; // [ {
}

function isCloser(byte: number): boolean {
  return byte === 0x5d || byte === 0x7d; // ] }
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Counts a body's shape chunk by chunk, in one pass over its bytes; says why it is refused, or null. */
interface ShapeCounter {
  feed(chunk: Buffer): string | null;
}

/**
 * JSON's structure read byte by byte with no lookahead or backtracking: nesting depth, and keys
 * as commas plus one per non-empty container. UTF-8 continuation bytes are all 0x80 or above, so
 * reading bytes rather than characters never mistakes one for a bracket or a quote.
 */
class JsonCounter implements ShapeCounter {
  private depth = 0;
  private keys = 0;
  private inString = false;
  private escaped = false;
  /** A container was just opened and nothing but white space has followed yet. */
  private opened = false;

  feed(chunk: Buffer): string | null {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
        continue;
      }
      if (isSpace(byte)) continue;
      if (this.opened) {
        this.opened = false;
        if (!isCloser(byte)) this.keys += 1;
      }
      if (byte === QUOTE) {
        this.inString = true;
      } else if (isOpener(byte)) {
        this.depth += 1;
        if (this.depth > BODY_MAX_DEPTH) return `nesting deeper than ${BODY_MAX_DEPTH}`;
        this.opened = true;
      } else if (isCloser(byte)) {
        if (this.depth > 0) this.depth -= 1;
      } else if (byte === COMMA) {
        this.keys += 1;
      }
      if (this.keys > BODY_MAX_KEYS) return `more than ${BODY_MAX_KEYS} keys`;
    }
    return null;
  }
}

/** A form's fields are separated by `&` (no brackets: @fastify/formbody's parser reads a flat list). */
class FormCounter implements ShapeCounter {
  private keys = 1;

  feed(chunk: Buffer): string | null {
    for (let i = chunk.indexOf(AMPERSAND); i !== -1; i = chunk.indexOf(AMPERSAND, i + 1)) {
      this.keys += 1;
      if (this.keys > BODY_MAX_KEYS) return `more than ${BODY_MAX_KEYS} keys`;
    }
    return null;
  }
}

/** Which counter a Content-Type needs: the two media types the app parses. */
function counterFor(contentType: string | undefined): ShapeCounter | null {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (media === 'application/json') return new JsonCounter();
  if (media === 'application/x-www-form-urlencoded') return new FormCounter();
  return null;
}

/**
 * The request body as it arrives, checked against BODY_MAX_DEPTH and BODY_MAX_KEYS on the way
 * through (a preParsing stream): the work is a byte scan spread over the chunks, and a body past
 * a bound is never handed to a parser. Such a body is still read to its end, unscanned, before
 * the 400 is sent, so that closing the connection does not reset it under a client that is still
 * writing; how long that may take is bounded by REQUEST_TIMEOUT_MS and its size by the body limit.
 * Returns null for a media type the app does not parse (Fastify answers those 415).
 */
export function boundedBody(payload: Readable, contentType: string | undefined): Transform | null {
  const counter = counterFor(contentType);
  if (counter === null) return null;
  let refusal: string | null = null;
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (refusal === null) refusal = counter.feed(chunk);
      done(null, refusal === null ? chunk : undefined);
    },
    flush(done) {
      done(refusal === null ? null : new WebcapError('bad_request', `body: ${refusal}`));
    },
  });
  // pipe() does not pass a source's error on; without this an aborted upload would leave the
  // parser waiting for an end that never comes.
  payload.on('error', (error) => bounded.destroy(error));
  return payload.pipe(bounded);
}
