import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentCall } from '../calls/content.js';
import type { ContentResult } from '../engines/content/params.js';
import type { AppDeps } from './app.js';
import { callerOf } from './auth.js';
import { contentRequest } from './content-schema.js';

/** Runs a content call from a validated request; the body is `{success, data}`, with x-webcap-cache when cache=true. */
export async function answerContent(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  input: Parameters<typeof contentRequest>[0],
): Promise<{ success: true; data: ContentResult }> {
  const { params, cache } = contentRequest(input);
  const outcome = await contentCall(deps.calls, callerOf(request), params, cache);
  request.billed = outcome.billed;
  if (outcome.cache !== null) reply.header('x-webcap-cache', outcome.cache);
  return { success: true, data: outcome.result };
}
