import { type Static, Type } from 'typebox';
import { PASSWORD_MAX_CHARS } from '../admin/passwords.js';
import { RoleSchema } from '../admin/users.js';
import type { AccountPatch, NewAccount } from '../billing/accounts.js';
import { MAX_AMOUNT, MAX_RATE } from '../billing/amounts.js';
import type { KeyPatch } from '../billing/keys.js';
import { Nullable } from '../nullable.js';

/*
 * The bodies of the operator's and the owners' changes, shared by the admin API and the console
 * (whose operator routes take "the body of POST /admin/v1/accounts", and so on), with what turns
 * each into its operation's input.
 */

const Count = Type.Integer({ minimum: 0, maximum: MAX_AMOUNT });
const NullableCount = Nullable(Count);
const NullableRate = Nullable(Type.Integer({ minimum: 1, maximum: MAX_RATE }));
/** Dates are checked strictly by the billing module (parseIsoDate); this only bounds their length. */
export const IsoDate = Type.String({
  maxLength: 40,
  description: 'ISO 8601 date or date-time, UTC unless an offset is given',
});
export const Slug = Type.String({ minLength: 1, maxLength: 64 });
export const Quotas = Type.Object(
  {
    total: Type.Optional(NullableCount),
    daily: Type.Optional(NullableCount),
    weekly: Type.Optional(NullableCount),
    monthly: Type.Optional(NullableCount),
  },
  { additionalProperties: false },
);

export const AccountCreate = Type.Object(
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

export const AccountUpdate = Type.Object(
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

export const KeyCreate = Type.Object(
  {
    account: Slug,
    alias: Type.Optional(Type.String({ maxLength: 200 })),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    expires: Type.Optional(Nullable(IsoDate)),
    quotas: Type.Optional(Quotas),
    signed_only: Type.Optional(
      Type.Boolean({ description: "refuse the key's plaintext in a query string (docs/signed-links.md)" }),
    ),
  },
  { additionalProperties: false },
);

export const KeyUpdate = Type.Object(
  {
    alias: Type.Optional(Type.String({ maxLength: 200 })),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    active: Type.Optional(Type.Boolean()),
    expires: Type.Optional(Nullable(IsoDate)),
    quotas: Type.Optional(Quotas),
    signed_only: Type.Optional(
      Type.Boolean({ description: "refuse the key's plaintext in a query string (docs/signed-links.md)" }),
    ),
  },
  { additionalProperties: false },
);

export const PackCreate = Type.Object(
  {
    total: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT }),
    title: Type.Optional(Type.String({ maxLength: 200 })),
    purchased_at: Type.Optional(IsoDate),
  },
  { additionalProperties: false },
);

export const CreditGrant = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT }),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const NewPassword = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_CHARS });

export const UserCreate = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    role: RoleSchema,
    account: Type.Optional(Slug),
    password: Type.Optional(NewPassword),
  },
  { additionalProperties: false },
);

export const UserUpdate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    role: Type.Optional(RoleSchema),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const PasswordReset = Type.Object(
  { password: Type.Optional(NewPassword) },
  { additionalProperties: false },
);

/** An account to create, from AccountCreate. */
export function newAccountOf(body: Static<typeof AccountCreate>): NewAccount {
  return {
    name: body.name,
    slug: body.slug,
    monthlyQuota: body.monthly_quota,
    perSecond: body.per_second,
    perMinute: body.per_minute,
    statsEnabled: body.stats_enabled,
    billingAnchor: body.billing_anchor,
  };
}

/** An account's changes, from AccountUpdate. */
export function accountPatchOf(body: Static<typeof AccountUpdate>): AccountPatch {
  return {
    name: body.name,
    active: body.active,
    statsEnabled: body.stats_enabled,
    monthlyQuota: body.monthly_quota,
    perSecond: body.per_second,
    perMinute: body.per_minute,
    billingAnchor: body.billing_anchor,
  };
}

/** A key's changes, from KeyUpdate. */
export function keyPatchOf(body: Static<typeof KeyUpdate>): KeyPatch {
  return {
    alias: body.alias,
    category: body.category,
    active: body.active,
    expiresAt: body.expires,
    quotas: body.quotas,
    signedOnly: body.signed_only,
  };
}
