import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Delivery } from '../calls/capture.js';
import { captureCall } from '../calls/capture.js';
import type { CaptureParams } from '../engines/capture/params.js';
import { type AsyncInput, sendJob, wantsAsync } from './async-call.js';
import { callerOf } from './auth.js';
import type { AppDeps } from './deps.js';

/** Where hosted files are linked from: PUBLIC_BASE_URL, else the address the request came to. */
export function baseUrlOf(deps: AppDeps, request: FastifyRequest): string {
  return deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
}

/** Runs a capture call and answers it as the caller asked: the bytes, or the JSON body. */
export async function sendCapture(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  params: CaptureParams,
  delivery: Delivery,
  input: AsyncInput,
): Promise<FastifyReply> {
  if (wantsAsync(input)) {
    // A job's result is JSON: an image becomes its hosted link (DESIGN.md §2).
    const responseType = delivery.responseType === 'base64' ? 'base64' : 'json';
    return sendJob(
      deps,
      request,
      reply,
      { engine: 'capture', params, delivery: { ...delivery, responseType } },
      input,
    );
  }
  const outcome = await captureCall(deps.calls, callerOf(request), params, delivery);
  request.billed = outcome.billed;
  if (outcome.cache !== null) reply.header('x-webcap-cache', outcome.cache);
  // One header, the warnings joined: they are the service's own sentences, without '; ' or line breaks.
  const { warnings } = outcome.result;
  if (warnings.length > 0) reply.header('x-webcap-warning', warnings.join('; '));
  if (outcome.body !== null) return reply.send(outcome.body);
  return reply.type(outcome.result.contentType).send(outcome.result.bytes);
}
