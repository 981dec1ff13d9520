import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createAccount, listAccounts, showAccount, updateAccount } from '../../admin/accounts.js';
import { listPacks } from '../../admin/balances.js';
import {
  AccountJsonSchema,
  accountJson,
  PackJsonSchema,
  packJson,
  UserJsonSchema,
  userJson,
} from '../../admin/json.js';
import { listKeys } from '../../admin/keys.js';
import { countUsersByAccount, listUsers } from '../../admin/users.js';
import { countKeysByAccount } from '../../billing/keys.js';
import { AccountUsageSchema, accountUsage } from '../../billing/usage.js';
import { callsSince } from '../../stats/request-log.js';
import { AccountCreate, AccountUpdate, accountPatchOf, newAccountOf } from '../admin-bodies.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { adminAs } from './access.js';
import { ConsoleKeySchema, consoleKeys, ListOf, SlugParams } from './schemas.js';

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

/**
 * The operator console's accounts (docs/console.md, "Operator console"): the same operations as
 * the admin API and `webcap admin`, audited in the operator's name; the list and the detail add
 * what the console shows beside each account.
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
  };
}
