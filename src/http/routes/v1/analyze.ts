import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendAnalysis } from '../../analyze-response.js';
import { V1AnalyzeParams } from '../../analyze-schema.js';
import type { AppDeps } from '../../deps.js';
import { AnalyzeBody, BILLABLE_ERRORS, errors, JobAcceptedBody } from '../../responses.js';

/** GET|POST /v1/analyze: a page's summary, value proposition, features, categories, audience and contacts; 1 credit. */
export function analyzeRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const config = { auth: 'v1' as const, engine: 'analyze', billable: true as const };
    const tags = ['analyze'];
    const summary = 'An analysis of a page';
    const security: Record<string, string[]>[] = [{ apiKeyHeader: [] }, { apiKeyQuery: [] }];
    const responses = { 200: AnalyzeBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS, 413) };
    app.get(
      '/v1/analyze',
      { config, schema: { tags, summary, security, querystring: V1AnalyzeParams, response: responses } },
      async (request, reply) => {
        await sendAnalysis(deps, request, reply, request.query);
      },
    );
    app.post(
      '/v1/analyze',
      { config, schema: { tags, summary, security, body: V1AnalyzeParams, response: responses } },
      async (request, reply) => {
        await sendAnalysis(deps, request, reply, request.body);
      },
    );
  };
}
