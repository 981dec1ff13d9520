import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * Query parameters whose values are secrets: API keys, storage credentials, a hosted file's
 * signature, and what a caller sends the target (headers, cookies, authorization: a session or a token).
 */
const SECRET_PARAMS = new Set([
  'x_api_key',
  'access_key',
  's3_secret_key',
  's3_access_key_id',
  'signature',
  'headers',
  'cookies',
  'authorization',
]);

/**
 * Query parameters that carry a caller's own page (docs/capture.md): its content is the caller's,
 * and up to the request head's 16 KiB; the log keeps only its length.
 */
const PAGE_PARAMS = new Set(['html', 'markdown']);

function decodedOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return null;
  }
}

/** Paths that carry a one-time token: the console's invitation links (docs/console.md). */
const TOKEN_PATH = /^(\/console\/(?:api\/invites|invite)\/)[^/?#]+/;

/*
 * The operator's doors, whatever the case Fastify would route or refuse: their callers hold the
 * admin or metrics token, and one pasted into the query under a name of their own choosing
 * (`?token=`) is no credential this list knows. None of their queries is worth a token in the log.
 */
const OPERATOR_PATH = /^\/+(?:admin|metrics)(?:[/?]|$)/i;

/**
 * The request URL with every credential in its query replaced, every query value of an admin or
 * metrics request, and the token of an invitation link in its path, so that it can be logged.
 */
export function redactRequestUrl(raw: string): string {
  const url = raw.replace(TOKEN_PATH, '$1[REDACTED]');
  const at = url.indexOf('?');
  if (at === -1) return url;
  const operator = OPERATOR_PATH.test(url);
  const pairs = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return operator && pair !== '' ? '[REDACTED]' : pair;
      const name = pair.slice(0, eq);
      const encoded = pair.slice(eq + 1);
      const param = (decodedOrNull(name) ?? name).toLowerCase();
      if (operator || SECRET_PARAMS.has(param)) return `${name}=[REDACTED]`;
      if (PAGE_PARAMS.has(param)) return `${name}=[${encoded.length} characters]`;
      // Read as Fastify's query parser reads it: a value with a malformed escape is kept as sent.
      const value = decodedOrNull(encoded) ?? encoded;
      // `%40` too: in a value kept as sent it may still be the @ the caller meant.
      const lastAt = Math.max(value.lastIndexOf('@'), value.toLowerCase().lastIndexOf('%40'));
      if (lastAt === -1) return pair;
      const redacted = withoutUserinfo(value);
      if (redacted !== value) return `${name}=${encodeURIComponent(redacted)}`;
      // No URL with credentials, yet `something:secret@`: a mistyped proxy or endpoint still
      // holds its password (an e-mail address has no colon before its @).
      return value.slice(0, lastAt).includes(':') ? `${name}=[REDACTED]` : pair;
    });
  return `${url.slice(0, at)}?${pairs.join('&')}`;
}

/**
 * The value with the user name and password it carries as a URL replaced, read by the same
 * WHATWG parser the service uses (so `http:user:pw@host`, `http:\\user:pw@host`, tabs and
 * upper-case schemes are caught alike); the value itself when it is no URL or carries none.
 */
function withoutUserinfo(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.username === '' && url.password === '') return value;
  url.username = '';
  url.password = '';
  const at = url.href.indexOf('//') + 2;
  return `${url.href.slice(0, at)}[REDACTED]@${url.href.slice(at)}`;
}

/** Paths of logged objects that may hold a credential; pino replaces them before writing. */
const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-access-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.access_key',
  '*.x_api_key',
  '*.s3_secret_key',
  '*.s3_access_key_id',
  '*.key',
  '*.plaintext',
  '*.password',
  // A request's parameters, wherever an object logs them (request shaping, docs/capture.md).
  '*.headers',
  '*.cookies',
  '*.authorization',
];

interface LoggedRequest {
  method: string;
  url: string;
  hostname?: string;
  ip?: string;
  id?: string;
}

/**
 * Standard output, written asynchronously as pino's own destination does, but in sonic-boom's
 * buffer mode: its text mode appends each line to the string still waiting and measures that
 * whole string's UTF-8 length again, so while a write is in flight every line costs as much as
 * the lines before it (up to 16 KB). Here a line is encoded once and the waiting ones are joined
 * when written. pino flushes it at exit, having made it.
 */
function stdoutDestination(): DestinationStream {
  const boom = pino.destination({ dest: 1, contentMode: 'buffer' });
  // Typed for text, the buffer mode takes Buffers.
  return { write: (line: string) => boom.write(Buffer.from(line) as unknown as string) };
}

/** The service's JSON logger; credentials are redacted from requests and from logged objects. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      serializers: {
        req: (req: LoggedRequest) => ({
          method: req.method,
          url: redactRequestUrl(req.url),
          host: req.hostname,
          ip: req.ip,
        }),
        // Node's URL errors carry the rejected text as `input`, which may hold a password.
        err: (error: Error) => {
          const { input: _input, ...serialized } = pino.stdSerializers.err(error) as Record<string, unknown>;
          return serialized;
        },
      },
    },
    destination ?? stdoutDestination(),
  );
}
