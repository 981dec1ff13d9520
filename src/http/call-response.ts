import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { asJob, type CallSpec, type JobSpec, performCall } from '../calls/call-spec.js';
import { crawlerBody } from '../calls/crawler.js';
import { enveloped, succeeded } from '../calls/json-result.js';
import { invalidParam } from '../errors.js';
import { type AsyncInput, wantsAsync } from '../requests/common-fields.js';
import { callerOf } from './auth.js';
import type { AppDeps } from './deps.js';
import { signedCaching } from './signed-links.js';

/** Where hosted files are linked from: PUBLIC_BASE_URL, else the address the request came to. */
export function baseUrlOf(deps: AppDeps, request: FastifyRequest): string {
  return deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
}

// Printable ASCII without spaces at the ends, as the IETF Idempotency-Key draft's examples use.
const IDEMPOTENCY_KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/**
 * The Idempotency-Key header as the document declares it, on every operation that reads it (a
 * billable call, which may be a job, a crawl or a batch). Only its type: idempotencyKeyOf checks
 * the value, so that a wrong one is refused with the same message wherever it is read.
 */
export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'with is_async=true (and on a crawl or batch): 1 to 255 printable ASCII characters naming the submission; sent again within 24 hours with the same parameters, it answers the first job, crawl or batch (Idempotent-Replayed: true) instead of starting another; with other parameters it is a 400',
    }),
  ),
});

/** The request's Idempotency-Key header, null without one; a 400 when it is not a key. */
export function idempotencyKeyOf(request: FastifyRequest): string | null {
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
async function sendJob(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  spec: JobSpec,
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

const JSON_TYPE = 'application/json; charset=utf-8';

/** The result cache's TTL of a call, null when it keeps none. */
function cacheTtlOf(spec: CallSpec): number | null {
  switch (spec.engine) {
    case 'capture':
      return spec.delivery.cache?.ttlSeconds ?? null;
    case 'content':
    case 'analyze':
    case 'extract':
    case 'map':
      return spec.cache?.ttlSeconds ?? null;
    case 'website-crawler':
      return null;
  }
}

/**
 * Answers a billable call: as a job (is_async=true, 202), or run now and sent in the form its
 * endpoint answers: a capture's bytes or its JSON body, a JSON result in `{success, data}`, the
 * crawler's JSON or page source. The one place where that choice is made.
 */
export async function answerCall(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  input: AsyncInput,
  spec: CallSpec,
): Promise<FastifyReply> {
  const link = request.signedLink;
  if (wantsAsync(input)) {
    // A job is polled, and its result fetched, with a key: a page embedding a link has none.
    if (link !== null) throw invalidParam('is_async', 'is not taken by a signed link: it answers at once');
    return sendJob(deps, request, reply, asJob(spec), input);
  }
  const done = await performCall(deps.calls, callerOf(request), spec);
  request.billed = done.outcome.billed;
  if (done.outcome.cache !== null) reply.header('x-webcap-cache', done.outcome.cache);
  // A signed link's answer may be kept by browsers and CDNs, and revalidated with its ETag.
  const send = (payload: Uint8Array | object): FastifyReply => {
    if (link === null) return reply.send(payload);
    const bytes = payload instanceof Uint8Array ? payload : JSON.stringify(payload);
    const caching = { cacheTtlSeconds: cacheTtlOf(spec), fileUrlTtlSeconds: deps.config.fileUrlTtlSeconds };
    const fresh = signedCaching(request, reply, link, { ...caching, now: deps.clock() }, bytes);
    return fresh ? reply.code(304).send() : reply.send(payload);
  };
  switch (done.engine) {
    case 'capture': {
      const { result, body } = done.outcome.value;
      // One header, the warnings joined: they are the service's own sentences, without '; ' or line breaks.
      if (result.warnings.length > 0) reply.header('x-webcap-warning', result.warnings.join('; '));
      if (body !== null) return send(body);
      reply.type(result.contentType);
      return send(result.bytes);
    }
    case 'content':
    case 'analyze':
      // Already JSON (a cache hit is sent as stored): wrapped, not serialized again.
      reply.type(JSON_TYPE);
      return send(enveloped(done.outcome.value));
    case 'extract':
      reply.type(JSON_TYPE);
      return send(succeeded(done.outcome.value));
    case 'website-crawler': {
      const result = done.outcome.value;
      if (done.pageSource) {
        return reply
          .type('text/html; charset=utf-8')
          .header('x-webcap-target-status', result.statusCode)
          .send(result.html);
      }
      return reply.send(crawlerBody(result, false));
    }
    case 'map':
      // The whole body, already JSON (a cache hit is sent as stored).
      reply.type(JSON_TYPE);
      return send(done.outcome.value);
  }
}
