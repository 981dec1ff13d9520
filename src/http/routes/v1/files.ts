import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Clock } from '../../../clock.js';
import { WebcapError } from '../../../errors.js';
import type { BlobStore } from '../../../store/blobs.js';
import { FILE_ID_PATTERN, fileBlobKey, verifyFileUrl } from '../../../store/file-urls.js';
import { FileSuccess } from '../../responses/calls.js';
import { errors } from '../../responses/errors.js';

/** What the hosted-files route needs; AppDeps satisfies it once it carries blobs and signingSecret. */
export interface FilesDeps {
  readonly blobs: BlobStore;
  readonly signingSecret: string;
  readonly clock: Clock;
}

const Params = Type.Object({ id: Type.String({ maxLength: 80, pattern: FILE_ID_PATTERN }) });
const Query = Type.Object({
  expires: Type.Integer({ minimum: 0, maximum: 253_402_300_799 }),
  // Any text is accepted here: a signature of the wrong shape is a forged link (403), not bad input.
  signature: Type.String({ minLength: 1, maxLength: 256 }),
});

/**
 * GET /v1/files/:id: a hosted capture (`screenshot_url`). No API key: the signed link is the
 * credential, like a presigned S3 URL. Bad signature → 403; expired or missing → 404.
 */
export function filesRoutes(deps: FilesDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/files/:id',
      {
        schema: {
          tags: ['files'],
          params: Params,
          querystring: Query,
          response: {
            200: FileSuccess,
            ...errors(400, 403, 404, 503),
          },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const verdict = verifyFileUrl(
          id,
          request.query.expires,
          request.query.signature,
          deps.signingSecret,
          deps.clock(),
        );
        if (!verdict.valid) {
          throw verdict.reason === 'expired'
            ? new WebcapError('not_found', 'link expired')
            : new WebcapError('forbidden', 'invalid signature');
        }
        const blob = await deps.blobs.get(fileBlobKey(id));
        if (blob === null) throw new WebcapError('not_found');
        return reply
          .header('cache-control', `private, max-age=${verdict.remainingSeconds}`)
          .header('x-content-type-options', 'nosniff')
          .type(blob.contentType)
          .send(blob.bytes);
      },
    );
  };
}
