import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { mapFields, mapRequest } from '../../../requests/map.js';
import { answerCall } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { JobAcceptedBody, MapBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const MapParams = Type.Object(
  {
    ...mapFields,
    x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

/** GET|POST /v1/map: a site's URLs from its sitemaps and its start page's links, without rendering; 1 credit. */
export function mapRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/v1/map',
    methods: ['GET', 'POST'],
    auth: 'v1',
    engine: 'map',
    billable: true,
    tags: ['map'],
    summary: "A site's URLs from its sitemaps and start page, without rendering",
    params: MapParams,
    response: { 200: MapBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
    handler: (input, request, reply) => answerCall(deps, request, reply, input, mapRequest(input)),
  });
}
