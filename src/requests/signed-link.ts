import { createHmac, type KeyObject } from 'node:crypto';

/*
 * Signed links (docs/signed-links.md): a GET on /v1/capture, /v1/content or /v1/analyze that
 * carries key_id, expires and signature instead of an API key. The signature is the lowercase hex
 * HMAC-SHA256, under the key's signing secret, of the canonical query: every parameter but
 * `signature`, names and values RFC 3986-encoded, sorted by name then value, `name=value` joined
 * with `&`. The server and the signers (CLI, SDK) share this one definition.
 */

/** The parameters a signed link adds to a call's own. */
export const SIGNED_LINK_PARAMS = ['key_id', 'expires', 'signature'] as const;

/** Whether `name` is one of a signed link's own parameters (SIGNED_LINK_PARAMS). */
export function isSignedLinkParam(name: string): boolean {
  return (SIGNED_LINK_PARAMS as readonly string[]).includes(name);
}

/** How far ahead a link may expire: a leaked link spends the key's calls until then or a rotation. */
export const SIGNED_LINK_MAX_SECONDS = 366 * 86_400;

/** A query's name and value pairs, a repeated name once per value. */
export type QueryPairs = Iterable<readonly [string, string]>;

/** RFC 3986 percent-encoding: every byte but the unreserved `A-Z a-z 0-9 - . _ ~`, as UTF-8, upper-case hex. */
export function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The text a signed link's signature covers: every pair but `signature`, encoded, sorted by
 * encoded name then encoded value (plain ASCII order), as `name=value` joined with `&`.
 * Throws URIError on a string that is not well-formed UTF-16 (a lone surrogate).
 */
export function canonicalQuery(pairs: QueryPairs): string {
  const encoded: [string, string][] = [];
  for (const [name, value] of pairs) {
    if (name !== 'signature') encoded.push([rfc3986(name), rfc3986(value)]);
  }
  encoded.sort(
    ([nameA, valueA], [nameB, valueB]) => byCodeUnits(nameA, nameB) || byCodeUnits(valueA, valueB),
  );
  return encoded.map(([name, value]) => `${name}=${value}`).join('&');
}

/**
 * The HMAC-SHA256 of a canonical query under a signing secret: its UTF-8 bytes, or a key made of
 * them once (createSecretKey), which spares the server the key's setup on every request.
 */
export function querySignatureBytes(signingSecret: string | KeyObject, canonical: string): Buffer {
  return createHmac('sha256', signingSecret).update(canonical, 'utf8').digest();
}

/** The lowercase hex HMAC-SHA256 of a canonical query under a signing secret (its UTF-8 bytes). */
export function querySignature(signingSecret: string, canonical: string): string {
  return querySignatureBytes(signingSecret, canonical).toString('hex');
}

/** A parameter's value or values, as a caller gives them to a signer. */
export type LinkParams = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** Pairs of a parameter record, a list once per item, numbers and booleans as their text. */
export function pairsOf(params: LinkParams): [string, string][] {
  return Object.entries(params).flatMap(([name, value]) =>
    Array.isArray(value)
      ? value.map((item: string) => [name, item] as [string, string])
      : [[name, String(value)]],
  );
}

/**
 * The query string of a signed link: the call's parameters with key_id and expires added, then
 * the signature; the same canonical text, so that the link reads as it was signed.
 */
export function signedQueryString(
  params: LinkParams,
  link: { readonly keyId: string; readonly expires: number; readonly signingSecret: string },
): string {
  const reserved = Object.keys(params).filter((name) => name === 'x_api_key' || isSignedLinkParam(name));
  if (reserved.length > 0) throw new Error(`a signed link's parameters cannot name ${reserved.join(', ')}`);
  const pairs: [string, string][] = [
    ...pairsOf(params),
    ['key_id', link.keyId],
    ['expires', String(link.expires)],
  ];
  const canonical = canonicalQuery(pairs);
  return `${canonical}&signature=${querySignature(link.signingSecret, canonical)}`;
}
