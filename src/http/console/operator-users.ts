import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  CreatedUserJsonSchema,
  createdUserJson,
  PasswordJsonSchema,
  UserJsonSchema,
  userJson,
} from '../../admin/json.js';
import {
  AccountRoleSchema,
  createUser,
  deleteUser,
  listUsers,
  resetPassword,
  updateUser,
} from '../../admin/users.js';
import { NewPassword, PasswordReset, Slug, UserUpdate } from '../admin-bodies.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { adminAs } from './access.js';
import { IdParams, ListOf, SlugParams } from './schemas.js';

const AccountUserCreate = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    role: AccountRoleSchema,
    password: Type.Optional(NewPassword),
  },
  { additionalProperties: false },
);

/**
 * The operator console's people: an account's owners and members made, and every console user
 * listed, changed, given a new password or deleted, audited in the operator's name.
 */
export function operatorUserRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const config = { console: 'operator' as const };
  return async (app) => {
    app.post(
      '/console/api/operator/accounts/:slug/users',
      {
        config,
        schema: {
          hide: true,
          params: SlugParams,
          body: AccountUserCreate,
          response: { 201: CreatedUserJsonSchema, ...errors(400, 401, 403, 404, 409, 413, 503) },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const created = await createUser(adminAs(deps, request), {
          email: body.email,
          name: body.name,
          role: body.role,
          accountSlug: request.params.slug,
          password: body.password,
        });
        return reply.code(201).send(createdUserJson(created));
      },
    );

    app.get(
      '/console/api/operator/users',
      {
        config,
        schema: {
          hide: true,
          querystring: Type.Object({ account: Type.Optional(Slug) }, { additionalProperties: false }),
          response: { 200: ListOf(UserJsonSchema), ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const users = await listUsers(adminAs(deps, request), { accountSlug: request.query.account });
        return { items: users.map(userJson).reverse(), next: null };
      },
    );

    app.patch(
      '/console/api/operator/users/:id',
      {
        config,
        schema: {
          hide: true,
          params: IdParams,
          body: UserUpdate,
          response: { 200: UserJsonSchema, ...errors(400, 401, 403, 404, 409, 413) },
        },
      },
      async (request) => userJson(await updateUser(adminAs(deps, request), request.params.id, request.body)),
    );

    app.post(
      '/console/api/operator/users/:id/password',
      {
        config,
        // The body is optional: none generates a password.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          hide: true,
          params: IdParams,
          body: PasswordReset,
          response: { 200: PasswordJsonSchema, 204: Type.Null(), ...errors(400, 401, 403, 404, 413, 503) },
        },
      },
      async (request, reply) => {
        const reset = await resetPassword(adminAs(deps, request), request.params.id, request.body.password);
        if (reset.password === null) return reply.code(204).send(null);
        return { password: reset.password };
      },
    );

    app.delete(
      '/console/api/operator/users/:id',
      {
        config,
        schema: {
          hide: true,
          params: IdParams,
          response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        await deleteUser(adminAs(deps, request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
