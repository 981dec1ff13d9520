import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { WebcapError } from '../../errors.js';
import { isReachable } from '../../store/db.js';
import { bearerCheck } from '../bearer.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';

/**
 * Liveness (the process answers, draining or not), readiness (the database and the job queue
 * answer, and the render queue has room: a full one turns callers away with 503s, so a load
 * balancer should send elsewhere; the browser's state is reported, not required: it launches on
 * demand; the queue's backend is named) and, with METRICS_TOKEN set, Prometheus metrics behind
 * that bearer token. While the process drains, /readyz is answered 503 by http/drain.ts.
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
      const pool = deps.renderPool();
      const { concurrency, maxQueueDepth, renderTimeoutMs } = deps.config.browser;
      if (pool.busy >= concurrency && pool.queued >= maxQueueDepth) {
        // The Retry-After a capture turned away by the full queue gets (browser/pool.ts).
        throw new WebcapError('unavailable', 'render queue full', {
          retryAfterSeconds: Math.max(1, Math.ceil(renderTimeoutMs / 10_000)),
        });
      }
      return { status: 'ready' as const, browser: pool.browser, queue: deps.jobs.backend };
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
