import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Store } from '../store/db.js';
import { authenticate } from './auth.js';
import { registerErrorHandling } from './errors.js';
import { adminRoutes } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';

/** Everything the HTTP layer needs; main.ts builds it, tests build their own. */
export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
}

export type App = FastifyInstance;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Builds the Fastify app without listening, so tests can inject requests in-process. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.config.bodyLimitBytes,
    // Keep a caller's request id when it is a sane token, so logs can be joined across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerErrorHandling(app);
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // The one place where keys are checked: every route that sets config.auth goes through it.
  app.addHook('preHandler', async (request) => {
    const generation = request.routeOptions.config.auth;
    if (generation !== undefined) {
      request.auth = await authenticate(deps.store.db, deps.clock, request, generation);
    }
  });

  await app.register(formbody, { bodyLimit: deps.config.bodyLimitBytes });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'webcap',
        version: '1',
        description: 'Self-hostable web capture, content and analysis API.',
      },
      components: {
        securitySchemes: {
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          apiKeyQuery: { type: 'apiKey', in: 'query', name: 'x_api_key' },
          legacyKey: { type: 'apiKey', in: 'query', name: 'access_key' },
          adminToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes(deps));
  if (deps.config.adminToken !== null) {
    await app.register(adminRoutes(deps, deps.config.adminToken), { prefix: '/admin/v1' });
  }
  return app;
}
