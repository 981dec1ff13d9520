import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { grantCredits } from '../../admin/balances.js';
import { GrantJsonSchema, grantJson } from '../../admin/json.js';
import { CreditGrant } from '../admin-bodies.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { adminAs } from './access.js';
import { SlugParams } from './schemas.js';

/** The operator console's credit grants to an account, audited in the operator's name. */
export function operatorCreditRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const config = { console: 'operator' as const };
  return async (app) => {
    app.post(
      '/console/api/operator/accounts/:slug/credits',
      {
        config,
        schema: {
          hide: true,
          params: SlugParams,
          body: CreditGrant,
          response: { 201: GrantJsonSchema, ...errors(400, 401, 403, 404, 413) },
        },
      },
      async (request, reply) => {
        const { amount, note } = request.body;
        const grant = await grantCredits(adminAs(deps, request), {
          accountSlug: request.params.slug,
          amount,
          note,
        });
        return reply.code(201).send(grantJson(grant));
      },
    );
  };
}
