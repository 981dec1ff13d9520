import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { crawlerFields, crawlerRequest } from '../../../requests/crawler.js';
import { answerCall } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { CrawlerSuccess, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const CrawlerQuery = Type.Object(
  {
    ...crawlerFields,
    x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

/** GET /v1/website/crawler: a page's raw HTML in request mode, without rendering; 1 credit. */
export function crawlerRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/v1/website/crawler',
    methods: ['GET'],
    auth: 'v1',
    engine: 'website-crawler',
    billable: true,
    target: 'query',
    tags: ['crawler'],
    summary: "A page's raw HTML, without rendering",
    params: CrawlerQuery,
    response: { 200: CrawlerSuccess, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
    handler: (input, request, reply) => answerCall(deps, request, reply, input, crawlerRequest(input)),
  });
}
