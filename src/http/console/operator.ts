import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listAudit } from '../../admin/audit.js';
import { AuditEntryJsonSchema, auditEntryJson } from '../../admin/json.js';
import { getAccountBySlug } from '../../billing/accounts.js';
import { dailyCalls, listRequests } from '../../stats/request-log.js';
import type { Db } from '../../store/db.js';
import { Slug } from '../admin-bodies.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { EnginesHealthSchema, enginesHealth } from './account.js';
import {
  DailyCallsSchema,
  DaysQuery,
  ListOf,
  PageQuery,
  pageRequest,
  RequestItemSchema,
  RequestQuery,
  requestFilterOf,
  requestItemJson,
} from './schemas.js';

/** The system's health from the sources /metrics reads (this process's pools), and each engine's snapshot. */
const SystemHealthSchema = Type.Object({
  render_pool: Type.Object({
    size: Type.Integer(),
    busy: Type.Integer(),
    queued: Type.Integer(),
    rejected_total: Type.Integer(),
    browser_restarts_total: Type.Integer(),
    launches_total: Type.Integer(),
    crashes_total: Type.Integer(),
    browser: Type.String(),
  }),
  extractors: Type.Object({ threads: Type.Integer(), busy: Type.Integer(), queued: Type.Integer() }),
  jobs: Type.Object({ queued: Type.Integer() }),
  process: Type.Object({
    uptime_seconds: Type.Integer(),
    rss_bytes: Type.Integer(),
    heap_used_bytes: Type.Integer(),
  }),
  engines: EnginesHealthSchema,
});

/** The id of the account a filter names by slug (404 when there is none), or undefined for all. */
async function accountIdOf(db: Db, slug: string | undefined): Promise<string | undefined> {
  return slug === undefined ? undefined : (await getAccountBySlug(db, slug)).id;
}

/** The operator console's views across accounts: the request log, calls per day, system health, the audit log. */
export function operatorRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const config = { console: 'operator' as const };
  const { db } = deps.store;
  const account = { account: Type.Optional(Slug) };
  return async (app) => {
    app.get(
      '/console/api/operator/requests',
      {
        config,
        schema: {
          hide: true,
          querystring: Type.Object({ ...account, ...RequestQuery }, { additionalProperties: false }),
          response: { 200: ListOf(RequestItemSchema), ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const filter = {
          ...requestFilterOf(request.query),
          accountId: await accountIdOf(db, request.query.account),
        };
        const page = await listRequests(db, filter, pageRequest(request.query));
        return { items: page.items.map((row) => requestItemJson(row, true)), next: page.next };
      },
    );

    app.get(
      '/console/api/operator/usage/daily',
      {
        config,
        schema: {
          hide: true,
          querystring: Type.Object({ ...account, ...DaysQuery }, { additionalProperties: false }),
          response: { 200: DailyCallsSchema, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => ({
        days: await dailyCalls(
          db,
          { accountId: await accountIdOf(db, request.query.account) },
          request.query.days ?? 30,
          deps.clock(),
        ),
      }),
    );

    app.get(
      '/console/api/operator/health',
      { config, schema: { hide: true, response: { 200: SystemHealthSchema, ...errors(401, 403, 503) } } },
      async () => {
        const { sources } = deps.metrics;
        const pool = sources.renderPool();
        const extractors = sources.extractors();
        const memory = process.memoryUsage();
        return {
          render_pool: {
            size: deps.config.browser.concurrency,
            busy: pool.busy,
            queued: pool.queued,
            rejected_total: pool.rejected,
            browser_restarts_total: Math.max(0, pool.launches - 1),
            launches_total: pool.launches,
            crashes_total: pool.crashes,
            browser: pool.browser,
          },
          extractors: {
            threads: deps.config.content.threads,
            busy: extractors.busy,
            queued: extractors.queued,
          },
          jobs: { queued: await sources.jobsQueued() },
          process: {
            uptime_seconds: Math.floor(process.uptime()),
            rss_bytes: memory.rss,
            heap_used_bytes: memory.heapUsed,
          },
          engines: await enginesHealth(db, deps.clock()),
        };
      },
    );

    app.get(
      '/console/api/operator/audit',
      {
        config,
        schema: {
          hide: true,
          querystring: Type.Object(
            { ...account, action: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), ...PageQuery },
            { additionalProperties: false },
          ),
          response: { 200: ListOf(AuditEntryJsonSchema), ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const filter = {
          accountId: await accountIdOf(db, request.query.account),
          action: request.query.action,
        };
        const page = await listAudit(db, filter, pageRequest(request.query));
        return { items: page.items.map(auditEntryJson), next: page.next };
      },
    );
  };
}
