import { describe, expect, it } from 'vitest';
import {
  bounded,
  loggedError,
  loggedTargetUrl,
  looksSecret,
  MAX_ERROR_CHARS,
  MAX_TARGET_CHARS,
} from './logged-target.js';

describe('loggedTargetUrl', () => {
  it('keeps an ordinary URL as the service would fetch it', () => {
    expect(loggedTargetUrl('https://example.com/a?q=shoes&page=2#top')).toBe(
      'https://example.com/a?q=shoes&page=2#top',
    );
    expect(loggedTargetUrl('HTTP://Example.COM')).toBe('http://example.com/');
  });

  it('drops the credentials of the URL', () => {
    expect(loggedTargetUrl('https://ana:hunter2@example.com/private')).toBe('https://example.com/private');
    expect(loggedTargetUrl('https://token-only@example.com/')).toBe('https://example.com/');
  });

  it('replaces the values of query and fragment parameters whose names look secret', () => {
    expect(
      loggedTargetUrl(
        'https://example.com/p?token=t1&key=k1&secret=s1&password=p1&signature=g1&auth=a1&sig=x1&apikey=y1&api_key=z1&access_token=w1&q=kept',
      ),
    ).toBe(
      'https://example.com/p?token=***&key=***&secret=***&password=***&signature=***&auth=***&sig=***&apikey=***&api_key=***&access_token=***&q=kept',
    );
    expect(loggedTargetUrl('https://s3.example/o?X-Amz-Signature=abc&X-Amz-Date=20260101&apiKey=1')).toBe(
      'https://s3.example/o?X-Amz-Signature=***&X-Amz-Date=20260101&apiKey=***',
    );
    expect(loggedTargetUrl('https://app.example/cb#access_token=abc&state=xyz')).toBe(
      'https://app.example/cb#access_token=***&state=xyz',
    );
    // A percent-encoded name is read as the target would read it.
    expect(loggedTargetUrl('https://example.com/?%74oken=abc')).toBe('https://example.com/?%74oken=***');
  });

  it('keeps what only resembles a secret name, and names without a value', () => {
    expect(loggedTargetUrl('https://example.com/?keyword=shoes&author=ana&monkey=1&token')).toBe(
      'https://example.com/?keyword=shoes&author=ana&monkey=1&token',
    );
  });

  it('keeps no text that is not a URL, and bounds a long one', () => {
    expect(loggedTargetUrl('not a url')).toBeNull();
    expect(loggedTargetUrl('ana:hunter2@example.com')).toBeNull();
    expect(loggedTargetUrl('ftp://ana:hunter2@example.com/')).toBeNull();
    expect(loggedTargetUrl('http:ana:hunter2@example.com/')).toBe('http://example.com/');
    expect(loggedTargetUrl(null)).toBeNull();
    const long = loggedTargetUrl(`https://example.com/${'a'.repeat(5000)}`);
    expect(long).toHaveLength(MAX_TARGET_CHARS);
    expect(long?.endsWith('a…')).toBe(true);
  });
});

describe('looksSecret', () => {
  it.each([
    ['token', true],
    ['ACCESS_TOKEN', true],
    ['refreshToken', true],
    ['client-secret', true],
    ['x.sig', true],
    ['authorization', true],
    ['keys', false],
    ['tokens', false],
    ['keyword', false],
    ['', false],
  ])('%s: %s', (name, secret) => {
    expect(looksSecret(name)).toBe(secret);
  });
});

describe('bounded and loggedError', () => {
  it('cuts at the bound with an ellipsis, never inside a surrogate pair', () => {
    expect(bounded('abcdef', 4)).toBe('abc…');
    expect(bounded('abc', 4)).toBe('abc');
    expect(bounded('ab😀cd', 4)).toBe('ab…');
    expect(loggedError('x'.repeat(600))).toHaveLength(MAX_ERROR_CHARS);
    expect(loggedError(null)).toBeNull();
  });
});
