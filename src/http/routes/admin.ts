import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  accountJson,
  createAccount,
  getAccountBySlug,
  listAccounts,
  updateAccount,
} from '../../billing/accounts.js';
import { MAX_AMOUNT, MAX_RATE } from '../../billing/amounts.js';
import { addPack, grantCredits, listLedger, listPacks, packJson } from '../../billing/balances.js';
import { createKey, getKey, keyJson, listKeys, revokeKey, updateKey } from '../../billing/keys.js';
import { cancelWithdrawnJobs } from '../../jobs/authority.js';
import { rotateWebhookSecret, webhookSecret } from '../../jobs/webhook-secret.js';
import { bearerCheck } from '../bearer.js';
import type { AppDeps } from '../deps.js';
import {
  AccountBody,
  CreatedKeyBody,
  errors,
  GrantBody,
  KeyBody,
  LedgerBody,
  PackBody,
  WebhookSecretBody,
} from '../responses.js';
import { Nullable } from '../schemas.js';

const Count = Type.Integer({ minimum: 0, maximum: MAX_AMOUNT });
const NullableCount = Nullable(Count);
const NullableRate = Nullable(Type.Integer({ minimum: 1, maximum: MAX_RATE }));
/** Dates are checked strictly by the billing module (parseIsoDate); this only bounds their length. */
const IsoDate = Type.String({
  maxLength: 40,
  description: 'ISO 8601 date or date-time, UTC unless an offset is given',
});
const Slug = Type.String({ minLength: 1, maxLength: 64 });
const Quotas = Type.Object(
  {
    total: Type.Optional(NullableCount),
    daily: Type.Optional(NullableCount),
    weekly: Type.Optional(NullableCount),
    monthly: Type.Optional(NullableCount),
  },
  { additionalProperties: false },
);

const AccountCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Slug,
    monthly_quota: Type.Optional(NullableCount),
    per_second: Type.Optional(NullableRate),
    per_minute: Type.Optional(NullableRate),
    stats_enabled: Type.Optional(Type.Boolean()),
    billing_anchor: Type.Optional(IsoDate),
  },
  { additionalProperties: false },
);

const AccountUpdate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    active: Type.Optional(Type.Boolean()),
    monthly_quota: Type.Optional(NullableCount),
    per_second: Type.Optional(NullableRate),
    per_minute: Type.Optional(NullableRate),
    stats_enabled: Type.Optional(Type.Boolean()),
    billing_anchor: Type.Optional(IsoDate),
  },
  { additionalProperties: false },
);

const KeyCreate = Type.Object(
  {
    account: Slug,
    alias: Type.Optional(Type.String({ maxLength: 200 })),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    expires: Type.Optional(Nullable(IsoDate)),
    quotas: Type.Optional(Quotas),
  },
  { additionalProperties: false },
);

const KeyUpdate = Type.Object(
  {
    alias: Type.Optional(Type.String({ maxLength: 200 })),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    active: Type.Optional(Type.Boolean()),
    expires: Type.Optional(Nullable(IsoDate)),
    quotas: Type.Optional(Quotas),
  },
  { additionalProperties: false },
);

const PackCreate = Type.Object(
  {
    total: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT }),
    title: Type.Optional(Type.String({ maxLength: 200 })),
    purchased_at: Type.Optional(IsoDate),
  },
  { additionalProperties: false },
);

const CreditGrant = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT }),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

/** The operator API under /admin/v1, behind `Authorization: Bearer $WEBCAP_ADMIN_TOKEN`. */
export function adminRoutes(deps: AppDeps, token: string): FastifyPluginAsyncTypebox {
  const check = bearerCheck(token, 'admin token');
  const { db } = deps.store;
  const { retentionMs } = deps.config.jobs;
  return async (app) => {
    app.addHook('onRequest', async (request) => {
      check(request);
    });
    const tags = ['admin'];
    const security = [{ adminToken: [] }];
    const failures = errors(400, 401, 404, 409, 413, 500, 503);

    app.post(
      '/accounts',
      { schema: { tags, security, body: AccountCreate, response: { 201: AccountBody, ...failures } } },
      async (request, reply) => {
        const body = request.body;
        const account = await createAccount(
          db,
          {
            name: body.name,
            slug: body.slug,
            monthlyQuota: body.monthly_quota,
            perSecond: body.per_second,
            perMinute: body.per_minute,
            statsEnabled: body.stats_enabled,
            billingAnchor: body.billing_anchor,
          },
          deps.clock(),
        );
        return reply.code(201).send(accountJson(account));
      },
    );

    app.get(
      '/accounts',
      {
        schema: {
          tags,
          security,
          response: { 200: Type.Object({ accounts: Type.Array(AccountBody) }), ...failures },
        },
      },
      async () => ({
        accounts: (await listAccounts(db)).map(accountJson),
      }),
    );

    app.get(
      '/accounts/:slug',
      {
        schema: {
          tags,
          security,
          params: Type.Object({ slug: Slug }),
          response: { 200: AccountBody, ...failures },
        },
      },
      async (request) => accountJson(await getAccountBySlug(db, request.params.slug)),
    );
    // The account's webhook signing secret (docs/jobs.md): shown to the operator, who hands it to
    // the account's owner, and rotated on demand.
    const secretResponse = { 200: WebhookSecretBody, ...failures };
    app.get(
      '/accounts/:slug/webhook-secret',
      { schema: { tags, security, params: Type.Object({ slug: Slug }), response: secretResponse } },
      async (request) => {
        const account = await getAccountBySlug(db, request.params.slug);
        return { account: account.slug, webhook_secret: await webhookSecret(db, account.id) };
      },
    );
    app.post(
      '/accounts/:slug/webhook-secret/rotate',
      { schema: { tags, security, params: Type.Object({ slug: Slug }), response: secretResponse } },
      async (request) => {
        const account = await getAccountBySlug(db, request.params.slug);
        return { account: account.slug, webhook_secret: await rotateWebhookSecret(db, account.id) };
      },
    );

    app.patch(
      '/accounts/:slug',
      {
        schema: {
          tags,
          security,
          params: Type.Object({ slug: Slug }),
          body: AccountUpdate,
          response: { 200: AccountBody, ...failures },
        },
      },
      async (request) => {
        const body = request.body;
        const now = deps.clock();
        const account = await updateAccount(
          db,
          request.params.slug,
          {
            name: body.name,
            active: body.active,
            statsEnabled: body.stats_enabled,
            monthlyQuota: body.monthly_quota,
            perSecond: body.per_second,
            perMinute: body.per_minute,
            billingAnchor: body.billing_anchor,
          },
          now,
        );
        if (!account.active) {
          await cancelWithdrawnJobs(db, { accountId: account.id }, 'account_inactive', now, retentionMs);
        }
        return accountJson(account);
      },
    );

    const SlugParams = Type.Object({ slug: Slug });

    app.post(
      '/accounts/:slug/packs',
      {
        schema: {
          tags,
          security,
          params: SlugParams,
          body: PackCreate,
          response: { 201: PackBody, ...failures },
        },
      },
      async (request, reply) => {
        const { slug } = request.params;
        const body = request.body;
        const pack = await addPack(
          db,
          { accountSlug: slug, total: body.total, title: body.title, purchasedAt: body.purchased_at },
          deps.clock(),
        );
        return reply.code(201).send(packJson(pack, slug));
      },
    );

    app.get(
      '/accounts/:slug/packs',
      {
        schema: {
          tags,
          security,
          params: SlugParams,
          response: { 200: Type.Object({ packs: Type.Array(PackBody) }), ...failures },
        },
      },
      async (request) => {
        const account = await getAccountBySlug(db, request.params.slug);
        return { packs: (await listPacks(db, account.id)).map((p) => packJson(p, account.slug)) };
      },
    );

    app.post(
      '/accounts/:slug/credits',
      {
        schema: {
          tags,
          security,
          params: SlugParams,
          body: CreditGrant,
          response: { 201: GrantBody, ...failures },
        },
      },
      async (request, reply) => {
        const grant = await grantCredits(
          db,
          { accountSlug: request.params.slug, amount: request.body.amount, note: request.body.note },
          deps.clock(),
        );
        return reply.code(201).send(grant);
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
          response: { 200: LedgerBody, ...failures },
        },
      },
      async (request) => listLedger(db, request.params.slug, request.query.limit ?? 100),
    );

    app.post(
      '/keys',
      { schema: { tags, security, body: KeyCreate, response: { 201: CreatedKeyBody, ...failures } } },
      async (request, reply) => {
        const body = request.body;
        const { key, plaintext } = await createKey(
          db,
          {
            accountSlug: body.account,
            alias: body.alias,
            category: body.category,
            expiresAt: body.expires,
            quotas: body.quotas,
          },
          deps.clock(),
        );
        return reply.code(201).send({ ...keyJson(key, body.account), key: plaintext });
      },
    );

    app.get(
      '/keys',
      {
        schema: {
          tags,
          security,
          querystring: Type.Object({ account: Type.Optional(Slug) }),
          response: { 200: Type.Object({ keys: Type.Array(KeyBody) }), ...failures },
        },
      },
      async (request) => ({
        keys: (await listKeys(db, request.query.account)).map(({ key, accountSlug }) =>
          keyJson(key, accountSlug),
        ),
      }),
    );

    const KeyParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

    app.get(
      '/keys/:id',
      { schema: { tags, security, params: KeyParams, response: { 200: KeyBody, ...failures } } },
      async (request) => {
        const { key, accountSlug } = await getKey(db, request.params.id);
        return keyJson(key, accountSlug);
      },
    );

    app.patch(
      '/keys/:id',
      {
        schema: {
          tags,
          security,
          params: KeyParams,
          body: KeyUpdate,
          response: { 200: KeyBody, ...failures },
        },
      },
      async (request) => {
        const body = request.body;
        const now = deps.clock();
        const { key, accountSlug } = await updateKey(
          db,
          request.params.id,
          {
            alias: body.alias,
            category: body.category,
            active: body.active,
            expiresAt: body.expires,
            quotas: body.quotas,
          },
          now,
        );
        if (!key.active) await cancelWithdrawnJobs(db, { keyId: key.id }, 'inactive', now, retentionMs);
        return keyJson(key, accountSlug);
      },
    );

    app.post(
      '/keys/:id/revoke',
      { schema: { tags, security, params: KeyParams, response: { 200: KeyBody, ...failures } } },
      async (request) => {
        const now = deps.clock();
        const { key, accountSlug } = await revokeKey(db, request.params.id, now);
        await cancelWithdrawnJobs(db, { keyId: key.id }, 'inactive', now, retentionMs);
        return keyJson(key, accountSlug);
      },
    );
  };
}
