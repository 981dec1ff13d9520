import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { WebcapError } from '../../errors.js';
import { isReachable } from '../../store/db.js';
import type { AppDeps } from '../app.js';
import { errors } from '../responses.js';

/** Liveness (the process answers) and readiness (the database answers). */
export function healthRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/healthz',
      { schema: { hide: true, response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
      async () => ({ status: 'ok' as const }),
    );
    const ready = { 200: Type.Object({ status: Type.Literal('ready') }), ...errors(503) };
    app.get('/readyz', { schema: { hide: true, response: ready } }, async () => {
      if (!(await isReachable(deps.store.db))) throw new WebcapError('unavailable', 'database unreachable');
      return { status: 'ready' as const };
    });
  };
}
