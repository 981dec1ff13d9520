import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addPack, listPacks } from '../../../admin/balances.js';
import { PackJsonSchema, packJson } from '../../../admin/json.js';
import { PackCreate } from '../../admin-bodies.js';
import { ADMIN_DOC, type AdminOf, READ_ONE, SlugParams, WRITE } from '../../admin-route-parts.js';

/** /accounts/{slug}/packs: add a credit pack to an account, list its packs. */
export function adminPackRoutes(admin: AdminOf): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/accounts/:slug/packs',
      {
        schema: {
          ...ADMIN_DOC,
          params: SlugParams,
          body: PackCreate,
          response: { 201: PackJsonSchema, ...WRITE },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const pack = await addPack(admin(request), {
          accountSlug: request.params.slug,
          total: body.total,
          title: body.title,
          purchasedAt: body.purchased_at,
        });
        return reply.code(201).send(packJson(pack));
      },
    );

    app.get(
      '/accounts/:slug/packs',
      {
        schema: {
          ...ADMIN_DOC,
          params: SlugParams,
          response: { 200: Type.Object({ packs: Type.Array(PackJsonSchema) }), ...READ_ONE },
        },
      },
      async (request) => ({ packs: (await listPacks(admin(request), request.params.slug)).map(packJson) }),
    );
  };
}
