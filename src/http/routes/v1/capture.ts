import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { CallSpec } from '../../../calls/call-spec.js';
import { captureRequest, v1CaptureFields } from '../../../requests/capture.js';
import { answerCall, baseUrlOf } from '../../call-response.js';
import type { AppDeps } from '../../deps.js';
import { endpoint } from '../../endpoint.js';
import { CaptureSuccess, JobAcceptedBody } from '../../responses/calls.js';
import { BILLABLE_ERRORS, errors } from '../../responses/errors.js';
import { withoutSignedLinkParams } from '../../signed-links.js';
import { deepFrozen, UrlMemo } from '../../url-memo.js';

const V1CaptureParams = Type.Object(
  {
    ...v1CaptureFields,
    x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

type V1CaptureInput = Static<typeof V1CaptureParams>;

/** GET|POST /v1/capture: a screenshot, PDF or recording of a page; 1 credit. */
export function captureRoutes(deps: AppDeps): FastifyPluginAsync {
  // A GET's call spec is a pure function of its query (already validated) and the base URL of
  // its links: a repeated capture (a cache hit) skips working it out, and its cache key with it.
  const specs = new UrlMemo<CallSpec<'capture'>>();
  const specOf = (input: V1CaptureInput, request: FastifyRequest): CallSpec<'capture'> => {
    const baseUrl = baseUrlOf(deps, request);
    if (request.method !== 'GET') return captureRequest(input, 'v1', baseUrl);
    // A signed link's own parameters change nothing in the call: its links share one entry.
    const url = request.signedLink === null ? request.url : withoutSignedLinkParams(request.url);
    const key = `${baseUrl} ${url}`;
    const known = specs.get(key);
    if (known !== undefined) return known;
    const spec = deepFrozen(captureRequest(input, 'v1', baseUrl));
    specs.remember(key, url, spec);
    return spec;
  };
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
    handler: (input, request, reply) => answerCall(deps, request, reply, input, specOf(input, request)),
  });
}
