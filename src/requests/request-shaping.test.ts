import { describe, expect, it } from 'vitest';
import { requestShapingOf } from './request-shaping.js';

const URL_ = 'https://www.example.com/page';

describe('requestShapingOf', () => {
  it('is undefined when nothing is shaped, so the engine params and cache key stay as they were', () => {
    expect(requestShapingOf({}, URL_)).toBeUndefined();
    expect(requestShapingOf({ headers: '', cookies: '' }, URL_)).toBeUndefined();
  });

  it('reads headers as an object, its JSON text or lines, names in lower case', () => {
    const expected = { 'x-a': 'one', 'x-b': 'two: three' };
    for (const headers of [
      { 'X-A': 'one', 'X-B': 'two: three' },
      '{"X-A": "one", "X-B": "two: three"}',
      'X-A: one\r\n\r\nX-B:two: three\n',
    ]) {
      expect(requestShapingOf({ headers }, URL_)?.headers).toEqual(expected);
    }
  });

  it('reads cookies as a list or name=value pairs, host-only unless a domain is given', () => {
    expect(requestShapingOf({ cookies: 'a=1; b = x=y ;' }, URL_)?.cookies).toEqual([
      {
        name: 'a',
        value: '1',
        domain: null,
        path: '/',
        secure: false,
        httpOnly: false,
        sameSite: null,
        expires: null,
      },
      {
        name: 'b',
        value: 'x=y',
        domain: null,
        path: '/',
        secure: false,
        httpOnly: false,
        sameSite: null,
        expires: null,
      },
    ]);
    const [cookie] =
      requestShapingOf(
        {
          cookies: [
            { name: 's', value: 'v', domain: '.Example.com', secure: true, sameSite: 'None', expires: 2e9 },
          ],
        },
        URL_,
      )?.cookies ?? [];
    expect(cookie).toMatchObject({ domain: 'example.com', secure: true, sameSite: 'None', expires: 2e9 });
  });

  it.each([
    ['www.example.com', true],
    ['example.com', true],
    ['ample.com', false],
    ['com', false],
    ['other.example.com', false],
    ['evil.test', false],
  ])('a cookie for %s on www.example.com: accepted %s', (domain, accepted) => {
    const shape = () => requestShapingOf({ cookies: [{ name: 's', value: 'v', domain }] }, URL_);
    if (accepted) expect(shape()?.cookies[0]?.domain).toBe(domain);
    else expect(shape).toThrow(/not the target's host or a parent of it/);
  });

  it('an IP address target takes a cookie for itself only', () => {
    const ip = 'http://127.0.0.1:8080/';
    expect(requestShapingOf({ cookies: [{ name: 's', value: 'v', domain: '127.0.0.1' }] }, ip)).toBeDefined();
    expect(() => requestShapingOf({ cookies: [{ name: 's', value: 'v', domain: '0.0.1' }] }, ip)).toThrow(
      /not the target's host/,
    );
  });

  it('canonicalizes the time zone and keeps the flags three-valued', () => {
    const shaping = requestShapingOf({ time_zone: 'utc', dark_mode: '0', reduced_motion: true }, URL_);
    expect(shaping).toMatchObject({ timeZone: 'UTC', darkMode: false, reducedMotion: true, mediaType: null });
  });

  it('never quotes a header value or cookie value in its errors', () => {
    expect(() => requestShapingOf({ headers: { 'X-A': 'secret\u0000' } }, URL_)).toThrow(
      /headers header "X-A" must have a value/,
    );
    expect(() => requestShapingOf({ headers: { 'X-A': 'secret\u0000' } }, URL_)).not.toThrow(/secret/);
    expect(() => requestShapingOf({ cookies: 'a=secret;b' }, URL_)).not.toThrow(/secret/);
  });
});
