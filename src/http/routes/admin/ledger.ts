import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { showLedger } from '../../../admin/balances.js';
import { LedgerJsonSchema, ledgerJson } from '../../../admin/json.js';
import { ADMIN_DOC, type AdminOf, READ_ONE, SlugParams } from '../../admin-route-parts.js';

/** /accounts/{slug}/ledger: an account's reserved units, newest first, and their totals. */
export function adminLedgerRoutes(admin: AdminOf): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/accounts/:slug/ledger',
      {
        schema: {
          ...ADMIN_DOC,
          params: SlugParams,
          querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }),
          response: { 200: LedgerJsonSchema, ...READ_ONE },
        },
      },
      async (request) =>
        ledgerJson(await showLedger(admin(request), request.params.slug, request.query.limit ?? 100)),
    );
  };
}
