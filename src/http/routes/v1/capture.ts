import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { captureRequest, v1CaptureFields } from '../../../requests/capture.js';
import { answerCall, baseUrlOf } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { CaptureSuccess, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const V1CaptureParams = Type.Object(
  {
    ...v1CaptureFields,
    x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

/** GET|POST /v1/capture: a screenshot, PDF or recording of a page; 1 credit. */
export function captureRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/v1/capture',
    methods: ['GET', 'POST'],
    auth: 'v1',
    engine: 'capture',
    billable: true,
    signedLinks: true,
    tags: ['capture'],
    summary: 'Screenshot, PDF or recording of a page',
    params: V1CaptureParams,
    response: { 200: CaptureSuccess, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
    handler: (input, request, reply) =>
      answerCall(deps, request, reply, input, captureRequest(input, 'v1', baseUrlOf(deps, request))),
  });
}
