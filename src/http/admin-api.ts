import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminApiActor } from '../admin/audit.js';
import { keySecretSealer } from '../billing/signing-secrets.js';
import type { AdminOf } from './admin-route-parts.js';
import { bearerCheck } from './bearer.js';
import type { AppDeps } from './deps.js';
import { adminAccountRoutes } from './routes/admin/accounts.js';
import { adminAuditRoutes } from './routes/admin/audit.js';
import { adminCreditRoutes } from './routes/admin/credits.js';
import { adminKeyRoutes } from './routes/admin/keys.js';
import { adminLedgerRoutes } from './routes/admin/ledger.js';
import { adminPackRoutes } from './routes/admin/packs.js';
import { adminUserRoutes } from './routes/admin/users.js';

/**
 * The operator API under /admin/v1, behind `Authorization: Bearer $WEBCAP_ADMIN_TOKEN`: src/admin's
 * operations over HTTP, one module per resource under routes/admin/, registered in the order the
 * OpenAPI document lists them.
 */
export function adminRoutes(deps: AppDeps, token: string): FastifyPluginAsyncTypebox {
  const check = bearerCheck(token, 'admin token');
  const keySecrets = keySecretSealer(deps.signingSecret);
  // Each request acts as the admin API from its client's address, for the audit log.
  const admin: AdminOf = (request) => ({
    db: deps.store.db,
    clock: deps.clock,
    jobRetentionMs: deps.config.jobs.retentionMs,
    keySecrets,
    actor: adminApiActor(request.ip),
  });
  return async (app) => {
    app.addHook('onRequest', async (request) => {
      check(request);
    });
    for (const resource of [
      adminAccountRoutes,
      adminPackRoutes,
      adminCreditRoutes,
      adminLedgerRoutes,
      adminKeyRoutes,
      adminUserRoutes,
      adminAuditRoutes,
    ]) {
      await app.register(resource(admin));
    }
  };
}
