import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AccountUsageSchema, accountUsage } from '../../billing/usage.js';
import { dailyCalls, listRequests } from '../../stats/request-log.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { accountOf } from './access.js';
import {
  DailyCallsSchema,
  DaysQuery,
  ListOf,
  pageRequest,
  RequestItemSchema,
  RequestQuery,
  requestFilterOf,
  requestItemJson,
} from './schemas.js';

/** The account's usage: its balances in draw order, its calls per day, and its request log (docs/console.md). */
export function usageRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const config = { console: 'account' as const };
  return async (app) => {
    app.get(
      '/console/api/usage',
      { config, schema: { hide: true, response: { 200: AccountUsageSchema, ...errors(401, 403) } } },
      async (request) => accountUsage(deps.store.db, accountOf(request), deps.clock()),
    );

    app.get(
      '/console/api/usage/daily',
      {
        config,
        schema: {
          hide: true,
          querystring: Type.Object(DaysQuery, { additionalProperties: false }),
          response: { 200: DailyCallsSchema, ...errors(400, 401, 403) },
        },
      },
      async (request) => ({
        days: await dailyCalls(
          deps.store.db,
          { accountId: accountOf(request).id },
          request.query.days ?? 30,
          deps.clock(),
        ),
      }),
    );

    app.get(
      '/console/api/requests',
      {
        config,
        schema: {
          hide: true,
          querystring: Type.Object(RequestQuery, { additionalProperties: false }),
          response: { 200: ListOf(RequestItemSchema), ...errors(400, 401, 403) },
        },
      },
      async (request) => {
        const filter = { ...requestFilterOf(request.query), accountId: accountOf(request).id };
        const page = await listRequests(deps.store.db, filter, pageRequest(request.query));
        return { items: page.items.map((row) => requestItemJson(row, false)), next: page.next };
      },
    );
  };
}
