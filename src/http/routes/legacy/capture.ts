import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { answerCall, baseUrlOf } from '../../call-response.js';
import { captureFields, captureRequest } from '../../capture-schema.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { WaitEventSchema } from '../../page-schema.js';
import { CaptureSuccess, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';
import { Flag } from '../../schemas.js';

/** The legacy /capture: full_page_scroll on by default, a numeric quality, one wait event, cookie banners. */
const LegacyCaptureParams = Type.Object(
  {
    ...captureFields,
    access_key: Type.Optional(Type.String({ maxLength: 256 })),
    full_page_scroll: Type.Optional(Flag),
    image_quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    wait_until: Type.Optional(WaitEventSchema),
    remove_cookie_banners: Type.Optional(Flag),
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
      answerCall(deps, request, reply, input, {
        engine: 'capture',
        ...captureRequest(input, 'legacy', baseUrlOf(deps, request)),
      }),
  });
}
