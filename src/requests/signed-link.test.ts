import { describe, expect, it } from 'vitest';
import { canonicalQuery, querySignature, rfc3986, signedQueryString } from './signed-link.js';

// The test vector of docs/signed-links.md; the signature was computed apart, with
// `printf '%s' "$CANONICAL" | openssl dgst -sha256 -hmac "$SECRET"`.
const SECRET = 'wcs_test-vector-secret';
const PARAMS = {
  url: 'https://example.com/a b?x=1&y=2',
  format: 'png',
  text: "it's (café)*!~",
  x: ['b', 'a'],
};
const LINK = { keyId: 'key_0123456789abcdef', expires: 1_767_225_600, signingSecret: SECRET };
const CANONICAL =
  'expires=1767225600&format=png&key_id=key_0123456789abcdef&text=it%27s%20%28caf%C3%A9%29%2A%21~' +
  '&url=https%3A%2F%2Fexample.com%2Fa%20b%3Fx%3D1%26y%3D2&x=a&x=b';
const SIGNATURE = '00d849e85a23ef8026d9a8c224669dd6b4bc650a2cc02f1e05d409ee7bfd7e85';

describe('signed links', () => {
  it('encodes as RFC 3986: every byte but A-Z a-z 0-9 - . _ ~, UTF-8, upper-case hex', () => {
    expect(rfc3986("a b+c/?&=é!'()*~-._")).toBe('a%20b%2Bc%2F%3F%26%3D%C3%A9%21%27%28%29%2A~-._');
  });

  it('the test vector: names sorted, a repeated name sorted by value, signature excluded', () => {
    const pairs: [string, string][] = [
      ['x', 'b'],
      ['url', PARAMS.url],
      ['signature', 'ignored'],
      ['text', PARAMS.text],
      ['key_id', LINK.keyId],
      ['format', 'png'],
      ['expires', String(LINK.expires)],
      ['x', 'a'],
    ];
    expect(canonicalQuery(pairs)).toBe(CANONICAL);
    expect(querySignature(SECRET, CANONICAL)).toBe(SIGNATURE);
  });

  it('a signed query string is the canonical query and its signature, whatever order the params came in', () => {
    expect(signedQueryString(PARAMS, LINK)).toBe(`${CANONICAL}&signature=${SIGNATURE}`);
    const reordered = { x: ['a', 'b'], text: PARAMS.text, format: 'png', url: PARAMS.url };
    expect(signedQueryString(reordered, LINK)).toBe(`${CANONICAL}&signature=${SIGNATURE}`);
  });

  it('sorts by encoded names in plain ASCII order, not by locale', () => {
    expect(
      canonicalQuery([
        ['b', '1'],
        ['B', '1'],
        ['a_b', '1'],
        ['a-b', '1'],
      ]),
    ).toBe('B=1&a-b=1&a_b=1&b=1');
  });

  it('a parameter of the link itself, or an API key, cannot be given as a call parameter', () => {
    for (const name of ['key_id', 'expires', 'signature', 'x_api_key']) {
      expect(() => signedQueryString({ [name]: 'x' }, LINK)).toThrow(name);
    }
  });

  it('a lone surrogate is refused, not signed as something else', () => {
    expect(() => canonicalQuery([['text', '\ud800']])).toThrow(URIError);
  });
});
