import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalidParam, WebcapError } from '../../../errors.js';
import { isEngineSlug, type RequestCatalog } from '../../../stats/catalog.js';
import { StatsSnapshotSchema, statsSnapshot } from '../../../stats/snapshot.js';
import type { AppDeps } from '../../deps.js';
import { errors } from '../../responses/errors.js';

const StatsQuery = Type.Object(
  {
    engine: Type.Optional(Type.String({ maxLength: 100, description: 'engine slug of the catalog' })),
    path: Type.Optional(
      Type.String({ maxLength: 1000, description: 'an endpoint path, such as /v1/capture' }),
    ),
    x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

/**
 * GET /v1/stats: the platform's one-hour health for an engine or a path of `catalog`; free, for
 * accounts with stats enabled.
 */
export function statsRoutes(deps: AppDeps, catalog: RequestCatalog): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/stats',
      {
        config: { auth: 'v1', engine: 'stats' },
        schema: {
          tags: ['stats'],
          summary: 'One-hour health snapshot of an engine or an endpoint',
          security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
          querystring: StatsQuery,
          response: { 200: StatsSnapshotSchema, ...errors(400, 401, 403, 404, 500, 503) },
        },
      },
      async (request) => {
        const auth = request.auth;
        if (auth === null) throw new Error('auth hook did not run');
        if (!auth.account.statsEnabled)
          throw new WebcapError('forbidden', 'stats is not enabled for this account');
        const { engine, path } = request.query;
        if (engine === undefined && path === undefined) throw invalidParam('engine', 'or path is required');
        if (engine !== undefined) {
          if (!isEngineSlug(engine)) throw invalidParam('engine', 'is not an engine slug');
          if (!catalog.isKnownEngine(engine)) throw new WebcapError('not_found', 'unknown engine');
        }
        const endpoint = path === undefined ? null : catalog.find(path.trim());
        if (path !== undefined) {
          if (endpoint === null) throw invalidParam('path', 'is not an endpoint of the API');
          if (engine !== undefined && endpoint.engine !== engine) {
            throw invalidParam('path', `does not belong to engine ${engine}`);
          }
        }
        return statsSnapshot(deps.store.db, deps.clock(), {
          engine: (engine ?? endpoint?.engine) as string,
          path: endpoint?.path ?? null,
        });
      },
    );
  };
}
