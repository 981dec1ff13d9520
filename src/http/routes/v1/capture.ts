import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { answerCall, baseUrlOf } from '../../call-response.js';
import { captureFields, captureRequest } from '../../capture-schema.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { WaitUntilList } from '../../page-schema.js';
import { CaptureSuccess, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';
import { Flag } from '../../schemas.js';

/** GET /v1/capture: image_quality as text, wait_until one value or several. */
const V1CaptureQuery = Type.Object(
  {
    ...captureFields,
    x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
    full_page_scroll: Type.Optional(Flag),
    image_quality: Type.Optional(
      Type.String({ maxLength: 3, pattern: '^(100|[1-9][0-9]?)$', description: '1-100, default 80' }),
    ),
    wait_until: Type.Optional(WaitUntilList),
  },
  { additionalProperties: false },
);

/** GET /v1/capture: a screenshot or PDF of a page; 1 credit. */
export function captureRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/v1/capture',
    methods: ['GET'],
    auth: 'v1',
    engine: 'capture',
    billable: true,
    tags: ['capture'],
    summary: 'Screenshot or PDF of a page',
    params: V1CaptureQuery,
    response: { 200: CaptureSuccess, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
    handler: (input, request, reply) =>
      answerCall(deps, request, reply, input, {
        engine: 'capture',
        ...captureRequest(input, 'v1', baseUrlOf(deps, request)),
      }),
  });
}
