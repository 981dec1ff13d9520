/*
 * Signed links (docs/signed-links.md): a GET on /v1/capture, /v1/content or /v1/analyze that a
 * web page can embed (`<img src>`) without the API key. The signature is the lowercase hex
 * HMAC-SHA256, under the key's signing secret, of the canonical query: every parameter but
 * `signature`, names and values RFC 3986-encoded, sorted by name then value (plain ASCII order),
 * `name=value` joined with `&`. WebCrypto only, so it runs in Node, Deno, Bun and workers; sign on a
 * server: the signing secret must never reach a browser.
 */

/** The endpoints that take signed links. */
export type SignedEndpoint = 'capture' | 'content' | 'analyze';

/** A parameter's value, or the values of a repeated one. */
export type SignedParamValue = string | number | boolean | readonly (string | number | boolean)[];

export interface SignUrlInput {
  /** The service's base URL, such as `https://webcap.example.com`. */
  readonly baseUrl: string;
  /** Which call the link makes; `capture` when absent. */
  readonly endpoint?: SignedEndpoint;
  /** The call's parameters (`url`, `format`, `full_page`, ...); objects and lists as the API takes them in a query. */
  readonly params: Readonly<Record<string, SignedParamValue | undefined>>;
  /** The id of the key that signs (`key_…`, as the admin API and console show it). */
  readonly keyId: string;
  /** The key's signing secret (`wcs_…`), shown once when the key was made or its secret rotated. */
  readonly signingSecret: string;
  /** When the link stops working: a Date, or Unix seconds. At most 366 days ahead. */
  readonly expires: Date | number;
}

const encoder = new TextEncoder();

/** RFC 3986 percent-encoding: every byte but `A-Z a-z 0-9 - . _ ~`, as UTF-8, upper-case hex. */
export function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The canonical query of name and value pairs: the text a signed link's signature covers. */
export function canonicalQuery(pairs: Iterable<readonly [string, string]>): string {
  const encoded: [string, string][] = [];
  for (const [name, value] of pairs) {
    if (name !== 'signature') encoded.push([rfc3986(name), rfc3986(value)]);
  }
  encoded.sort(
    ([nameA, valueA], [nameB, valueB]) => byCodeUnits(nameA, nameB) || byCodeUnits(valueA, valueB),
  );
  return encoded.map(([name, value]) => `${name}=${value}`).join('&');
}

const RESERVED = new Set(['key_id', 'expires', 'signature', 'x_api_key']);

/**
 * The signed link to a call: its parameters with `key_id` and `expires`, then `signature`. A pure
 * function of its input (no network); throws on a parameter the link sets itself or an API key.
 */
export async function signUrl(input: SignUrlInput): Promise<string> {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(input.params)) {
    if (value === undefined) continue;
    if (RESERVED.has(name)) throw new Error(`a signed link's parameters cannot name ${name}`);
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([name, String(item)]);
  }
  const expires =
    input.expires instanceof Date ? Math.floor(input.expires.getTime() / 1000) : Math.floor(input.expires);
  pairs.push(['key_id', input.keyId], ['expires', String(expires)]);
  const canonical = canonicalQuery(pairs);
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(input.signingSecret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(canonical)));
  const signature = Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
  const base = input.baseUrl.replace(/\/+$/, '');
  return `${base}/v1/${input.endpoint ?? 'capture'}?${canonical}&signature=${signature}`;
}
