import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { baseUrlOf, sendCapture } from '../../capture-response.js';
import { captureRequest, V1CaptureQuery } from '../../capture-schema.js';
import type { AppDeps } from '../../deps.js';
import { BILLABLE_ERRORS, CaptureSuccess, errors, JobAcceptedBody } from '../../responses.js';

/** GET /v1/capture: a screenshot or PDF of a page; 1 credit. */
export function captureRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/capture',
      {
        config: { auth: 'v1', engine: 'capture', billable: true },
        schema: {
          tags: ['capture'],
          summary: 'Screenshot or PDF of a page',
          security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
          querystring: V1CaptureQuery,
          response: { 200: CaptureSuccess, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
        },
      },
      async (request, reply) => {
        const { params, delivery } = captureRequest(request.query, false, baseUrlOf(deps, request));
        return sendCapture(deps, request, reply, params, delivery, request.query);
      },
    );
  };
}
