import { WebcapError } from '../errors.js';

// The words a caller reads in "page could not be loaded (<words> (<code>))" for common failures.
const WORDS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ENODATA: 'host has no address',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed',
  HPE_INVALID_CONSTANT: 'invalid HTTP response',
  Z_DATA_ERROR: 'content decoding failed',
  Z_BUF_ERROR: 'content decoding failed',
  ERR__ZLIB_INITIALIZATION_FAILED: 'content decoding failed',
};

function codeOf(error: unknown): string | undefined {
  // undici and zlib wrap the system error: the first code along the cause chain names it.
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/** A short, address-free description of a network failure, such as "connection refused (ECONNREFUSED)". */
export function describeNetworkError(error: unknown): string {
  const code = codeOf(error);
  if (code === undefined) return 'network error';
  const words = WORDS[code] ?? (/CERT|TLS|SSL/.test(code) ? 'TLS error' : undefined);
  return words === undefined ? code : `${words} (${code})`;
}

/** A 'target_unreachable' error (400 "page could not be loaded (...)") for a network failure. */
export function unreachable(error: unknown): WebcapError {
  return new WebcapError('target_unreachable', describeNetworkError(error), { cause: error });
}
