import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  createAccount,
  listAccounts,
  rotateWebhookSecret,
  showAccount,
  showWebhookSecret,
  updateAccount,
} from '../../../admin/accounts.js';
import {
  AccountJsonSchema,
  accountJson,
  WebhookSecretJsonSchema,
  webhookSecretJson,
} from '../../../admin/json.js';
import { AccountCreate, AccountUpdate, accountPatchOf, newAccountOf } from '../../admin-bodies.js';
import { ADMIN_DOC, type AdminOf, READ, READ_ONE, SlugParams, WRITE } from '../../admin-route-parts.js';
import { errors } from '../../responses/errors.js';

/** /accounts: create, list, show and update accounts, and show or rotate an account's webhook secret. */
export function adminAccountRoutes(admin: AdminOf): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/accounts',
      {
        schema: {
          ...ADMIN_DOC,
          body: AccountCreate,
          response: { 201: AccountJsonSchema, ...errors(400, 401, 409, 413, 500, 503) },
        },
      },
      async (request, reply) => {
        const account = await createAccount(admin(request), newAccountOf(request.body));
        return reply.code(201).send(accountJson(account));
      },
    );

    app.get(
      '/accounts',
      {
        schema: {
          ...ADMIN_DOC,
          response: { 200: Type.Object({ accounts: Type.Array(AccountJsonSchema) }), ...READ },
        },
      },
      async (request) => ({ accounts: (await listAccounts(admin(request))).map(accountJson) }),
    );

    app.get(
      '/accounts/:slug',
      { schema: { ...ADMIN_DOC, params: SlugParams, response: { 200: AccountJsonSchema, ...READ_ONE } } },
      async (request) => accountJson(await showAccount(admin(request), request.params.slug)),
    );
    // The account's webhook signing secret (docs/jobs.md): shown to the operator, who hands it to
    // the account's owner, and rotated on demand.
    app.get(
      '/accounts/:slug/webhook-secret',
      {
        schema: {
          ...ADMIN_DOC,
          params: SlugParams,
          response: { 200: WebhookSecretJsonSchema, ...READ_ONE },
        },
      },
      async (request) => webhookSecretJson(await showWebhookSecret(admin(request), request.params.slug)),
    );
    app.post(
      '/accounts/:slug/webhook-secret/rotate',
      {
        schema: { ...ADMIN_DOC, params: SlugParams, response: { 200: WebhookSecretJsonSchema, ...WRITE } },
      },
      async (request) => webhookSecretJson(await rotateWebhookSecret(admin(request), request.params.slug)),
    );

    app.patch(
      '/accounts/:slug',
      {
        schema: {
          ...ADMIN_DOC,
          params: SlugParams,
          body: AccountUpdate,
          response: { 200: AccountJsonSchema, ...WRITE },
        },
      },
      async (request) =>
        accountJson(await updateAccount(admin(request), request.params.slug, accountPatchOf(request.body))),
    );
  };
}
