import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { contentRequest, v1ContentFields } from '../../../requests/content.js';
import { answerCall, baseUrlOf } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { ContentBody, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const V1ContentParams = Type.Object(
  {
    ...v1ContentFields,
    x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

/** GET|POST /v1/content: a page's metadata, links and, as asked, HTML, Markdown and sitemap; 1 credit. */
export function contentRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/v1/content',
    methods: ['GET', 'POST'],
    auth: 'v1',
    engine: 'content',
    billable: true,
    signedLinks: true,
    tags: ['content'],
    summary: "A page's metadata, links, HTML, Markdown and sitemap",
    params: V1ContentParams,
    response: { 200: ContentBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS, 502) },
    handler: (input, request, reply) =>
      answerCall(deps, request, reply, input, contentRequest(input, 'v1', baseUrlOf(deps, request))),
  });
}
