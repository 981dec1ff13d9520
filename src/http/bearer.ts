import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { WebcapError } from '../errors.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * The token of `Authorization: Bearer <token>` (the scheme's name is case-insensitive, RFC 9110
 * §11.1), undefined without one: the one reader of that header, for operator tokens and the keys
 * MCP clients send alike.
 */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined || header.length < 7 || header.slice(0, 7).toLowerCase() !== 'bearer ')
    return undefined;
  const token = header.slice(7).trim();
  return token === '' ? undefined : token;
}

/**
 * A check of `Authorization: Bearer <token>` against an operator's token (admin API, /metrics):
 * 401 with `what` named when it is missing or wrong. Digests have equal length, so the comparison
 * is constant-time whatever was sent.
 */
export function bearerCheck(token: string, what: string): (request: FastifyRequest) => void {
  const expected = digest(token);
  return (request) => {
    if (!timingSafeEqual(digest(bearerToken(request) ?? ''), expected)) {
      throw new WebcapError('invalid_key', `${what} missing or wrong`);
    }
  };
}
