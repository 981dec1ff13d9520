/**
 * What the request log keeps of a call's target URL and of its error: bounded, and the URL without
 * what would let a reader of the console act as the caller at the target (its credentials, and
 * the values of query parameters whose names say they are secret).
 */

/** Longest target URL a request-log row keeps, in characters. */
export const MAX_TARGET_CHARS = 2048;
/** Longest error text a request-log row keeps, in characters. */
export const MAX_ERROR_CHARS = 500;

/** What a redacted value reads. */
const REDACTED = '***';

/**
 * Words that make a parameter name a secret's (`access_token`, `X-Amz-Signature`, `apiKey`,
 * `client_secret`): matched against the name's words, so `keyword` or `author` stay readable.
 */
const SECRET_WORDS = new Set([
  'token',
  'key',
  'apikey',
  'secret',
  'password',
  'passwd',
  'pwd',
  'signature',
  'sig',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'jwt',
]);

const isLower = (code: number) => code >= 97 && code <= 122;
const isUpper = (code: number) => code >= 65 && code <= 90;
const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * Whether a parameter name looks like a secret's: one of its words (split at anything but letters
 * and digits, and where camelCase turns upper) is a secret word. A linear scan, no regular
 * expression: the name is the caller's.
 */
export function looksSecret(name: string): boolean {
  let word = '';
  for (let i = 0; i <= name.length; i++) {
    const code = i < name.length ? name.charCodeAt(i) : 0;
    const letterOrDigit = isLower(code) || isUpper(code) || isDigit(code);
    const camelBreak = isUpper(code) && i > 0 && isLower(name.charCodeAt(i - 1));
    if (!letterOrDigit || camelBreak) {
      if (SECRET_WORDS.has(word)) return true;
      word = '';
    }
    if (letterOrDigit) word += String.fromCharCode(isUpper(code) ? code + 32 : code);
  }
  return false;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}

/** `a=1&token=x` with each secret-named value replaced; everything else as it was written. */
function redactPairs(text: string): string {
  if (!text.includes('=')) return text;
  return text
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1 || !looksSecret(decodedName(pair.slice(0, eq)))) return pair;
      return `${pair.slice(0, eq)}=${REDACTED}`;
    })
    .join('&');
}

/** `text` cut to at most `max` characters (the last one an ellipsis), never inside a surrogate pair. */
export function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * The target URL as the request log keeps it: parsed as WHATWG URL (what the service would
 * fetch), without user name and password, with secret-named query and fragment values replaced
 * by `***`, at most MAX_TARGET_CHARS. Null for text that is no http(s) URL: the error says why it
 * was refused, and text that does not parse as one cannot be told free of credentials.
 */
export function loggedTargetUrl(raw: string | null): string | null {
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  // Only what the service would fetch: `user:password@host` parses as a URL of scheme `user:`.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.username = '';
  url.password = '';
  if (url.search !== '') url.search = redactPairs(url.search.slice(1));
  if (url.hash !== '') url.hash = redactPairs(url.hash.slice(1));
  return bounded(url.href, MAX_TARGET_CHARS);
}

/** The error text as the request log keeps it: at most MAX_ERROR_CHARS. */
export function loggedError(text: string | null): string | null {
  return text === null ? null : bounded(text, MAX_ERROR_CHARS);
}
