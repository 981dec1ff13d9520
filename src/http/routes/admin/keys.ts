import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  CreatedKeyJsonSchema,
  createdKeyJson,
  KeyJsonSchema,
  keyJson,
  RotatedSigningSecretJsonSchema,
  rotatedSigningSecretJson,
} from '../../../admin/json.js';
import {
  createKey,
  listKeys,
  revokeKey,
  rotateSigningSecret,
  showKey,
  updateKey,
} from '../../../admin/keys.js';
import { KeyCreate, KeyUpdate, keyPatchOf, Slug } from '../../admin-bodies.js';
import { ADMIN_DOC, type AdminOf, KeyParams, READ_ONE, WRITE } from '../../admin-route-parts.js';
import { errors } from '../../responses/errors.js';

/** /keys: create, list, show, update and revoke API keys, and rotate their signing secrets. */
export function adminKeyRoutes(admin: AdminOf): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/keys',
      { schema: { ...ADMIN_DOC, body: KeyCreate, response: { 201: CreatedKeyJsonSchema, ...WRITE } } },
      async (request, reply) => {
        const body = request.body;
        const created = await createKey(admin(request), {
          accountSlug: body.account,
          alias: body.alias,
          category: body.category,
          expiresAt: body.expires,
          quotas: body.quotas,
          signedOnly: body.signed_only,
        });
        return reply.code(201).send(createdKeyJson(created));
      },
    );

    app.get(
      '/keys',
      {
        schema: {
          ...ADMIN_DOC,
          querystring: Type.Object({ account: Type.Optional(Slug) }),
          response: { 200: Type.Object({ keys: Type.Array(KeyJsonSchema) }), ...READ_ONE },
        },
      },
      async (request) => ({
        keys: (await listKeys(admin(request), { accountSlug: request.query.account })).map(keyJson),
      }),
    );

    app.get(
      '/keys/:id',
      { schema: { ...ADMIN_DOC, params: KeyParams, response: { 200: KeyJsonSchema, ...READ_ONE } } },
      async (request) => keyJson(await showKey(admin(request), request.params.id)),
    );

    app.patch(
      '/keys/:id',
      {
        schema: {
          ...ADMIN_DOC,
          params: KeyParams,
          body: KeyUpdate,
          response: { 200: KeyJsonSchema, ...WRITE },
        },
      },
      async (request) =>
        keyJson(await updateKey(admin(request), request.params.id, keyPatchOf(request.body))),
    );

    app.post(
      '/keys/:id/revoke',
      { schema: { ...ADMIN_DOC, params: KeyParams, response: { 200: KeyJsonSchema, ...WRITE } } },
      async (request) => keyJson(await revokeKey(admin(request), request.params.id)),
    );

    app.post(
      '/keys/:id/signing-secret',
      {
        schema: {
          ...ADMIN_DOC,
          params: KeyParams,
          // A revoked key's is refused (409): nothing could use it.
          response: { 200: RotatedSigningSecretJsonSchema, ...WRITE, ...errors(409) },
        },
      },
      async (request) =>
        rotatedSigningSecretJson(await rotateSigningSecret(admin(request), request.params.id)),
    );
  };
}
