import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app.js';
import { baseUrlOf, sendCapture } from '../capture-response.js';
import { captureRequest, LegacyCaptureParams } from '../capture-schema.js';
import { BILLABLE_ERRORS, CaptureSuccess, errors } from '../responses.js';

/**
 * The earlier unversioned endpoints, authenticated with access_key, by GET (query) or POST
 * (JSON or form body), mapped onto the same engines with the spec's differences.
 */
export function legacyRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const config = { auth: 'legacy' as const, engine: 'capture', billable: true as const };
    const tags = ['legacy'];
    const security = [{ legacyKey: [] }];
    const response = { 200: CaptureSuccess, ...errors(...BILLABLE_ERRORS, 413) };
    app.get(
      '/capture',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Screenshot (earlier interface)',
          querystring: LegacyCaptureParams,
          response,
        },
      },
      async (request, reply) => {
        const { params, delivery } = captureRequest(request.query, true, baseUrlOf(deps, request));
        return sendCapture(deps, request, reply, params, delivery);
      },
    );
    app.post(
      '/capture',
      {
        config,
        schema: {
          tags,
          security,
          summary: 'Screenshot (earlier interface)',
          body: LegacyCaptureParams,
          response,
        },
      },
      async (request, reply) => {
        const { params, delivery } = captureRequest(request.body, true, baseUrlOf(deps, request));
        return sendCapture(deps, request, reply, params, delivery);
      },
    );
  };
}
