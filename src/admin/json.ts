import { type Static, Type } from 'typebox';
import type { Account } from '../billing/accounts.js';
import type { CreditGrant, Ledger } from '../billing/balances.js';
import { KeyQuotasSchema, type KeyRecord } from '../billing/keys.js';
import { Nullable } from '../nullable.js';
import type { WebhookSecret } from './accounts.js';
import type { AuditEntry } from './audit.js';
import type { AccountPack } from './balances.js';
import type { CreatedKey, RotatedSigningSecret } from './keys.js';
import { type ConsoleUser, RoleSchema } from './users.js';

/*
 * The operator-facing JSON of admin results: the admin API answers it and `webcap admin --json`
 * prints it, so that scripts read one form whichever door they use. Each form is a schema (the
 * admin API declares its responses with it) and the function that builds it returns its Static<>.
 */

/** An account as the admin API shows it. */
export const AccountJsonSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  active: Type.Boolean(),
  stats_enabled: Type.Boolean(),
  monthly_quota: Nullable(Type.Integer()),
  per_second: Nullable(Type.Integer()),
  per_minute: Nullable(Type.Integer()),
  billing_anchor: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
});

/** An API key as the admin API shows it; never the key itself, but once, at creation. */
export const KeyJsonSchema = Type.Object({
  id: Type.String(),
  account: Type.String(),
  account_id: Type.String(),
  alias: Type.String(),
  category: Type.String(),
  prefix: Type.String(),
  active: Type.Boolean(),
  expires_at: Nullable(Type.String()),
  revoked_at: Nullable(Type.String()),
  quotas: KeyQuotasSchema,
  signed_only: Type.Boolean({
    description: "the key's plaintext is refused in a query string; signed links and the header are accepted",
  }),
  has_signing_secret: Type.Boolean({ description: 'whether the key can sign links (docs/signed-links.md)' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});

const SigningSecret = Type.String({
  description: "the key's secret for signed links (docs/signed-links.md); shown only in this answer",
});

export const CreatedKeyJsonSchema = Type.Object({
  ...KeyJsonSchema.properties,
  key: Type.String({ description: 'the API key; shown only in this answer' }),
  signing_secret: SigningSecret,
});

/** A key with the signing secret just rotated in. */
export const RotatedSigningSecretJsonSchema = Type.Object({
  ...KeyJsonSchema.properties,
  signing_secret: SigningSecret,
});

export const PackJsonSchema = Type.Object({
  id: Type.String(),
  account: Type.String(),
  title: Type.String(),
  total: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
  purchased_at: Type.String(),
});

export const GrantJsonSchema = Type.Object({
  id: Type.String(),
  account: Type.String(),
  amount: Type.Integer(),
  note: Type.String(),
  granted_at: Type.String(),
  credits: Type.Object({ given: Type.Integer(), consumed: Type.Integer() }),
});

export const LedgerJsonSchema = Type.Object({
  account: Type.String(),
  totals: Type.Object({
    committed: Type.Object({ subscription: Type.Integer(), pack: Type.Integer(), credit: Type.Integer() }),
    reserved: Type.Integer(),
    released: Type.Integer(),
  }),
  entries: Type.Array(
    Type.Object({
      id: Type.String(),
      key_id: Type.String(),
      engine: Type.String(),
      source: Type.String(),
      pack_id: Nullable(Type.String()),
      period_start: Nullable(Type.String()),
      status: Type.String(),
      created_at: Type.String(),
      settled_at: Nullable(Type.String()),
    }),
  ),
});

/** An account's webhook signing secret (admin API). */
export const WebhookSecretJsonSchema = Type.Object(
  { account: Type.String(), webhook_secret: Type.String() },
  { additionalProperties: false },
);

/** A console user (docs/console.md `User`); never the password or its hash. */
export const UserJsonSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: RoleSchema,
    active: Type.Boolean(),
    account: Nullable(Type.Object({ name: Type.String(), slug: Type.String() })),
    created_at: Type.String(),
    last_sign_in_at: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

/** A user just created: with the password when it was generated, shown only in this answer. */
export const CreatedUserJsonSchema = Type.Object(
  {
    ...UserJsonSchema.properties,
    password: Type.Optional(
      Type.String({ description: 'the generated password; shown only in this answer' }),
    ),
  },
  { additionalProperties: false },
);

/** A generated password, shown once. */
export const PasswordJsonSchema = Type.Object(
  { password: Type.String({ description: 'the generated password; shown only in this answer' }) },
  { additionalProperties: false },
);

/** An entry of the audit log (docs/console.md `AuditEntry`). */
export const AuditEntryJsonSchema = Type.Object(
  {
    id: Type.String(),
    at: Type.String(),
    actor: Type.Object({
      kind: Type.Union([
        Type.Literal('user'),
        Type.Literal('admin_token'),
        Type.Literal('admin_api'),
        Type.Literal('cli'),
      ]),
      id: Nullable(Type.String()),
      email: Nullable(Type.String()),
    }),
    account: Nullable(Type.String({ description: "the account's slug" })),
    action: Type.String({ description: 'a dotted name: key.create, session.sign_in, ...' }),
    target: Nullable(Type.String()),
    ip: Nullable(Type.String()),
    detail: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);

/** An account: every field of the record. */
export function accountJson(account: Account): Static<typeof AccountJsonSchema> {
  return {
    id: account.id,
    name: account.name,
    slug: account.slug,
    active: account.active,
    stats_enabled: account.statsEnabled,
    monthly_quota: account.monthlyQuota,
    per_second: account.perSecond,
    per_minute: account.perMinute,
    billing_anchor: account.billingAnchor,
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}

/** A key: every field of the record, never the key or its hash. */
export function keyJson({ key, accountSlug }: KeyRecord): Static<typeof KeyJsonSchema> {
  return {
    id: key.id,
    account: accountSlug,
    account_id: key.accountId,
    alias: key.alias,
    category: key.category,
    prefix: key.prefix,
    active: key.active,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
    quotas: key.quotas,
    signed_only: key.signedOnly,
    has_signing_secret: key.hasSigningSecret,
    created_at: key.createdAt,
    updated_at: key.updatedAt,
  };
}

/** A new key: its record and, this once, the key and its signing secret. */
export function createdKeyJson(created: CreatedKey): Static<typeof CreatedKeyJsonSchema> {
  return { ...keyJson(created), key: created.plaintext, signing_secret: created.signingSecret };
}

/** A key and, this once, the signing secret just rotated in. */
export function rotatedSigningSecretJson(
  rotated: RotatedSigningSecret,
): Static<typeof RotatedSigningSecretJsonSchema> {
  return { ...keyJson(rotated), signing_secret: rotated.signingSecret };
}

export function packJson({ pack, accountSlug }: AccountPack): Static<typeof PackJsonSchema> {
  return {
    id: pack.id,
    account: accountSlug,
    title: pack.title,
    total: pack.total,
    used: pack.used,
    remaining: pack.total - pack.used,
    purchased_at: pack.purchasedAt,
  };
}

/** A grant with the account's credit totals after it. */
export function grantJson(grant: CreditGrant): Static<typeof GrantJsonSchema> {
  return {
    id: grant.id,
    account: grant.accountSlug,
    amount: grant.amount,
    note: grant.note,
    granted_at: grant.grantedAt,
    credits: { given: grant.credits.given, consumed: grant.credits.consumed },
  };
}

export function ledgerJson(ledger: Ledger): Static<typeof LedgerJsonSchema> {
  return {
    account: ledger.accountSlug,
    totals: ledger.totals,
    entries: ledger.entries.map((e) => ({
      id: e.id,
      key_id: e.keyId,
      engine: e.engine,
      source: e.source,
      pack_id: e.packId,
      period_start: e.periodStart,
      status: e.status,
      created_at: e.createdAt,
      settled_at: e.settledAt,
    })),
  };
}

export function webhookSecretJson(secret: WebhookSecret): Static<typeof WebhookSecretJsonSchema> {
  return { account: secret.accountSlug, webhook_secret: secret.secret };
}

export function userJson(user: ConsoleUser): Static<typeof UserJsonSchema> {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    active: user.active,
    account: user.account === null ? null : { name: user.account.name, slug: user.account.slug },
    created_at: user.createdAt,
    last_sign_in_at: user.lastSignInAt,
  };
}

/** A created user, with the password when it was generated. */
export function createdUserJson(created: {
  readonly user: ConsoleUser;
  readonly password: string | null;
}): Static<typeof CreatedUserJsonSchema> {
  return { ...userJson(created.user), ...(created.password === null ? {} : { password: created.password }) };
}

export function auditEntryJson(entry: AuditEntry): Static<typeof AuditEntryJsonSchema> {
  return {
    id: entry.id,
    at: entry.at,
    actor: { kind: entry.actor.kind, id: entry.actor.id, email: entry.actor.email },
    account: entry.accountSlug,
    action: entry.action,
    target: entry.target,
    ip: entry.ip,
    detail: entry.detail,
  };
}
