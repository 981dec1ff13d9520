import { describe, expect, it } from 'vitest';
import { generateKey, hashKey } from './keys.js';

describe('API key material', () => {
  it('prefixes production keys wc_live_ and other categories wc_test_, with 192 random bits', () => {
    expect(generateKey('production')).toMatch(/^wc_live_[A-Za-z0-9_-]{32}$/);
    expect(generateKey('development')).toMatch(/^wc_test_[A-Za-z0-9_-]{32}$/);
    expect(generateKey('staging')).toMatch(/^wc_test_/);
    expect(new Set(Array.from({ length: 100 }, () => generateKey('production'))).size).toBe(100);
  });

  it('hashes with SHA-256, hex', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
