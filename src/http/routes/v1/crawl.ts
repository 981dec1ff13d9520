import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CrawlAcceptedSchema, CrawlRecordSchema } from '../../../crawls/crawl-record.js';
import { crawlFields, crawlRequest } from '../../../requests/crawl.js';
import { callerOf } from '../../auth.js';
import { baseUrlOf, idempotencyKeyOf } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { RecordId, recordQuery } from '../../record-query.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const CrawlParams = Type.Object(
  { ...crawlFields, x_api_key: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: false },
);

const CrawlPath = Type.Object({ crawl_id: RecordId }, { additionalProperties: false });

const RecordQuery = recordQuery('pages');

function crawlUrl(deps: AppDeps, request: FastifyRequest, id: string): string {
  return `${baseUrlOf(deps, request)}/v1/crawl/${id}`;
}

/** POST (and GET) /v1/crawl starts a whole-site crawl (docs/crawl.md); 1 credit per page fetched. */
export function crawlStartRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/v1/crawl',
    methods: ['GET', 'POST'],
    auth: 'v1',
    engine: 'crawl',
    billable: true,
    tags: ['crawl'],
    summary: 'Starts a crawl of a whole site; 1 credit per page fetched',
    params: CrawlParams,
    response: { 202: CrawlAcceptedSchema, ...errors(...BILLABLE_ERRORS) },
    handler: async (input, request, reply) => {
      const plan = crawlRequest(input, deps.config.crawl, baseUrlOf(deps, request));
      const { accepted, replayed } = await deps.crawls.submit(
        callerOf(request),
        plan,
        (id) => crawlUrl(deps, request, id),
        idempotencyKeyOf(request),
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(202).header('location', accepted.url).send(accepted);
    },
  });
}

/** GET /v1/crawl/{crawl_id} (free) reads a crawl and its pages; DELETE cancels it. Another account's crawl is a 404. */
export function crawlRecordRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const config = { auth: 'v1' as const, engine: 'crawl' };
    const tags = ['crawl'];
    const security: Record<string, string[]>[] = [{ apiKeyHeader: [] }, { apiKeyQuery: [] }];
    app.get(
      '/v1/crawl/:crawl_id',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'A crawl, its counts and its pages so far, paginated (free)',
          params: CrawlPath,
          querystring: RecordQuery,
          response: { 200: CrawlRecordSchema, ...errors(400, 401, 403, 404, 503) },
        },
      },
      async (request) => {
        const { crawl_id: id } = request.params;
        const cursor = Number(request.query.cursor ?? '-1');
        return deps.crawls.record(
          callerOf(request),
          id,
          cursor,
          request.query.limit ?? 20,
          (next) => `${crawlUrl(deps, request, id)}?cursor=${next}`,
        );
      },
    );
    app.delete(
      '/v1/crawl/:crawl_id',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Cancels a crawl: no page starts after it; pages running finish and are billed (free)',
          params: CrawlPath,
          querystring: RecordQuery,
          response: { 200: CrawlRecordSchema, ...errors(400, 401, 403, 404, 409, 503) },
        },
      },
      async (request) => {
        const { crawl_id: id } = request.params;
        return deps.crawls.cancel(
          callerOf(request),
          id,
          (next) => `${crawlUrl(deps, request, id)}?cursor=${next}`,
        );
      },
    );
  };
}
