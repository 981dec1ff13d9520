import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { extractFields, extractRequest } from '../../../requests/extract.js';
import { answerCall } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { ExtractBody, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const V1ExtractParams = Type.Object(
  { ...extractFields, x_api_key: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: false },
);

/** GET|POST /v1/extract: fields of a page by selector rules, as JSON; 1 credit. */
export function extractRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/v1/extract',
    methods: ['GET', 'POST'],
    auth: 'v1',
    engine: 'extract',
    billable: true,
    tags: ['extract'],
    summary: 'A page as JSON, by a JSON Schema or selector rules',
    params: V1ExtractParams,
    response: { 200: ExtractBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS, 502) },
    handler: (input, request, reply) => answerCall(deps, request, reply, input, extractRequest(input)),
  });
}
