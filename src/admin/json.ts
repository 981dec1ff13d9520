import type { Account } from '../billing/accounts.js';
import type { CreditGrant, Ledger } from '../billing/balances.js';
import type { KeyRecord } from '../billing/keys.js';
import type { WebhookSecret } from './accounts.js';
import type { AccountPack } from './balances.js';
import type { CreatedKey } from './keys.js';

/*
 * The operator-facing JSON of admin results: the admin API answers it and `webcap admin --json`
 * prints it, so that scripts read one form whichever door they use.
 */

/** An account: every field of the record. */
export function accountJson(account: Account) {
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
export function keyJson({ key, accountSlug }: KeyRecord) {
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
    created_at: key.createdAt,
    updated_at: key.updatedAt,
  };
}

/** A new key: its record and, this once, the key. */
export function createdKeyJson(created: CreatedKey) {
  return { ...keyJson(created), key: created.plaintext };
}

export function packJson({ pack, accountSlug }: AccountPack) {
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
export function grantJson(grant: CreditGrant) {
  return {
    id: grant.id,
    account: grant.accountSlug,
    amount: grant.amount,
    note: grant.note,
    granted_at: grant.grantedAt,
    credits: { given: grant.credits.given, consumed: grant.credits.consumed },
  };
}

export function ledgerJson(ledger: Ledger) {
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

export function webhookSecretJson(secret: WebhookSecret) {
  return { account: secret.accountSlug, webhook_secret: secret.secret };
}
