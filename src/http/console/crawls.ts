import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { writeAudit } from '../../admin/audit.js';
import { CrawlListItemSchema } from '../../crawls/crawl-record.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { accountOf, actorOf } from './access.js';
import { IdParams, ListOf, PageQuery, pageRequest } from './schemas.js';

/**
 * The account's whole-site crawls and batches (docs/crawl.md) beside its jobs: the list with
 * their progress, and cancelling a live one as DELETE /v1/crawl/{id} and /v1/batch/{id} do.
 */
export function crawlRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const config = { console: 'account' as const };
  return async (app) => {
    app.get(
      '/console/api/crawls',
      {
        config,
        schema: {
          hide: true,
          querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
          response: { 200: ListOf(CrawlListItemSchema), ...errors(400, 401, 403) },
        },
      },
      async (request) => deps.crawls.list({ account: accountOf(request) }, pageRequest(request.query)),
    );

    app.delete(
      '/console/api/crawls/:id',
      {
        config,
        schema: {
          hide: true,
          params: IdParams,
          response: { 200: CrawlListItemSchema, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => {
        const account = accountOf(request);
        const { id } = request.params;
        const item = await deps.crawls.cancelListed({ account }, id);
        await writeAudit(
          deps.store.db,
          actorOf(request),
          { action: `${item.kind}.cancel`, accountId: account.id, target: id },
          deps.clock(),
        );
        return item;
      },
    );
  };
}
