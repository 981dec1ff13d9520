import { describe, expect, it } from 'vitest';
import { parseTrustProxy } from './trust-proxy.js';

describe('parseTrustProxy', () => {
  it('reads none, a hop count, or the proxies’ addresses and ranges', () => {
    expect(parseTrustProxy('')).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('10')).toBe(10);
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.7,fd00::/8,::1')).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      '::1',
    ]);
  });

  it('refuses anything else, trusting every peer included', () => {
    for (const raw of [
      'true',
      '0',
      '11',
      '-1',
      '1.5',
      'proxy',
      '10.0.0.0/33',
      '::/129',
      '10.0.0.1/8/1',
      '10.0.0.0/',
      '300.0.0.1',
    ]) {
      expect(parseTrustProxy(raw), raw).toBeUndefined();
    }
  });
});
