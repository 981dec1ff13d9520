import { describe, expect, it } from 'vitest';
import { deepFrozen, UrlMemo } from './url-memo.js';

describe('UrlMemo', () => {
  it('keeps a value per key, the least recently used going first', () => {
    const memo = new UrlMemo<number>({ entries: 2, keyChars: 100 });
    memo.remember('/a', '/a', 1);
    memo.remember('/b', '/b', 2);
    expect(memo.get('/a')).toBe(1);
    memo.remember('/c', '/c', 3);
    expect(memo.get('/b')).toBeUndefined();
    expect([memo.get('/a'), memo.get('/c'), memo.size]).toEqual([1, 3, 2]);
  });

  it('keeps no key longer than its bound', () => {
    const memo = new UrlMemo<number>({ entries: 2, keyChars: 10 });
    memo.remember('/v1/capture?url=long', '/v1/capture?url=long', 1);
    expect(memo.size).toBe(0);
  });

  it('never keeps a URL that holds a credential', () => {
    const memo = new UrlMemo<number>();
    for (const url of [
      '/v1/capture?url=https://example.com&x_api_key=k',
      '/v1/capture?url=https://example.com&x%5Fapi%5Fkey=k',
      '/v1/capture?url=https://example.com&key_id=a&expires=1&signature=00',
      '/v1/capture?url=https://user:pw@example.com',
      '/v1/capture?url=https://example.com&headers=a',
      '/v1/capture?url=https://example.com&s3_secret_key=s',
      '/v1/capture?html=<p>mine</p>',
    ]) {
      memo.remember(url, url, 1);
    }
    expect(memo.size).toBe(0);
    memo.remember('/v1/capture?url=https://example.com', '/v1/capture?url=https://example.com', 1);
    expect(memo.size).toBe(1);
  });
});

describe('deepFrozen', () => {
  it('freezes plain objects and arrays at every depth, so a change throws', () => {
    const value = deepFrozen({ a: { list: ['x'] }, b: null });
    expect(() => {
      (value.a.list as string[]).push('y');
    }).toThrow(TypeError);
    expect(Object.isFrozen(value.a)).toBe(true);
  });
});
