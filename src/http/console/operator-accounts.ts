import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createAccount, listAccounts, showAccount, updateAccount } from '../../admin/accounts.js';
import { addPack, grantCredits, listPacks } from '../../admin/balances.js';
import {
  AccountJsonSchema,
  accountJson,
  CreatedUserJsonSchema,
  createdUserJson,
  GrantJsonSchema,
  grantJson,
  PackJsonSchema,
  PasswordJsonSchema,
  packJson,
  UserJsonSchema,
  userJson,
} from '../../admin/json.js';
import { listKeys } from '../../admin/keys.js';
import {
  AccountRoleSchema,
  countUsersByAccount,
  createUser,
  deleteUser,
  listUsers,
  resetPassword,
  updateUser,
} from '../../admin/users.js';
import { countKeysByAccount } from '../../billing/keys.js';
import { AccountUsageSchema, accountUsage } from '../../billing/usage.js';
import { callsSince } from '../../stats/request-log.js';
import {
  AccountCreate,
  AccountUpdate,
  accountPatchOf,
  CreditGrant,
  NewPassword,
  newAccountOf,
  PackCreate,
  PasswordReset,
  Slug,
  UserUpdate,
} from '../admin-bodies.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { adminAs } from './access.js';
import { ConsoleKeySchema, consoleKeys, IdParams, ListOf, SlugParams } from './schemas.js';

const AccountItem = Type.Object({
  ...AccountJsonSchema.properties,
  remaining: Type.Integer(),
  keys: Type.Integer(),
  users: Type.Integer(),
  calls_today: Type.Integer(),
});

const AccountDetail = Type.Object({
  account: AccountJsonSchema,
  usage: AccountUsageSchema,
  keys: Type.Array(ConsoleKeySchema),
  users: Type.Array(UserJsonSchema),
  packs: Type.Array(PackJsonSchema),
});

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
 * The operator console's accounts and people (docs/console.md, "Operator console"): the same
 * operations as the admin API and `webcap admin`, audited in the operator's name.
 */
export function operatorAccountRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const config = { console: 'operator' as const };
  const { db } = deps.store;
  return async (app) => {
    app.get(
      '/console/api/operator/accounts',
      { config, schema: { hide: true, response: { 200: ListOf(AccountItem), ...errors(401, 403) } } },
      async (request) => {
        const now = deps.clock();
        const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
        const [accounts, keys, users, calls] = await Promise.all([
          listAccounts(adminAs(deps, request)),
          countKeysByAccount(db),
          countUsersByAccount(db),
          callsSince(db, today),
        ]);
        const items = await Promise.all(
          accounts.map(async (account) => ({
            ...accountJson(account),
            remaining: (await accountUsage(db, account, now)).remaining,
            keys: keys.get(account.id) ?? 0,
            users: users.get(account.id) ?? 0,
            calls_today: calls.get(account.id) ?? 0,
          })),
        );
        return { items: items.reverse(), next: null };
      },
    );

    app.post(
      '/console/api/operator/accounts',
      {
        config,
        schema: {
          hide: true,
          body: AccountCreate,
          response: { 201: AccountJsonSchema, ...errors(400, 401, 403, 409, 413) },
        },
      },
      async (request, reply) => {
        const account = await createAccount(adminAs(deps, request), newAccountOf(request.body));
        return reply.code(201).send(accountJson(account));
      },
    );

    app.get(
      '/console/api/operator/accounts/:slug',
      {
        config,
        schema: {
          hide: true,
          params: SlugParams,
          response: { 200: AccountDetail, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const admin = adminAs(deps, request);
        const account = await showAccount(admin, request.params.slug);
        const now = deps.clock();
        const [usage, keys, users, packs] = await Promise.all([
          accountUsage(db, account, now),
          listKeys(admin, { accountSlug: account.slug }),
          listUsers(admin, { accountId: account.id }),
          listPacks(admin, account.slug),
        ]);
        return {
          account: accountJson(account),
          usage,
          keys: (await consoleKeys(db, keys, now)).reverse(),
          users: users.map(userJson).reverse(),
          packs: packs.map(packJson),
        };
      },
    );

    app.patch(
      '/console/api/operator/accounts/:slug',
      {
        config,
        schema: {
          hide: true,
          params: SlugParams,
          body: AccountUpdate,
          response: { 200: AccountJsonSchema, ...errors(400, 401, 403, 404, 413) },
        },
      },
      async (request) =>
        accountJson(
          await updateAccount(adminAs(deps, request), request.params.slug, accountPatchOf(request.body)),
        ),
    );

    app.post(
      '/console/api/operator/accounts/:slug/packs',
      {
        config,
        schema: {
          hide: true,
          params: SlugParams,
          body: PackCreate,
          response: { 201: PackJsonSchema, ...errors(400, 401, 403, 404, 413) },
        },
      },
      async (request, reply) => {
        const { total, title, purchased_at: purchasedAt } = request.body;
        const pack = await addPack(adminAs(deps, request), {
          accountSlug: request.params.slug,
          total,
          title,
          purchasedAt,
        });
        return reply.code(201).send(packJson(pack));
      },
    );

    app.post(
      '/console/api/operator/accounts/:slug/credits',
      {
        config,
        schema: {
          hide: true,
          params: SlugParams,
          body: CreditGrant,
          response: { 201: GrantJsonSchema, ...errors(400, 401, 403, 404, 413) },
        },
      },
      async (request, reply) => {
        const { amount, note } = request.body;
        const grant = await grantCredits(adminAs(deps, request), {
          accountSlug: request.params.slug,
          amount,
          note,
        });
        return reply.code(201).send(grantJson(grant));
      },
    );

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
