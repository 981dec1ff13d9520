import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { WebcapError } from '../../errors.js';
import { isReachable } from '../../store/db.js';
import { bearerCheck } from '../bearer.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';

/**
 * Liveness (the process answers), readiness (the database and the job queue answer; the browser's
 * state is reported, not required: it launches on demand; the queue's backend is named) and, with METRICS_TOKEN set, Prometheus metrics
 * behind that bearer token.
 */
export function healthRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/healthz',
      { schema: { hide: true, response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
      async () => ({ status: 'ok' as const }),
    );
    const ready = {
      200: Type.Object({
        status: Type.Literal('ready'),
        browser: Type.Union([
          Type.Literal('running'),
          Type.Literal('failing'),
          Type.Literal('not started'),
          Type.Literal('closed'),
        ]),
        queue: Type.Union([Type.Literal('in-process'), Type.Literal('bullmq')]),
      }),
      ...errors(503),
    };
    app.get('/readyz', { schema: { hide: true, response: ready } }, async () => {
      if (!(await isReachable(deps.store.db))) throw new WebcapError('unavailable', 'database unreachable');
      if (!(await deps.jobs.ready())) throw new WebcapError('unavailable', 'job queue unreachable');
      return { status: 'ready' as const, browser: deps.renderPool().browser, queue: deps.jobs.backend };
    });
    const token = deps.config.metricsToken;
    if (token !== null) {
      const check = bearerCheck(token, 'metrics token');
      app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
        check(request);
        const { body, contentType } = await deps.metrics.render();
        return reply.type(contentType).send(body);
      });
    }
  };
}
