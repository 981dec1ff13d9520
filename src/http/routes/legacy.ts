import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendAnalysis } from '../analyze-response.js';
import { LegacyAnalyzeParams } from '../analyze-schema.js';
import { baseUrlOf, sendCapture } from '../capture-response.js';
import { captureRequest, LegacyCaptureParams } from '../capture-schema.js';
import { sendContent } from '../content-response.js';
import { LegacyContentParams } from '../content-schema.js';
import type { AppDeps } from '../deps.js';
import {
  AnalyzeBody,
  BILLABLE_ERRORS,
  CaptureSuccess,
  ContentBody,
  errors,
  JobAcceptedBody,
} from '../responses.js';

/**
 * The earlier unversioned endpoints, authenticated with access_key, by GET (query) or POST
 * (JSON or form body), mapped onto the same engines with the spec's differences.
 */
export function legacyRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['legacy'];
    const security = [{ legacyKey: [] }];

    const capture = { auth: 'legacy' as const, engine: 'capture', billable: true as const };
    const captureResponse = { 200: CaptureSuccess, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS, 413) };
    const captureSummary = 'Screenshot (earlier interface)';
    app.get(
      '/capture',
      {
        config: capture,
        schema: {
          tags,
          security,
          summary: captureSummary,
          querystring: LegacyCaptureParams,
          response: captureResponse,
        },
      },
      async (request, reply) => {
        const { params, delivery } = captureRequest(request.query, true, baseUrlOf(deps, request));
        return sendCapture(deps, request, reply, params, delivery, request.query);
      },
    );
    app.post(
      '/capture',
      {
        config: capture,
        schema: {
          tags,
          security,
          summary: captureSummary,
          body: LegacyCaptureParams,
          response: captureResponse,
        },
      },
      async (request, reply) => {
        const { params, delivery } = captureRequest(request.body, true, baseUrlOf(deps, request));
        return sendCapture(deps, request, reply, params, delivery, request.body);
      },
    );

    const content = { auth: 'legacy' as const, engine: 'content', billable: true as const };
    const contentResponse = { 200: ContentBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS, 413) };
    const contentSummary = "A page's metadata, links, HTML and Markdown (earlier interface)";
    app.get(
      '/content',
      {
        config: content,
        schema: {
          tags,
          security,
          summary: contentSummary,
          querystring: LegacyContentParams,
          response: contentResponse,
        },
      },
      async (request, reply) => {
        await sendContent(deps, request, reply, request.query);
      },
    );
    app.post(
      '/content',
      {
        config: content,
        schema: {
          tags,
          security,
          summary: contentSummary,
          body: LegacyContentParams,
          response: contentResponse,
        },
      },
      async (request, reply) => {
        await sendContent(deps, request, reply, request.body);
      },
    );

    const analyze = { auth: 'legacy' as const, engine: 'analyze', billable: true as const };
    const analyzeResponse = { 200: AnalyzeBody, 202: JobAcceptedBody, ...errors(...BILLABLE_ERRORS, 413) };
    const analyzeSummary = 'An analysis of a page (earlier interface)';
    app.get(
      '/analyze',
      {
        config: analyze,
        schema: {
          tags,
          security,
          summary: analyzeSummary,
          querystring: LegacyAnalyzeParams,
          response: analyzeResponse,
        },
      },
      async (request, reply) => {
        await sendAnalysis(deps, request, reply, request.query);
      },
    );
    app.post(
      '/analyze',
      {
        config: analyze,
        schema: {
          tags,
          security,
          summary: analyzeSummary,
          body: LegacyAnalyzeParams,
          response: analyzeResponse,
        },
      },
      async (request, reply) => {
        await sendAnalysis(deps, request, reply, request.body);
      },
    );
  };
}
