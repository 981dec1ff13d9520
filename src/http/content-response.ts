import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentCall } from '../calls/content.js';
import { sendJob, wantsAsync } from './async-call.js';
import { callerOf } from './auth.js';
import { contentRequest } from './content-schema.js';
import type { AppDeps } from './deps.js';
import { sendEnvelope } from './envelope.js';

/** Runs a content call from a validated request and answers `{success, data}`. */
export async function sendContent(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  input: Parameters<typeof contentRequest>[0],
): Promise<void> {
  const { params, cache } = contentRequest(input);
  if (wantsAsync(input)) {
    await sendJob(deps, request, reply, { engine: 'content', params, cache }, input);
    return;
  }
  sendEnvelope(request, reply, await contentCall(deps.calls, callerOf(request), params, cache));
}
