import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { WebcapError } from '../errors.js';
import { bearerCheck, bearerToken } from './bearer.js';

const request = (authorization?: string) =>
  ({ headers: authorization === undefined ? {} : { authorization } }) as FastifyRequest;

describe('bearerToken', () => {
  it('reads the token whatever the case of the scheme, trimmed', () => {
    expect(bearerToken(request('Bearer abc'))).toBe('abc');
    expect(bearerToken(request('bearer abc '))).toBe('abc');
    expect(bearerToken(request('BEARER  abc'))).toBe('abc');
  });

  it('is undefined without a bearer token', () => {
    for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Bearer   ', 'Basic YWJj', 'Bearerabc']) {
      expect(bearerToken(request(header)), String(header)).toBeUndefined();
    }
  });
});

describe('bearerCheck', () => {
  const check = bearerCheck('the-operator-token-0000', 'admin token');

  it('passes the token and refuses anything else with a 401 naming what is missing', () => {
    expect(() => check(request('Bearer the-operator-token-0000'))).not.toThrow();
    for (const header of [undefined, 'Bearer the-operator-token-000', 'Bearer ', 'the-operator-token-0000']) {
      const refused = (() => {
        try {
          check(request(header));
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(WebcapError);
      expect((refused as WebcapError).code).toBe('invalid_key');
      expect((refused as WebcapError).detail).toBe('admin token missing or wrong');
    }
  });
});
