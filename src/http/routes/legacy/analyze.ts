import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { analyzeFields, analyzeRequest } from '../../../requests/analyze.js';
import { answerCall } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { AnalyzeBody, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const LegacyAnalyzeParams = Type.Object(
  { ...analyzeFields, access_key: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: false },
);

/**
 * GET|POST /analyze: the earlier analysis endpoint, authenticated with access_key; 1 credit. Every
 * answer, errors included, names the configured analyzer in x-webcap-analyzer.
 */
export function legacyAnalyzeRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/analyze',
    methods: ['GET', 'POST'],
    auth: 'legacy',
    engine: 'analyze',
    billable: true,
    tags: ['legacy'],
    summary: 'An analysis of a page (earlier interface)',
    params: LegacyAnalyzeParams,
    response: { 200: AnalyzeBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
    handler: (input, request, reply) => {
      reply.header('x-webcap-analyzer', deps.calls.analyze.analyzer.name);
      return answerCall(deps, request, reply, input, analyzeRequest(input));
    },
  });
}
