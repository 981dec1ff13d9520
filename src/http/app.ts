import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ConsoleSessions } from '../admin/sessions.js';
import { findSigningKey, keySecretSealer } from '../billing/signing-secrets.js';
import { WebcapError } from '../errors.js';
import type { TrustProxy } from '../net/trust-proxy.js';
import { packageVersion } from '../package-version.js';
import { RequestCatalog } from '../stats/catalog.js';
import { AccessLog } from './access-log.js';
import { adminRoutes } from './admin-api.js';
import { type AuthDeps, authenticate, KEY_PARAM, keyBeforeBody } from './auth.js';
import { boundedBody } from './body-bounds.js';
import { capConnectionsPerClient } from './connection-cap.js';
import { consoleRoutes } from './console/console.js';
import { BUILT_CONSOLE_DIR } from './console/front-end.js';
import { playgroundCaller } from './console/playground.js';
import type { AppDeps } from './deps.js';
import { docsUiOptions } from './docs-ui.js';
import { clientError, frameworkError, registerErrorHandling } from './errors.js';
import { lazyChildLogger } from './lazy-child-logger.js';
import { mcpRoutes } from './mcp.js';
import { healthRoutes } from './routes/health.js';
import { jobsRoutes } from './routes/jobs.js';
import { legacyAnalyzeRoutes } from './routes/legacy/analyze.js';
import { legacyCaptureRoutes } from './routes/legacy/capture.js';
import { legacyContentRoutes } from './routes/legacy/content.js';
import { analyzeRoutes } from './routes/v1/analyze.js';
import { batchRecordRoutes, batchStartRoutes } from './routes/v1/batch.js';
import { captureRoutes } from './routes/v1/capture.js';
import { contentRoutes } from './routes/v1/content.js';
import { crawlRecordRoutes, crawlStartRoutes } from './routes/v1/crawl.js';
import { crawlerRoutes } from './routes/v1/crawler.js';
import { extractRoutes } from './routes/v1/extract.js';
import { filesRoutes } from './routes/v1/files.js';
import { mapRoutes } from './routes/v1/map.js';
import { statsRoutes } from './routes/v1/stats.js';
import { usageRoutes } from './routes/v1/usage.js';

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** The console API's internal OpenAPI document (not served). */
    consoleDocument: FastifyInstance['swagger'];
  }
  interface FastifyRequest {
    /** Whether the call was billed; set by the route from its call's outcome, read by the access log. */
    billed: boolean;
    /** The error text the request was answered with; set where errors are sent, read by the access log. */
    errorText: string | null;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** TRUST_PROXY as Fastify takes it: a hop count as proxy-addr's trust function (the nth hops from webcap). */
function trustProxyOption(
  trust: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

/**
 * Builds the Fastify app without listening, so tests can inject requests in-process. `health`
 * builds only /healthz, /readyz and /metrics: what `webcap worker` serves.
 */
export async function buildApp(deps: AppDeps, routes: 'all' | 'health' = 'all'): Promise<App> {
  const accessLog = new AccessLog(deps.logger, deps.requestLog, deps.clock, deps.metrics);
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.config.bodyLimitBytes,
    // A client's address and protocol as the proxies in front say them (TRUST_PROXY), else the connection's.
    trustProxy: trustProxyOption(deps.config.trustProxy),
    // Deadlines for receiving a request, checked at least every second (Node checks every 30 s):
    // a client that stops sending its headers or its body gets a 408 and its connection closed.
    // Node stops the clock once the request has arrived, so a long call is never cut by it.
    requestTimeout: deps.config.requestTimeoutMs,
    http: {
      headersTimeout: deps.config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(deps.config.headersTimeoutMs / 4)),
    },
    // Keep a caller's request id when it is a sane token, so logs can be joined across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    // One access line per request, written when it ends, rather than Fastify's two.
    logController: accessLog,
    childLoggerFactory: lazyChildLogger,
    ajv: {
      customOptions: {
        coerceTypes: 'array',
        removeAdditional: false,
        allErrors: false,
        // ajv 8's strictNumbers check is skipped for a value it has just coerced from text, so
        // "Infinity" or "1e400" passed as finite; without it a coerced value meets the bounds,
        // which every numeric parameter has (test/schemas.test.ts checks), and fails there.
        strictNumbers: false,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerErrorHandling(app);
  const sessions = new ConsoleSessions(deps.store.db, deps.clock, {
    idleMs: deps.config.console.sessionIdleMs,
    maxMs: deps.config.console.sessionMaxMs,
    signingSecret: deps.signingSecret,
    adminToken: deps.config.adminToken,
  });
  const auth: AuthDeps = {
    keys: deps.keys,
    clock: deps.clock,
    playground: playgroundCaller(deps, sessions),
    signingKey: (id) => findSigningKey(deps.store.db, id),
    keySecrets: keySecretSealer(deps.signingSecret),
  };
  if (deps.config.maxConnectionsPerClient > 0) {
    capConnectionsPerClient(app.server, deps.config.maxConnectionsPerClient);
  }
  app.decorateRequest('auth', null);
  app.decorateRequest('signedLink', null);
  app.decorateRequest('billed', false);
  app.decorateRequest('errorText', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Fastify answers HEAD with the GET handler, which would do the whole work and bill it for
    // a body nobody receives.
    if (request.method === 'HEAD' && request.routeOptions.config.billable) {
      const url = request.routeOptions.url ?? '';
      const allow = app.hasRoute({ method: 'POST', url }) ? 'GET, POST' : 'GET';
      throw new WebcapError('method_not_allowed', `HEAD would run a billable call; use ${allow}`, { allow });
    }
  });
  // Every authenticated call leaves a row (the stats snapshot and operators read them), and
  // every request one access line, even when the client hangs up first.
  accessLog.register(app);
  // The stats' catalog is the routes that leave those rows, each under the engine it names.
  const catalog = new RequestCatalog();
  app.addHook('onRoute', (route) => {
    const { auth, engine } = route.config ?? {};
    if (auth !== undefined && engine !== undefined) catalog.add(engine, route.url);
  });
  // The one place where keys are checked: every route that sets config.auth goes through it,
  // before validation, so a caller without a valid key learns nothing about the parameters; and
  // before the body is read wherever the key is not in it, so that an unauthenticated body costs
  // no parsing. Only a legacy key sent in the body waits for the (bounded) parse.
  app.addHook('preParsing', async (request) => {
    const generation = request.routeOptions.config.auth;
    if (generation !== undefined && keyBeforeBody(request, generation)) {
      request.auth = await authenticate(auth, request, generation);
    }
  });
  // Fastify reads no body for GET or HEAD; wrapping theirs would keep Node from discarding it.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.method === 'GET' || request.method === 'HEAD') return undefined;
    return boundedBody(payload, request.headers['content-type']) ?? undefined;
  });
  app.addHook('preValidation', async (request) => {
    const generation = request.routeOptions.config.auth;
    if (generation !== undefined && request.auth === null) {
      request.auth = await authenticate(auth, request, generation);
    }
  });

  await app.register(formbody, { bodyLimit: deps.config.bodyLimitBytes });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'webcap',
        version: packageVersion(),
        description: [
          'Self-hostable web capture, content and analysis API.',
          '',
          'Authenticate with an API key in the `x-api-key` header (or `x_api_key` in the query; the',
          'unversioned endpoints take `access_key`). Keys are made in the [console](/console) or by',
          'the operator (`webcap admin keys create`). A capture, content, analysis, crawler or map',
          'call costs 1 credit, failed calls none; usage, stats and job polling are free. Any billable call',
          'runs as an async job with `is_async=true`.',
        ].join('\n'),
      },
      components: {
        securitySchemes: {
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          apiKeyQuery: { type: 'apiKey', in: 'query', name: KEY_PARAM.v1 },
          legacyKey: { type: 'apiKey', in: 'query', name: KEY_PARAM.legacy },
          signedLink: {
            type: 'apiKey',
            in: 'query',
            name: 'signature',
            description:
              'A signed link (GET /v1/capture, /v1/content, /v1/analyze): key_id, expires and signature, the HMAC-SHA256 of the canonical query under the key signing secret; see docs/signed-links.md',
          },
          adminToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  // The console's own API, hidden from /openapi.json, as an internal document: the console's
  // types are generated from it (scripts/generate-console-types.ts).
  await app.register(swagger, {
    decorator: 'consoleDocument',
    openapi: { openapi: '3.1.0', info: { title: 'webcap console', version: '1' } },
    transform: ({ schema, url }) => ({
      schema: { ...schema, hide: !url.startsWith('/console/api/') || url.endsWith('*') },
      url,
    }),
  });
  await app.register(swaggerUi, docsUiOptions);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // The server's own address opened in a browser: the reference, which links the console.
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/docs', 302));

  await app.register(healthRoutes(deps));
  if (routes === 'health') return app;
  await app.register(usageRoutes(deps));
  await app.register(statsRoutes(deps, catalog));
  await app.register(captureRoutes(deps));
  await app.register(contentRoutes(deps));
  await app.register(analyzeRoutes(deps));
  await app.register(extractRoutes(deps));
  await app.register(crawlerRoutes(deps));
  await app.register(crawlStartRoutes(deps));
  await app.register(crawlRecordRoutes(deps));
  await app.register(mapRoutes(deps));
  await app.register(batchStartRoutes(deps));
  await app.register(batchRecordRoutes(deps));
  await app.register(filesRoutes(deps));
  await app.register(jobsRoutes(deps));
  await app.register(legacyCaptureRoutes(deps));
  await app.register(legacyContentRoutes(deps));
  await app.register(legacyAnalyzeRoutes(deps));
  await app.register(mcpRoutes(deps));
  if (deps.config.adminToken !== null) {
    await app.register(adminRoutes(deps, deps.config.adminToken), { prefix: '/admin/v1' });
  }
  await app.register(consoleRoutes(deps, sessions, deps.consoleDir ?? BUILT_CONSOLE_DIR));
  return app;
}
