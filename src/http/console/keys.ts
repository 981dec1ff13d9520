import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { createKey, listKeys, revokeKey, rotateSigningSecret, showKey, updateKey } from '../../admin/keys.js';
import type { Account } from '../../billing/accounts.js';
import type { KeyRecord } from '../../billing/keys.js';
import { WebcapError } from '../../errors.js';
import { Nullable } from '../../nullable.js';
import { IsoDate, KeyUpdate, keyPatchOf, Quotas } from '../admin-bodies.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { accountOf, adminAs } from './access.js';
import { type ConsoleKey, ConsoleKeySchema, consoleKeys, IdParams, ListOf } from './schemas.js';

const KeyCreate = Type.Object(
  {
    alias: Type.Optional(Type.String({ maxLength: 200 })),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    expires: Type.Optional(Nullable(IsoDate)),
    quotas: Type.Optional(Quotas),
  },
  { additionalProperties: false },
);

const SigningSecret = Type.String({
  description: "the key's secret for signed links (docs/signed-links.md); shown only in this answer",
});

const CreatedConsoleKey = Type.Object({
  ...ConsoleKeySchema.properties,
  key: Type.String({ description: 'the API key; shown only in this answer' }),
  signing_secret: SigningSecret,
});

const RotatedConsoleKey = Type.Object({ ...ConsoleKeySchema.properties, signing_secret: SigningSecret });

/** A key of the session's account; another account's is not found, as one that does not exist. */
async function ownKey(
  deps: AppDeps,
  request: FastifyRequest,
  account: Account,
  id: string,
): Promise<KeyRecord> {
  const record = await showKey(adminAs(deps, request), id);
  if (record.key.accountId !== account.id) throw new WebcapError('not_found', `no key ${id}`);
  return record;
}

/** The account's API keys (docs/console.md): every person sees them, owners change them. */
export function keyRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const one = async (record: KeyRecord): Promise<ConsoleKey> => {
    const [key] = await consoleKeys(deps.store.db, [record], deps.clock());
    if (key === undefined) throw new Error('a key read back as nothing');
    return key;
  };
  return async (app) => {
    app.get(
      '/console/api/keys',
      {
        config: { console: 'account' },
        schema: { hide: true, response: { 200: ListOf(ConsoleKeySchema), ...errors(401, 403) } },
      },
      async (request) => {
        const account = accountOf(request);
        const records = await listKeys(adminAs(deps, request), { accountSlug: account.slug });
        return { items: (await consoleKeys(deps.store.db, records, deps.clock())).reverse(), next: null };
      },
    );

    app.post(
      '/console/api/keys',
      {
        config: { console: 'owner' },
        schema: {
          hide: true,
          body: KeyCreate,
          response: { 201: CreatedConsoleKey, ...errors(400, 401, 403, 413) },
        },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const body = request.body;
        const created = await createKey(adminAs(deps, request), {
          accountSlug: account.slug,
          alias: body.alias,
          category: body.category,
          expiresAt: body.expires,
          quotas: body.quotas,
        });
        return reply
          .code(201)
          .send({ ...(await one(created)), key: created.plaintext, signing_secret: created.signingSecret });
      },
    );

    app.patch(
      '/console/api/keys/:id',
      {
        config: { console: 'owner' },
        schema: {
          hide: true,
          params: IdParams,
          body: KeyUpdate,
          response: { 200: ConsoleKeySchema, ...errors(400, 401, 403, 404, 409, 413) },
        },
      },
      async (request) => {
        const { key } = await ownKey(deps, request, accountOf(request), request.params.id);
        return one(await updateKey(adminAs(deps, request), key.id, keyPatchOf(request.body)));
      },
    );

    app.post(
      '/console/api/keys/:id/revoke',
      {
        config: { console: 'owner' },
        schema: {
          hide: true,
          params: IdParams,
          response: { 200: ConsoleKeySchema, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const { key } = await ownKey(deps, request, accountOf(request), request.params.id);
        return one(await revokeKey(adminAs(deps, request), key.id));
      },
    );

    app.post(
      '/console/api/keys/:id/signing-secret',
      {
        config: { console: 'owner' },
        schema: {
          hide: true,
          params: IdParams,
          response: { 200: RotatedConsoleKey, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => {
        const { key } = await ownKey(deps, request, accountOf(request), request.params.id);
        const rotated = await rotateSigningSecret(adminAs(deps, request), key.id);
        return { ...(await one(rotated)), signing_secret: rotated.signingSecret };
      },
    );
  };
}
