import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WebcapError } from '../../errors.js';
import { isReachable } from '../../store/db.js';
import type { AppDeps } from '../app.js';

/** Liveness (the process answers) and readiness (the database answers). */
export function healthRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: { hide: true } }, async () => {
      if (!(await isReachable(deps.store.db))) throw new WebcapError('unavailable', 'database unreachable');
      return { status: 'ready' };
    });
  };
}
