import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { grantCredits } from '../../../admin/balances.js';
import { GrantJsonSchema, grantJson } from '../../../admin/json.js';
import { CreditGrant } from '../../admin-bodies.js';
import { ADMIN_DOC, type AdminOf, SlugParams, WRITE } from '../../admin-route-parts.js';

/** /accounts/{slug}/credits: grant an account credits. */
export function adminCreditRoutes(admin: AdminOf): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/accounts/:slug/credits',
      {
        schema: {
          ...ADMIN_DOC,
          params: SlugParams,
          body: CreditGrant,
          response: { 201: GrantJsonSchema, ...WRITE },
        },
      },
      async (request, reply) => {
        const { amount, note } = request.body;
        const grant = await grantCredits(admin(request), { accountSlug: request.params.slug, amount, note });
        return reply.code(201).send(grantJson(grant));
      },
    );
  };
}
