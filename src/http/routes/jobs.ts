import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { JobRecordSchema } from '../../jobs/job-record.js';
import { callerOf } from '../auth.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';

const JobPath = Type.Object(
  { job_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) },
  { additionalProperties: false },
);
// The key may come in the query (x_api_key or access_key): nothing else is taken there.
const KeyQuery = Type.Object(
  {
    x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
    access_key: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

/** The record is JSON already (its result spliced in as stored): sent as bytes, not serialized again. */
export function sendRecord(reply: FastifyReply, record: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(record);
}

/**
 * GET /jobs/{job_id} (free) polls an async job; DELETE cancels a queued one. Either key works
 * (x-api-key or access_key); only the owning account sees its jobs, others get 404.
 */
export function jobsRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const config = { auth: 'any' as const, engine: 'jobs' };
    const tags = ['jobs'];
    const security: Record<string, string[]>[] = [
      { apiKeyHeader: [] },
      { apiKeyQuery: [] },
      { legacyKey: [] },
    ];
    app.get(
      '/jobs/:job_id',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'The state and result of an async job (free)',
          params: JobPath,
          querystring: KeyQuery,
          response: { 200: JobRecordSchema, ...errors(400, 401, 403, 404, 503) },
        },
      },
      async (request, reply) => {
        return sendRecord(reply, await deps.jobs.record(callerOf(request), request.params.job_id));
      },
    );
    app.delete(
      '/jobs/:job_id',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Cancels a queued async job; its unit is released (free)',
          params: JobPath,
          querystring: KeyQuery,
          response: { 200: JobRecordSchema, ...errors(400, 401, 403, 404, 409, 503) },
        },
      },
      async (request, reply) => {
        return sendRecord(reply, await deps.jobs.cancel(callerOf(request), request.params.job_id));
      },
    );
  };
}
