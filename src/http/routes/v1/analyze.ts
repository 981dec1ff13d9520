import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { analyzeFields, analyzeRequest } from '../../../requests/analyze.js';
import { answerCall } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { AnalyzeBody, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const V1AnalyzeParams = Type.Object(
  { ...analyzeFields, x_api_key: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: false },
);

/**
 * GET|POST /v1/analyze: a page's summary, value proposition, features, categories, audience and
 * contacts; 1 credit. Every answer, errors included, names the configured analyzer in x-webcap-analyzer.
 */
export function analyzeRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/v1/analyze',
    methods: ['GET', 'POST'],
    auth: 'v1',
    engine: 'analyze',
    billable: true,
    signedLinks: true,
    tags: ['analyze'],
    summary: 'An analysis of a page',
    params: V1AnalyzeParams,
    response: { 200: AnalyzeBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
    handler: (input, request, reply) => {
      reply.header('x-webcap-analyzer', deps.calls.analyze.analyzer.name);
      return answerCall(deps, request, reply, input, analyzeRequest(input));
    },
  });
}
