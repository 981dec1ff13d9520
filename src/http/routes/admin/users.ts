import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  CreatedUserJsonSchema,
  createdUserJson,
  PasswordJsonSchema,
  UserJsonSchema,
  userJson,
} from '../../../admin/json.js';
import { createUser, deleteUser, listUsers, resetPassword, updateUser } from '../../../admin/users.js';
import { PasswordReset, Slug, UserCreate, UserUpdate } from '../../admin-bodies.js';
import { ADMIN_DOC, type AdminOf, READ_ONE, UserParams, WRITE } from '../../admin-route-parts.js';
import { errors } from '../../responses/errors.js';

/** /users: console users (docs/console.md), owners and members of an account, and operators. */
export function adminUserRoutes(admin: AdminOf): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/users',
      {
        schema: {
          ...ADMIN_DOC,
          body: UserCreate,
          response: { 201: CreatedUserJsonSchema, ...errors(400, 401, 404, 409, 413, 500, 503) },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const created = await createUser(admin(request), {
          email: body.email,
          name: body.name,
          role: body.role,
          accountSlug: body.account,
          password: body.password,
        });
        return reply.code(201).send(createdUserJson(created));
      },
    );

    app.get(
      '/users',
      {
        schema: {
          ...ADMIN_DOC,
          querystring: Type.Object({ account: Type.Optional(Slug) }, { additionalProperties: false }),
          response: { 200: Type.Object({ users: Type.Array(UserJsonSchema) }), ...READ_ONE },
        },
      },
      async (request) => ({
        users: (await listUsers(admin(request), { accountSlug: request.query.account })).map(userJson),
      }),
    );

    app.patch(
      '/users/:id',
      {
        schema: {
          ...ADMIN_DOC,
          params: UserParams,
          body: UserUpdate,
          response: { 200: UserJsonSchema, ...errors(400, 401, 404, 409, 413, 500, 503) },
        },
      },
      async (request) => userJson(await updateUser(admin(request), request.params.id, request.body)),
    );

    // A password given is set (204); without one, one is generated and answered once (200).
    app.post(
      '/users/:id/password',
      {
        // The body is optional: none generates a password.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          ...ADMIN_DOC,
          params: UserParams,
          body: PasswordReset,
          response: { 200: PasswordJsonSchema, 204: Type.Null(), ...WRITE },
        },
      },
      async (request, reply) => {
        const reset = await resetPassword(admin(request), request.params.id, request.body.password);
        if (reset.password === null) return reply.code(204).send(null);
        return { password: reset.password };
      },
    );

    app.delete(
      '/users/:id',
      {
        schema: {
          ...ADMIN_DOC,
          params: UserParams,
          response: { 204: Type.Null(), ...errors(400, 401, 404, 409, 500, 503) },
        },
      },
      async (request, reply) => {
        await deleteUser(admin(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
