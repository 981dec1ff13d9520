import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { addPack } from '../../admin/balances.js';
import { PackJsonSchema, packJson } from '../../admin/json.js';
import { PackCreate } from '../admin-bodies.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { adminAs } from './access.js';
import { SlugParams } from './schemas.js';

/** The operator console's credit packs: one added to an account, audited in the operator's name. */
export function operatorPackRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const config = { console: 'operator' as const };
  return async (app) => {
    app.post(
      '/console/api/operator/accounts/:slug/packs',
      {
        config,
        schema: {
          hide: true,
          params: SlugParams,
          body: PackCreate,
          response: { 201: PackJsonSchema, ...errors(400, 401, 403, 404, 413) },
        },
      },
      async (request, reply) => {
        const { total, title, purchased_at: purchasedAt } = request.body;
        const pack = await addPack(adminAs(deps, request), {
          accountSlug: request.params.slug,
          total,
          title,
          purchasedAt,
        });
        return reply.code(201).send(packJson(pack));
      },
    );
  };
}
