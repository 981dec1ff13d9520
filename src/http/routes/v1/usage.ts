import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { UsageRecordSchema, usageRecord } from '../../../billing/usage.js';
import type { AppDeps } from '../../deps.js';
import { errors } from '../../responses/errors.js';

/** GET /v1/usage: the account's balances, limits and the calling key; free. */
export function usageRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/usage',
      {
        config: { auth: 'v1', engine: 'usage' },
        schema: {
          tags: ['usage'],
          security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
          response: { 200: UsageRecordSchema, ...errors(401, 403, 500, 503) },
        },
      },
      async (request) => {
        const auth = request.auth;
        if (auth === null) throw new Error('auth hook did not run');
        return usageRecord(deps.store.db, auth.account, auth.key, deps.clock());
      },
    );
  };
}
