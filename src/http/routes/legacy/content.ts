import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { contentFields, contentRequest, legacyContentFields } from '../../../requests/content.js';
import { answerCall, baseUrlOf } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { ContentBody, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

/** The legacy /content: one wait event, plus selector, cookie banners and the viewport. */
const LegacyContentParams = Type.Object(
  {
    ...contentFields,
    access_key: Type.Optional(Type.String({ maxLength: 256 })),
    ...legacyContentFields,
  },
  { additionalProperties: false },
);

/** GET|POST /content: the earlier content endpoint, authenticated with access_key; 1 credit. */
export function legacyContentRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/content',
    methods: ['GET', 'POST'],
    auth: 'legacy',
    engine: 'content',
    billable: true,
    tags: ['legacy'],
    summary: "A page's metadata, links, HTML and Markdown (earlier interface)",
    params: LegacyContentParams,
    response: { 200: ContentBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
    handler: (input, request, reply) =>
      answerCall(deps, request, reply, input, contentRequest(input, 'legacy', baseUrlOf(deps, request))),
  });
}
