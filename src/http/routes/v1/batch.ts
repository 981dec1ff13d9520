import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { BatchAcceptedSchema, BatchRecordSchema } from '../../../crawls/crawl-record.js';
import { batchFields, batchRequest } from '../../../requests/batch.js';
import { callerOf } from '../../auth.js';
import { baseUrlOf, idempotencyKeyOf } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { RecordId, recordQuery } from '../../record-query.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const BatchParams = Type.Object(batchFields, { additionalProperties: false });

const BatchPath = Type.Object({ batch_id: RecordId }, { additionalProperties: false });

const RecordQuery = recordQuery('items');

function batchUrl(deps: AppDeps, request: FastifyRequest, id: string): string {
  return `${baseUrlOf(deps, request)}/v1/batch/${id}`;
}

/** POST /v1/batch runs one engine over up to 1,000 pages as jobs (docs/crawl.md, "Batch"); 1 credit per item that succeeds. */
export function batchStartRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/v1/batch',
    methods: ['POST'],
    auth: 'v1',
    engine: 'batch',
    billable: true,
    tags: ['batch'],
    summary: 'Runs capture, content or analyze over many pages; 1 credit per item that succeeds',
    params: BatchParams,
    // POST only: no GET is registered, so a HEAD is a 404 rather than BILLABLE_ERRORS' 405.
    response: { 202: BatchAcceptedSchema, ...errors(...BILLABLE_ERRORS.filter((status) => status !== 405)) },
    handler: async (input, request, reply) => {
      const plan = batchRequest(input, deps.config.crawl.maxConcurrency, baseUrlOf(deps, request));
      const { accepted, replayed } = await deps.crawls.submitBatch(
        callerOf(request),
        plan,
        (id) => batchUrl(deps, request, id),
        idempotencyKeyOf(request),
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(202).header('location', accepted.url).send(accepted);
    },
  });
}

/** GET /v1/batch/{batch_id} (free) reads a batch and its items; DELETE cancels it. Another account's batch is a 404. */
export function batchRecordRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const config = { auth: 'v1' as const, engine: 'batch' };
    const tags = ['batch'];
    const security: Record<string, string[]>[] = [{ apiKeyHeader: [] }, { apiKeyQuery: [] }];
    const next = (request: FastifyRequest, id: string) => (cursor: number) =>
      `${batchUrl(deps, request, id)}?cursor=${cursor}`;
    app.get(
      '/v1/batch/:batch_id',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'A batch, its counts and its items so far, paginated (free)',
          params: BatchPath,
          querystring: RecordQuery,
          response: { 200: BatchRecordSchema, ...errors(400, 401, 403, 404, 503) },
        },
      },
      async (request) => {
        const { batch_id: id } = request.params;
        const cursor = Number(request.query.cursor ?? '-1');
        return deps.crawls.batchRecord(
          callerOf(request),
          id,
          cursor,
          request.query.limit ?? 20,
          next(request, id),
        );
      },
    );
    app.delete(
      '/v1/batch/:batch_id',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Cancels a batch: no item starts after it; items running finish and are billed (free)',
          params: BatchPath,
          querystring: RecordQuery,
          response: { 200: BatchRecordSchema, ...errors(400, 401, 403, 404, 409, 503) },
        },
      },
      async (request) =>
        deps.crawls.cancelBatch(
          callerOf(request),
          request.params.batch_id,
          next(request, request.params.batch_id),
        ),
    );
  };
}
