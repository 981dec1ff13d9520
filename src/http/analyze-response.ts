import type { FastifyReply, FastifyRequest } from 'fastify';
import { analyzeCall } from '../calls/analyze.js';
import { analyzeRequest } from './analyze-schema.js';
import { sendJob, wantsAsync } from './async-call.js';
import { callerOf } from './auth.js';
import type { AppDeps } from './deps.js';
import { sendEnvelope } from './envelope.js';

/**
 * Runs an analyze call from a validated request and answers `{success, data}`; every answer,
 * errors included, names the configured analyzer in x-webcap-analyzer.
 */
export async function sendAnalysis(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  input: Parameters<typeof analyzeRequest>[0],
): Promise<void> {
  reply.header('x-webcap-analyzer', deps.calls.analyze.analyzer.name);
  const { params, cache } = analyzeRequest(input);
  if (wantsAsync(input)) {
    await sendJob(deps, request, reply, { engine: 'analyze', params, cache }, input);
    return;
  }
  sendEnvelope(request, reply, await analyzeCall(deps.calls, callerOf(request), params, cache));
}
