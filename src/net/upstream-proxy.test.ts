import { describe, expect, it } from 'vitest';
import { WebcapError } from '../errors.js';
import { parseUpstreamProxy, proxyAuthorization } from './upstream-proxy.js';

describe('parseUpstreamProxy', () => {
  it('parses http, https and socks5 URLs with credentials and default ports', () => {
    expect(parseUpstreamProxy('http://user:p%40ss@proxy.example:3128')).toEqual({
      protocol: 'http:',
      host: 'proxy.example',
      port: 3128,
      username: 'user',
      password: 'p@ss',
    });
    expect(parseUpstreamProxy('https://proxy.example/')).toMatchObject({ protocol: 'https:', port: 443 });
    expect(parseUpstreamProxy('socks5://u:p@[2001:db8::1]:80')).toMatchObject({
      protocol: 'socks5:',
      host: '2001:db8::1',
      port: 80,
    });
    expect(parseUpstreamProxy('socks5h://proxy.example')).toMatchObject({ protocol: 'socks5:', port: 1080 });
  });

  it('normalizes a socks5 host the way a browser parses an http host, so the policy sees the address', () => {
    expect(parseUpstreamProxy('socks5://0x7f.1:1080').host).toBe('127.0.0.1');
    expect(parseUpstreamProxy('socks5://2130706433:1080').host).toBe('127.0.0.1');
  });

  it.each([
    ['ftp://proxy.example:21'],
    ['socks4://proxy.example:1080'],
    ['proxy.example:3128'],
    ['http://proxy.example:3128/path'],
    ['http://proxy.example:3128/?q=1'],
    ['socks5://:1080'],
    ['socks5:'],
    ['socks5://'],
    ['socks5://a%zz:1080'],
    ['socks5://proxy.example:0'],
    ['http://proxy.example:99999'],
    [''],
  ])('refuses %j naming the parameter', (raw) => {
    let error: unknown;
    try {
      parseUpstreamProxy(raw);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WebcapError);
    expect((error as WebcapError).code).toBe('bad_request');
    expect((error as WebcapError).detail).toMatch(/^proxy must be an http, https or socks5 URL/);
  });

  it('refuses credentials with a malformed %-escape naming the parameter', () => {
    expect(() => parseUpstreamProxy('http://us%ZZer:pw@127.0.0.1:8190')).toThrow(
      /proxy has a user name or password with a malformed %-escape/,
    );
    expect(() => parseUpstreamProxy('socks5://user:p%E0%A4w@proxy.example:1080')).toThrow(WebcapError);
  });

  it('builds Basic credentials only when some are given', () => {
    expect(proxyAuthorization(parseUpstreamProxy('http://u:p@proxy.example:1'))).toBe(
      `Basic ${Buffer.from('u:p').toString('base64')}`,
    );
    expect(proxyAuthorization(parseUpstreamProxy('http://proxy.example:1'))).toBeNull();
  });
});
