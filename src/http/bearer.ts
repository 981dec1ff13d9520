import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { WebcapError } from '../errors.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * A check of `Authorization: Bearer <token>` against an operator's token (admin API, /metrics):
 * 401 with `what` named when it is missing or wrong. Digests have equal length, so the comparison
 * is constant-time whatever was sent.
 */
export function bearerCheck(token: string, what: string): (request: FastifyRequest) => void {
  const expected = digest(token);
  return (request) => {
    const header = request.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!timingSafeEqual(digest(given), expected)) {
      throw new WebcapError('invalid_key', `${what} missing or wrong`);
    }
  };
}
