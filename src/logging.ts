import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** Query parameters whose values are secrets: API keys, storage credentials, a hosted file's signature. */
const SECRET_PARAMS = new Set(['x_api_key', 'access_key', 's3_secret_key', 's3_access_key_id', 'signature']);

/** Parameters that may carry credentials in a URL's userinfo (`scheme://user:pass@host`). */
const USERINFO_PARAMS = new Set(['proxy', 'storage_endpoint']);

/** The request URL with every credential in its query replaced, so that it can be logged. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return url;
  const pairs = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, eq).replaceAll('+', ' ')).toLowerCase();
      } catch {
        return pair;
      }
      if (SECRET_PARAMS.has(name)) return `${pair.slice(0, eq)}=[REDACTED]`;
      if (USERINFO_PARAMS.has(name)) return `${pair.slice(0, eq)}=${redactUserinfo(pair.slice(eq + 1))}`;
      return pair;
    });
  return `${url.slice(0, at)}?${pairs.join('&')}`;
}

function redactUserinfo(encoded: string): string {
  let value: string;
  try {
    value = decodeURIComponent(encoded.replaceAll('+', ' '));
  } catch {
    return '[REDACTED]';
  }
  return value.includes('@') ? encodeURIComponent(value.replace(/\/\/[^/]*@/, '//[REDACTED]@')) : encoded;
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
];

interface LoggedRequest {
  method: string;
  url: string;
  hostname?: string;
  ip?: string;
  id?: string;
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
          url: redactUrl(req.url),
          host: req.hostname,
          ip: req.ip,
        }),
        err: pino.stdSerializers.err,
      },
    },
    destination ?? pino.destination(1),
  );
}
