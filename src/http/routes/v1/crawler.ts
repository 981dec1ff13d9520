import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { crawlCall } from '../../../calls/crawl.js';
import { sendJob, wantsAsync } from '../../async-call.js';
import { callerOf } from '../../auth.js';
import type { AppDeps } from '../../deps.js';
import { BILLABLE_ERRORS, CrawlerSuccess, errors, JobAcceptedBody } from '../../responses.js';
import { asyncFields, Flag, flag } from '../../schemas.js';

const CrawlerQuery = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 8192, description: 'page URL, http or https' }),
    allow_redirects: Type.Optional(Flag),
    return_page_source: Type.Optional(Flag),
    x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
    ...asyncFields,
  },
  { additionalProperties: false },
);

/** GET /v1/website/crawler: a page's raw HTML in request mode, without rendering; 1 credit. */
export function crawlerRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/website/crawler',
      {
        config: { auth: 'v1', engine: 'website-crawler', billable: true },
        schema: {
          tags: ['crawler'],
          summary: "A page's raw HTML, without rendering",
          security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
          querystring: CrawlerQuery,
          response: { 200: CrawlerSuccess, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS) },
        },
      },
      async (request, reply) => {
        const { query } = request;
        const allowRedirects = query.allow_redirects === undefined ? true : flag(query.allow_redirects);
        const params = { url: query.query, allowRedirects };
        if (wantsAsync(query)) {
          const pageSource = flag(query.return_page_source);
          return sendJob(deps, request, reply, { engine: 'website-crawler', params, pageSource }, query);
        }
        const { value: result, billed } = await crawlCall(deps.calls, callerOf(request), params);
        request.billed = billed;
        if (flag(query.return_page_source)) {
          return reply
            .type('text/html; charset=utf-8')
            .header('x-webcap-target-status', result.statusCode)
            .send(result.html);
        }
        const { html: _html, redirects, headers, ...rest } = result;
        return {
          success: true as const,
          data: { ...rest, redirects: [...redirects], headers: { ...headers } },
        };
      },
    );
  };
}
