import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  createAccount,
  listAccounts,
  rotateWebhookSecret,
  showAccount,
  showWebhookSecret,
  updateAccount,
} from '../../admin/accounts.js';
import { adminApiActor, readAudit } from '../../admin/audit.js';
import { addPack, grantCredits, listPacks, showLedger } from '../../admin/balances.js';
import type { AdminDeps } from '../../admin/deps.js';
import {
  AccountJsonSchema,
  AuditEntryJsonSchema,
  accountJson,
  auditEntryJson,
  CreatedKeyJsonSchema,
  CreatedUserJsonSchema,
  createdKeyJson,
  createdUserJson,
  GrantJsonSchema,
  grantJson,
  KeyJsonSchema,
  keyJson,
  LedgerJsonSchema,
  ledgerJson,
  PackJsonSchema,
  PasswordJsonSchema,
  packJson,
  UserJsonSchema,
  userJson,
  WebhookSecretJsonSchema,
  webhookSecretJson,
} from '../../admin/json.js';
import { createKey, listKeys, revokeKey, showKey, updateKey } from '../../admin/keys.js';
import { createUser, deleteUser, listUsers, resetPassword, updateUser } from '../../admin/users.js';
import { Nullable } from '../../nullable.js';
import {
  AccountCreate,
  AccountUpdate,
  accountPatchOf,
  CreditGrant,
  KeyCreate,
  KeyUpdate,
  keyPatchOf,
  newAccountOf,
  PackCreate,
  PasswordReset,
  Slug,
  UserCreate,
  UserUpdate,
} from '../admin-bodies.js';
import { bearerCheck } from '../bearer.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';

const AuditQuery = Type.Object(
  {
    account: Type.Optional(Slug),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** The operator API under /admin/v1, behind `Authorization: Bearer $WEBCAP_ADMIN_TOKEN`: src/admin's operations over HTTP. */
export function adminRoutes(deps: AppDeps, token: string): FastifyPluginAsyncTypebox {
  const check = bearerCheck(token, 'admin token');
  // Each request acts as the admin API from its client's address, for the audit log.
  const admin = (request: FastifyRequest): AdminDeps => ({
    db: deps.store.db,
    clock: deps.clock,
    jobRetentionMs: deps.config.jobs.retentionMs,
    actor: adminApiActor(request.ip),
  });
  return async (app) => {
    app.addHook('onRequest', async (request) => {
      check(request);
    });
    const tags = ['admin'];
    const security = [{ adminToken: [] }];
    // What each kind of route can answer besides its success: every route 401 (the token) and
    // 500/503; a path parameter or query out of bounds 400; a body 400 and 413 (and any POST 413,
    // as its body is read); a named account or key 404; a taken slug 409.
    const read = errors(401, 500, 503);
    const readOne = errors(400, 401, 404, 500, 503);
    const write = errors(400, 401, 404, 413, 500, 503);
    const SlugParams = Type.Object({ slug: Slug });
    const KeyParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
    const UserParams = KeyParams;

    app.post(
      '/accounts',
      {
        schema: {
          tags,
          security,
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
          tags,
          security,
          response: { 200: Type.Object({ accounts: Type.Array(AccountJsonSchema) }), ...read },
        },
      },
      async (request) => ({ accounts: (await listAccounts(admin(request))).map(accountJson) }),
    );

    app.get(
      '/accounts/:slug',
      { schema: { tags, security, params: SlugParams, response: { 200: AccountJsonSchema, ...readOne } } },
      async (request) => accountJson(await showAccount(admin(request), request.params.slug)),
    );
    // The account's webhook signing secret (docs/jobs.md): shown to the operator, who hands it to
    // the account's owner, and rotated on demand.
    app.get(
      '/accounts/:slug/webhook-secret',
      {
        schema: {
          tags,
          security,
          params: SlugParams,
          response: { 200: WebhookSecretJsonSchema, ...readOne },
        },
      },
      async (request) => webhookSecretJson(await showWebhookSecret(admin(request), request.params.slug)),
    );
    app.post(
      '/accounts/:slug/webhook-secret/rotate',
      {
        schema: { tags, security, params: SlugParams, response: { 200: WebhookSecretJsonSchema, ...write } },
      },
      async (request) => webhookSecretJson(await rotateWebhookSecret(admin(request), request.params.slug)),
    );

    app.patch(
      '/accounts/:slug',
      {
        schema: {
          tags,
          security,
          params: SlugParams,
          body: AccountUpdate,
          response: { 200: AccountJsonSchema, ...write },
        },
      },
      async (request) =>
        accountJson(await updateAccount(admin(request), request.params.slug, accountPatchOf(request.body))),
    );

    app.post(
      '/accounts/:slug/packs',
      {
        schema: {
          tags,
          security,
          params: SlugParams,
          body: PackCreate,
          response: { 201: PackJsonSchema, ...write },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const pack = await addPack(admin(request), {
          accountSlug: request.params.slug,
          total: body.total,
          title: body.title,
          purchasedAt: body.purchased_at,
        });
        return reply.code(201).send(packJson(pack));
      },
    );

    app.get(
      '/accounts/:slug/packs',
      {
        schema: {
          tags,
          security,
          params: SlugParams,
          response: { 200: Type.Object({ packs: Type.Array(PackJsonSchema) }), ...readOne },
        },
      },
      async (request) => ({ packs: (await listPacks(admin(request), request.params.slug)).map(packJson) }),
    );

    app.post(
      '/accounts/:slug/credits',
      {
        schema: {
          tags,
          security,
          params: SlugParams,
          body: CreditGrant,
          response: { 201: GrantJsonSchema, ...write },
        },
      },
      async (request, reply) => {
        const { amount, note } = request.body;
        const grant = await grantCredits(admin(request), { accountSlug: request.params.slug, amount, note });
        return reply.code(201).send(grantJson(grant));
      },
    );

    app.get(
      '/accounts/:slug/ledger',
      {
        schema: {
          tags,
          security,
          params: SlugParams,
          querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }),
          response: { 200: LedgerJsonSchema, ...readOne },
        },
      },
      async (request) =>
        ledgerJson(await showLedger(admin(request), request.params.slug, request.query.limit ?? 100)),
    );

    app.post(
      '/keys',
      { schema: { tags, security, body: KeyCreate, response: { 201: CreatedKeyJsonSchema, ...write } } },
      async (request, reply) => {
        const body = request.body;
        const created = await createKey(admin(request), {
          accountSlug: body.account,
          alias: body.alias,
          category: body.category,
          expiresAt: body.expires,
          quotas: body.quotas,
        });
        return reply.code(201).send(createdKeyJson(created));
      },
    );

    app.get(
      '/keys',
      {
        schema: {
          tags,
          security,
          querystring: Type.Object({ account: Type.Optional(Slug) }),
          response: { 200: Type.Object({ keys: Type.Array(KeyJsonSchema) }), ...readOne },
        },
      },
      async (request) => ({
        keys: (await listKeys(admin(request), { accountSlug: request.query.account })).map(keyJson),
      }),
    );

    app.get(
      '/keys/:id',
      { schema: { tags, security, params: KeyParams, response: { 200: KeyJsonSchema, ...readOne } } },
      async (request) => keyJson(await showKey(admin(request), request.params.id)),
    );

    app.patch(
      '/keys/:id',
      {
        schema: {
          tags,
          security,
          params: KeyParams,
          body: KeyUpdate,
          response: { 200: KeyJsonSchema, ...write },
        },
      },
      async (request) =>
        keyJson(await updateKey(admin(request), request.params.id, keyPatchOf(request.body))),
    );

    app.post(
      '/keys/:id/revoke',
      { schema: { tags, security, params: KeyParams, response: { 200: KeyJsonSchema, ...write } } },
      async (request) => keyJson(await revokeKey(admin(request), request.params.id)),
    );

    // Console users (docs/console.md): owners and members of an account, and operators.
    app.post(
      '/users',
      {
        schema: {
          tags,
          security,
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
          tags,
          security,
          querystring: Type.Object({ account: Type.Optional(Slug) }, { additionalProperties: false }),
          response: { 200: Type.Object({ users: Type.Array(UserJsonSchema) }), ...readOne },
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
          tags,
          security,
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
          tags,
          security,
          params: UserParams,
          body: PasswordReset,
          response: { 200: PasswordJsonSchema, 204: Type.Null(), ...write },
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
          tags,
          security,
          params: UserParams,
          response: { 204: Type.Null(), ...errors(400, 401, 404, 409, 500, 503) },
        },
      },
      async (request, reply) => {
        await deleteUser(admin(request), request.params.id);
        return reply.code(204).send(null);
      },
    );

    // The audit log (docs/console.md, "Audit log"): every admin operation, from every door.
    app.get(
      '/audit',
      {
        schema: {
          tags,
          security,
          querystring: AuditQuery,
          response: {
            200: Type.Object({ entries: Type.Array(AuditEntryJsonSchema), next: Nullable(Type.String()) }),
            ...readOne,
          },
        },
      },
      async (request) => {
        const { account, action, limit, before } = request.query;
        const page = await readAudit(
          admin(request),
          { accountSlug: account, action },
          { limit: limit ?? 50, before },
        );
        return { entries: page.items.map(auditEntryJson), next: page.next };
      },
    );
  };
}
