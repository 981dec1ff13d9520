import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TObject, TSchema } from 'typebox';
import { invalidParam } from '../errors.js';
import { type ApiGeneration, KEY_PARAM } from './auth.js';
import { IdempotencyKeyHeaders } from './call-response.js';
import { splitWordLists, wordListParams } from './query-lists.js';
import { errors } from './responses/errors.js';
import { withSignedLinkFields } from './signed-links.js';

/** Where each API generation's key may be sent (the OpenAPI security requirement). */
const SECURITY: Readonly<Record<'v1' | 'legacy', Record<string, string[]>[]>> = {
  v1: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
  legacy: [{ legacyKey: [] }],
};

/** The query parameters a POST reads: its generation's key (http/auth.ts), nothing else. */
const POST_QUERY: Readonly<Record<ApiGeneration, readonly string[]>> = {
  v1: [KEY_PARAM.v1],
  legacy: [KEY_PARAM.legacy],
  any: [KEY_PARAM.v1, KEY_PARAM.legacy],
};

/**
 * Refuses a POST's query parameters other than its key: POST reads its parameters from the body
 * only, and one sent in the query (`?is_async=true`) would otherwise be ignored without a word.
 */
function postQueryOnly(generation: ApiGeneration) {
  const allowed = POST_QUERY[generation];
  return async (request: FastifyRequest) => {
    for (const name of Object.keys(request.query as Record<string, unknown>)) {
      if (!allowed.includes(name))
        throw invalidParam(
          name,
          'was sent in the query string, which POST does not read: send it in the body',
        );
    }
  };
}

/** A GET that takes signed links may instead carry one (docs/signed-links.md). */
const SIGNED_LINK_SECURITY = [...SECURITY.v1, { signedLink: [] }];

/** One endpoint: its parameters' schema, declared responses and handler, for one or both methods. */
export interface Endpoint<P extends TSchema> {
  readonly url: string;
  /** GET takes the parameters as a query string, POST as a JSON or form body: one definition, both methods. */
  readonly methods: readonly ('GET' | 'POST')[];
  readonly auth: ApiGeneration;
  /** The engine slug of the stats catalog. */
  readonly engine: string;
  /** The call is billed: HEAD is refused (docs/security.md); it takes an Idempotency-Key, as a job, crawl or batch. */
  readonly billable: boolean;
  /** The parameter holding the call's target URL, for the request log: `url` unless named. */
  readonly target?: string;
  readonly tags: readonly string[];
  readonly summary: string;
  readonly params: P;
  /** Its GET also takes signed links: key_id, expires and signature in the query instead of a key. */
  readonly signedLinks?: boolean;
  /** The responses of both methods; POST adds its 413, a body over BODY_LIMIT_BYTES (GET has no body). */
  readonly response: Readonly<Record<number, unknown>>;
  readonly handler: (input: Static<P>, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/**
 * The body schema of a v1 endpoint: its parameters without x_api_key. A v1 key is read from the
 * X-API-Key header or the query string before the body is (http/auth.ts), so a key in a body
 * would be ignored: it is refused as an unknown parameter instead, and the document says so.
 */
function bodyParams<P extends TSchema>(params: P, auth: ApiGeneration): P {
  const properties = (params as { properties?: Record<string, unknown> }).properties;
  if (auth !== 'v1' || properties === undefined || !('x_api_key' in properties)) return params;
  const { x_api_key: _key, ...rest } = properties;
  return { ...params, properties: rest };
}

/**
 * The plugin that registers an endpoint under each of its methods, validated against the same
 * schema (querystring for GET, body for POST, where a v1 key has no place), so that a GET/POST
 * pair cannot drift apart.
 */
export function endpoint<P extends TSchema>(def: Endpoint<P>): FastifyPluginAsync {
  const security = def.auth === 'any' ? undefined : SECURITY[def.auth];
  const config = {
    auth: def.auth,
    engine: def.engine,
    target: def.target ?? 'url',
    ...(def.billable ? { billable: true as const } : {}),
    // On every method, so that a POST carrying a signature is told that only GET takes one.
    ...(def.signedLinks === true ? { signedLinks: true as const } : {}),
  };
  const wordLists = wordListParams(def.params);
  return async (app) => {
    for (const method of def.methods) {
      const source = method === 'GET' ? 'querystring' : 'body';
      const signed = method === 'GET' && def.signedLinks === true;
      const methodSecurity = signed ? SIGNED_LINK_SECURITY : security;
      app.route({
        method,
        url: def.url,
        config,
        schema: {
          tags: [...def.tags],
          summary: def.summary,
          ...(methodSecurity === undefined ? {} : { security: methodSecurity }),
          ...(def.billable ? { headers: IdempotencyKeyHeaders } : {}),
          [source]: signed
            ? withSignedLinkFields(def.params as unknown as TObject)
            : method === 'GET'
              ? def.params
              : bodyParams(def.params, def.auth),
          response: method === 'POST' ? { ...def.response, ...errors(413) } : def.response,
        },
        ...(method === 'POST'
          ? { preValidation: postQueryOnly(def.auth) }
          : wordLists.length > 0
            ? {
                preValidation: async (request: FastifyRequest) =>
                  splitWordLists(request.query as Record<string, unknown>, wordLists),
              }
            : {}),
        // Validated against `params` before the handler runs.
        handler: (request, reply) =>
          def.handler((method === 'GET' ? request.query : request.body) as Static<P>, request, reply),
      });
    }
  };
}
