import type { FastifyInstance } from 'fastify';
import type { ConsoleSessions } from '../../admin/sessions.js';
import { WebcapError } from '../../errors.js';
import type { AppDeps } from '../deps.js';
import { consoleAccessHook } from './access.js';
import { accountRoutes } from './account.js';
import { crawlRoutes } from './crawls.js';
import { consoleHeaders, frontEndRoutes } from './front-end.js';
import { jobRoutes } from './jobs.js';
import { keyRoutes } from './keys.js';
import { operatorRoutes } from './operator.js';
import { operatorAccountRoutes } from './operator-accounts.js';
import { operatorCreditRoutes } from './operator-credits.js';
import { operatorPackRoutes } from './operator-packs.js';
import { operatorUserRoutes } from './operator-users.js';
import { sessionRoutes } from './session.js';
import { usageRoutes } from './usage.js';
import { userRoutes } from './users.js';

/**
 * The console (docs/console.md): its API under /console/api, cookie-authenticated and hidden
 * from /openapi.json (it is the console's, not a public API), and its built front end under
 * /console. Every route states who may call it (`config.console`); access.ts checks it, once.
 */
const CONSOLE_API_PATH = /^\/console\/api(?:[/?]|$)/;

export function consoleRoutes(deps: AppDeps, sessions: ConsoleSessions, frontEndDir: string) {
  return async (app: FastifyInstance): Promise<void> => {
    app.decorateRequest('consoleSignIn', null);
    const headers = consoleHeaders(deps.config.publicBaseUrl);
    app.addHook('onRequest', async (request, reply) => {
      reply.headers(headers);
      // Answers about a person's session and account are never kept by a cache.
      if (CONSOLE_API_PATH.test(request.url)) reply.header('cache-control', 'no-store');
    });
    app.addHook('onRequest', consoleAccessHook(deps, sessions));
    await app.register(sessionRoutes(deps, sessions));
    await app.register(usageRoutes(deps));
    await app.register(keyRoutes(deps));
    await app.register(jobRoutes(deps));
    await app.register(crawlRoutes(deps));
    await app.register(accountRoutes(deps));
    await app.register(userRoutes(deps));
    await app.register(operatorAccountRoutes(deps));
    await app.register(operatorPackRoutes(deps));
    await app.register(operatorCreditRoutes(deps));
    await app.register(operatorUserRoutes(deps));
    await app.register(operatorRoutes(deps));
    // An unknown API path, the API's root included, is a JSON 404, not the front end's page.
    const unknown = async () => {
      throw new WebcapError('not_found');
    };
    app.all('/console/api', { schema: { hide: true } }, unknown);
    app.all('/console/api/*', { schema: { hide: true } }, unknown);
    await frontEndRoutes(app, frontEndDir);
  };
}
