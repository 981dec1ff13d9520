import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendContent } from '../../content-response.js';
import { V1ContentQuery } from '../../content-schema.js';
import type { AppDeps } from '../../deps.js';
import { BILLABLE_ERRORS, ContentBody, errors, JobAcceptedBody } from '../../responses.js';

/** GET /v1/content: a page's metadata, links and, as asked, HTML, Markdown and sitemap; 1 credit. */
export function contentRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/content',
      {
        config: { auth: 'v1', engine: 'content', billable: true },
        schema: {
          tags: ['content'],
          summary: "A page's metadata, links, HTML, Markdown and sitemap",
          security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
          querystring: V1ContentQuery,
          response: { 200: ContentBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
        },
      },
      async (request, reply) => {
        await sendContent(deps, request, reply, request.query);
      },
    );
  };
}
