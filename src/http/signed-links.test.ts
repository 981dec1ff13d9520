import { describe, expect, it } from 'vitest';
import { withoutSignedLinkParams } from './signed-links.js';
import { UrlMemo } from './url-memo.js';

describe('withoutSignedLinkParams', () => {
  it("drops key_id, expires and signature, and keeps the call's own parameters in order", () => {
    expect(
      withoutSignedLinkParams(
        '/v1/capture?cache=true&expires=9&key_id=k&signature=00&url=https%3A%2F%2Fa.example',
      ),
    ).toBe('/v1/capture?cache=true&url=https%3A%2F%2Fa.example');
    expect(withoutSignedLinkParams('/v1/capture?key_id=k&expires=9&signature')).toBe('/v1/capture');
    expect(withoutSignedLinkParams('/v1/capture')).toBe('/v1/capture');
  });

  it('keeps a signature spelt otherwise, so the memo, which keeps no credential, keeps no such URL', () => {
    const url = withoutSignedLinkParams('/v1/capture?url=https%3A%2F%2Fa.example&%73ignature=00&key_id=k');
    expect(url).toBe('/v1/capture?url=https%3A%2F%2Fa.example&%73ignature=00');
    const memo = new UrlMemo<number>();
    memo.remember(url, url, 1);
    expect(memo.size).toBe(0);
  });
});
