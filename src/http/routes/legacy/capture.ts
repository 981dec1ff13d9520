import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { captureFields, captureRequest, legacyCaptureFields } from '../../../requests/capture.js';
import { answerCall, baseUrlOf } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { CaptureSuccess, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';

const LegacyCaptureParams = Type.Object(
  {
    ...captureFields,
    access_key: Type.Optional(Type.String({ maxLength: 256 })),
    ...legacyCaptureFields,
  },
  { additionalProperties: false },
);

/** GET|POST /capture: the earlier screenshot endpoint, authenticated with access_key; 1 credit. */
export function legacyCaptureRoutes(deps: AppDeps): FastifyPluginAsync {
  return endpoint({
    url: '/capture',
    methods: ['GET', 'POST'],
    auth: 'legacy',
    engine: 'capture',
    billable: true,
    tags: ['legacy'],
    summary: 'Screenshot (earlier interface)',
    params: LegacyCaptureParams,
    response: { 200: CaptureSuccess, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
    handler: (input, request, reply) =>
      answerCall(deps, request, reply, input, captureRequest(input, 'legacy', baseUrlOf(deps, request))),
  });
}
