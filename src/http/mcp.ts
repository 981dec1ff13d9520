import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { callerOfKey } from '../calls/caller.js';
import type { Caller } from '../calls/metering.js';
import { WebcapError } from '../errors.js';
import { InProcessBackend } from '../mcp/in-process.js';
import { createMcpServer } from '../mcp/server.js';
import { bearerToken } from './bearer.js';
import { baseUrlOf } from './call-response.js';
import type { AppDeps } from './deps.js';

/** The account's API key: `Authorization: Bearer KEY`, as MCP clients send it, or `x-api-key` as on v1. */
function presentedKey(request: FastifyRequest): string | undefined {
  const bearer = bearerToken(request);
  if (bearer !== undefined) return bearer;
  const header = request.headers['x-api-key'];
  return typeof header === 'string' ? header : undefined;
}

/** The request as a web Request for the SDK's transport; its body is handed over parsed. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && name !== 'content-length') {
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
  }
  return new Request(`http://localhost${request.url}`, { method: request.method, headers });
}

const callers = new WeakMap<FastifyRequest, Caller>();

/**
 * POST /mcp: MCP over Streamable HTTP, stateless (a server and a transport per request, no
 * session id), answered as JSON. The account's key is checked before the body is read, so a
 * caller without one gets the REST 401 and no tool runs; the tools run through the call layer
 * (http/…/call-response.ts's path) and each leaves its own request-log row. The body is bounded by
 * BODY_LIMIT_BYTES like every body. Not part of the REST contract: hidden from /openapi.json.
 */
export function mcpRoutes(deps: AppDeps): FastifyPluginAsync {
  return async (app) => {
    const config = { engine: 'mcp' };
    app.post(
      '/mcp',
      {
        config,
        schema: { hide: true },
        onRequest: async (request, reply) => {
          try {
            callers.set(request, await callerOfKey(deps.keys, presentedKey(request), deps.clock()));
          } catch (error) {
            if (error instanceof WebcapError && error.code === 'invalid_key') {
              reply.header('www-authenticate', 'Bearer realm="webcap"');
            }
            throw error;
          }
        },
      },
      async (request, reply) => {
        const caller = callers.get(request);
        if (caller === undefined) throw new WebcapError('invalid_key');
        const backend = new InProcessBackend(
          {
            calls: deps.calls,
            jobs: deps.jobs,
            crawls: deps.crawls,
            crawlCeilings: deps.config.crawl,
            db: deps.store.db,
            requestLog: deps.requestLog,
            metrics: deps.metrics,
          },
          async () => caller,
          { baseUrl: baseUrlOf(deps, request) },
        );
        const server = createMcpServer(backend, deps.logger.child({ reqId: request.id }));
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        try {
          await server.connect(transport);
          const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
          const body = Buffer.from(await response.arrayBuffer());
          reply.code(response.status);
          response.headers.forEach((value, name) => {
            reply.header(name, value);
          });
          return reply.send(body);
        } finally {
          await server.close();
        }
      },
    );
    // Stateless: no stream to open with GET and no session to end with DELETE.
    app.route({
      method: ['GET', 'DELETE'],
      url: '/mcp',
      config,
      schema: { hide: true },
      handler: async () => {
        throw new WebcapError('method_not_allowed', 'this MCP endpoint is stateless; use POST', {
          allow: 'POST',
        });
      },
    });
  };
}
