import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CallSpec } from '../calls/call-spec.js';
import { invalidParam } from '../errors.js';
import { callerOf } from './auth.js';
import type { AppDeps } from './deps.js';
import { flag } from './schemas.js';

/** The async parameters of a validated request (schemas.ts asyncFields). */
export interface AsyncInput {
  readonly is_async?: boolean | '1' | '0';
  readonly webhook_url?: string;
}

/** Whether the call is to run as a job; webhook_url without is_async is a 400. */
export function wantsAsync(input: AsyncInput): boolean {
  const isAsync = flag(input.is_async);
  if (!isAsync && input.webhook_url !== undefined) throw invalidParam('webhook_url', 'needs is_async=true');
  return isAsync;
}

// Printable ASCII without spaces at the ends, as the IETF Idempotency-Key draft's examples use.
const IDEMPOTENCY_KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

function idempotencyKeyOf(request: FastifyRequest): string | null {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !IDEMPOTENCY_KEY.test(raw)) {
    throw invalidParam('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
  }
  return raw;
}

/**
 * Submits the call as an async job and answers 202 with the job to poll (DESIGN.md §2); a
 * resubmission with the same Idempotency-Key answers the first job, with Idempotent-Replayed.
 */
export async function sendJob(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  spec: CallSpec,
  input: AsyncInput,
): Promise<FastifyReply> {
  const { job, replayed } = await deps.jobs.submit(callerOf(request), {
    spec,
    path: request.routeOptions.url ?? request.url,
    webhookUrl: input.webhook_url?.trim() ?? null,
    idempotencyKey: idempotencyKeyOf(request),
  });
  const statusUrl = `/jobs/${job.id}`;
  if (replayed) reply.header('idempotent-replayed', 'true');
  return reply
    .code(202)
    .header('location', statusUrl)
    .send({ success: true, job_id: job.id, status: job.status, status_url: statusUrl });
}
