import type { FastifyReply, FastifyRequest } from 'fastify';
import { enveloped, type JsonOutcome } from '../calls/json-result.js';

/**
 * Answers a call with a JSON result as `{success, data}` (the spec's envelope), with
 * x-webcap-cache when cache=true.
 */
export function sendEnvelope(request: FastifyRequest, reply: FastifyReply, outcome: JsonOutcome): void {
  request.billed = outcome.billed;
  if (outcome.cache !== null) reply.header('x-webcap-cache', outcome.cache);
  reply.type('application/json; charset=utf-8').send(enveloped(outcome.data));
}
