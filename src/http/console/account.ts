import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { rotateWebhookSecret, showWebhookSecret } from '../../admin/accounts.js';
import { WebcapError } from '../../errors.js';
import { StatsSnapshotSchema, statsSnapshot } from '../../stats/snapshot.js';
import type { Db } from '../../store/db.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { accountOf, adminAs } from './access.js';

/**
 * The engines whose health the console shows: every billable engine as the request log names it
 * (a crawl's pages as `crawl`; a batch's items as their own engine).
 */
const ENGINES = ['capture', 'content', 'analyze', 'extract', 'map', 'crawl', 'website-crawler'] as const;

export const EnginesHealthSchema = Type.Object(
  Object.fromEntries(ENGINES.map((engine) => [engine, StatsSnapshotSchema])) as Record<
    (typeof ENGINES)[number],
    typeof StatsSnapshotSchema
  >,
);

/** The GET /v1/stats snapshot of each billable engine. */
export async function enginesHealth(db: Db, now: Date): Promise<Static<typeof EnginesHealthSchema>> {
  const snapshots = await Promise.all(
    ENGINES.map(async (engine) => [engine, await statsSnapshot(db, now, { engine, path: null })] as const),
  );
  return Object.fromEntries(snapshots) as Static<typeof EnginesHealthSchema>;
}

const SecretSchema = Type.Object({ secret: Type.String() });

/** The account's webhook secret (owners) and its engines' health (when it has the stats feature). */
export function accountRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/console/api/webhook-secret',
      {
        config: { console: 'owner' },
        schema: { hide: true, response: { 200: SecretSchema, ...errors(401, 403) } },
      },
      async (request) => ({
        secret: (await showWebhookSecret(adminAs(deps, request), accountOf(request).slug)).secret,
      }),
    );
    app.post(
      '/console/api/webhook-secret/rotate',
      {
        config: { console: 'owner' },
        schema: { hide: true, response: { 200: SecretSchema, ...errors(400, 401, 403) } },
      },
      async (request) => ({
        secret: (await rotateWebhookSecret(adminAs(deps, request), accountOf(request).slug)).secret,
      }),
    );

    app.get(
      '/console/api/stats',
      {
        config: { console: 'account' },
        schema: {
          hide: true,
          response: { 200: Type.Object({ engines: EnginesHealthSchema }), ...errors(401, 403, 503) },
        },
      },
      async (request) => {
        if (!accountOf(request).statsEnabled) {
          throw new WebcapError('forbidden', 'stats is not enabled for this account');
        }
        return { engines: await enginesHealth(deps.store.db, deps.clock()) };
      },
    );
  };
}
