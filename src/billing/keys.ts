import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { InferResult } from 'kysely';
import { type Static, Type } from 'typebox';
import { invalidParam, WebcapError } from '../errors.js';
import { Nullable } from '../nullable.js';
import { reusableQuery } from '../store/compiled-queries.js';
import { type Db, unlessTaken } from '../store/db.js';
import { newId } from '../store/ids.js';
import type { ApiKeysTable } from '../store/schema.js';
import { type Account, fromAccountRow, getAccountBySlug } from './accounts.js';
import { MAX_AMOUNT } from './amounts.js';
import { parseIsoDate } from './iso-date.js';
import { keysChanged } from './key-changes.js';

/** A key's own quotas, each null when it has none (spec, API keys): the schema answers show them with, and its type. */
export const KeyQuotasSchema = Type.Object({
  total: Nullable(Type.Integer()),
  daily: Nullable(Type.Integer()),
  weekly: Nullable(Type.Integer()),
  monthly: Nullable(Type.Integer()),
});

export type KeyQuotas = Static<typeof KeyQuotasSchema>;

/** An API key's record; the key itself is known only at creation. */
export interface ApiKey {
  readonly id: string;
  readonly accountId: string;
  readonly alias: string;
  readonly category: string;
  readonly prefix: string;
  readonly active: boolean;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly quotas: KeyQuotas;
  /** The key's plaintext is refused in a query string: only signed links and the header carry it. */
  readonly signedOnly: boolean;
  /** Whether the key has a signing secret (made with it, or rotated in since). */
  readonly hasSigningSecret: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A key's record with the slug of the account it belongs to. */
export interface KeyRecord {
  readonly key: ApiKey;
  readonly accountSlug: string;
}

export interface NewKey {
  readonly accountSlug: string;
  readonly alias?: string;
  readonly category?: string;
  readonly expiresAt?: string | null;
  readonly quotas?: Partial<KeyQuotas>;
  /** Use this key instead of a random one (the bootstrap key an operator sets). */
  readonly plaintext?: string;
  readonly signedOnly?: boolean;
  /** The key's signing secret, sealed (billing/signing-secrets.ts); none when absent. */
  readonly sealedSigningSecret?: string;
}

export interface KeyPatch {
  readonly alias?: string;
  readonly category?: string;
  readonly active?: boolean;
  readonly expiresAt?: string | null;
  readonly quotas?: Partial<KeyQuotas>;
  readonly signedOnly?: boolean;
}

export type KeyVerification =
  | { readonly ok: true; readonly key: ApiKey; readonly account: Account }
  | { readonly ok: false; readonly reason: 'unknown' | 'inactive' | 'expired' | 'account_inactive' };

const CATEGORY = /^[a-z][a-z0-9_-]{0,31}$/;
const PREFIX_LENGTH = 12;

/** SHA-256 of a key, hex: the only form in which a key is stored. */
export function hashKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

/** A new random key, `wc_live_` for production keys and `wc_test_` for every other category. */
export function generateKey(category: string): string {
  const kind = category === 'production' ? 'live' : 'test';
  return `wc_${kind}_${randomBytes(24).toString('base64url')}`;
}

/** A key's record from its row; never its hash or its signing secret. */
export function fromKeyRow(row: ApiKeysTable): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    alias: row.alias,
    category: row.category,
    prefix: row.key_prefix,
    active: row.active === 1,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    quotas: {
      total: row.quota_total,
      daily: row.quota_daily,
      weekly: row.quota_weekly,
      monthly: row.quota_monthly,
    },
    signedOnly: row.signed_only === 1,
    hasSigningSecret: row.signing_secret !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function checkQuotas(quotas: Partial<KeyQuotas> | undefined): void {
  for (const [name, value] of Object.entries(quotas ?? {})) {
    if (
      value !== null &&
      value !== undefined &&
      (!Number.isSafeInteger(value) || value < 0 || value > MAX_AMOUNT)
    ) {
      throw invalidParam(`quota_${name}`, `must be an integer from 0 to ${MAX_AMOUNT}`);
    }
  }
}

function normalizeExpiry(expiresAt: string | null | undefined): string | null | undefined {
  if (expiresAt === undefined || expiresAt === null) return expiresAt;
  return parseIsoDate(expiresAt, 'expires').toISOString();
}

function checkCategory(category: string | undefined): void {
  if (category !== undefined && !CATEGORY.test(category)) {
    throw invalidParam('category', 'must be 1 to 32 characters of a-z, 0-9, _ and -, starting with a letter');
  }
}

/** Creates a key for an account; the plaintext is returned here once and never again. */
export async function createKey(
  db: Db,
  input: NewKey,
  now: Date,
): Promise<{ key: ApiKey; plaintext: string }> {
  const category = input.category ?? 'development';
  checkCategory(category);
  checkQuotas(input.quotas);
  const expiresAt = normalizeExpiry(input.expiresAt) ?? null;
  const account = await getAccountBySlug(db, input.accountSlug);
  const plaintext = input.plaintext ?? generateKey(category);
  const stamp = now.toISOString();
  const row: ApiKeysTable = {
    id: newId('key'),
    account_id: account.id,
    alias: input.alias?.trim() || `${category} key`,
    category,
    key_hash: hashKey(plaintext),
    key_prefix: plaintext.slice(0, PREFIX_LENGTH),
    active: 1,
    expires_at: expiresAt,
    revoked_at: null,
    quota_total: input.quotas?.total ?? null,
    quota_daily: input.quotas?.daily ?? null,
    quota_weekly: input.quotas?.weekly ?? null,
    quota_monthly: input.quotas?.monthly ?? null,
    created_at: stamp,
    updated_at: stamp,
    signing_secret: input.sealedSigningSecret ?? null,
    signed_only: input.signedOnly === true ? 1 : 0,
  };
  await unlessTaken(() => db.insertInto('api_keys').values(row).execute(), 'that key is already in use');
  return { key: fromKeyRow(row), plaintext };
}

export async function getKey(db: Db, id: string): Promise<KeyRecord> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('api_keys')
    .select('accounts.slug as account_slug')
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
  if (row === undefined) throw new WebcapError('not_found', `no key ${id}`);
  return { key: fromKeyRow(row), accountSlug: row.account_slug };
}

/** Every key, or those of one account, oldest first. */
export async function listKeys(db: Db, accountSlug?: string): Promise<KeyRecord[]> {
  let query = db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('api_keys')
    .select('accounts.slug as account_slug')
    .orderBy('api_keys.created_at')
    .orderBy('api_keys.id');
  if (accountSlug !== undefined) {
    await getAccountBySlug(db, accountSlug);
    query = query.where('accounts.slug', '=', accountSlug);
  }
  const rows = await query.execute();
  return rows.map((row) => ({ key: fromKeyRow(row), accountSlug: row.account_slug }));
}

/** How many keys each account has, by account id. */
export async function countKeysByAccount(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('api_keys')
    .select((eb) => ['account_id', eb.fn.countAll<number>().as('n')])
    .groupBy('account_id')
    .execute();
  return new Map(rows.map((row) => [row.account_id, Number(row.n)]));
}

/** Applies the fields present in the patch; a revoked key cannot be made active again. */
export async function updateKey(db: Db, id: string, patch: KeyPatch, now: Date): Promise<KeyRecord> {
  checkCategory(patch.category);
  checkQuotas(patch.quotas);
  const expiresAt = normalizeExpiry(patch.expiresAt);
  const { key } = await getKey(db, id);
  if (patch.active === true && key.revokedAt !== null) {
    throw new WebcapError('conflict', `key ${id} is revoked and cannot be reactivated`);
  }
  const changes: Partial<ApiKeysTable> = { updated_at: now.toISOString() };
  if (patch.alias !== undefined) changes.alias = patch.alias.trim();
  if (patch.category !== undefined) changes.category = patch.category;
  if (patch.active !== undefined) changes.active = patch.active ? 1 : 0;
  if (patch.signedOnly !== undefined) changes.signed_only = patch.signedOnly ? 1 : 0;
  if (expiresAt !== undefined) changes.expires_at = expiresAt;
  const quotas = patch.quotas ?? {};
  if (quotas.total !== undefined) changes.quota_total = quotas.total;
  if (quotas.daily !== undefined) changes.quota_daily = quotas.daily;
  if (quotas.weekly !== undefined) changes.quota_weekly = quotas.weekly;
  if (quotas.monthly !== undefined) changes.quota_monthly = quotas.monthly;
  await db.updateTable('api_keys').set(changes).where('id', '=', id).execute();
  keysChanged(db);
  return getKey(db, id);
}

/** Deactivates a key for good. */
export async function revokeKey(db: Db, id: string, now: Date): Promise<KeyRecord> {
  const { key } = await getKey(db, id);
  const stamp = now.toISOString();
  await db
    .updateTable('api_keys')
    .set({ active: 0, revoked_at: key.revokedAt ?? stamp, updated_at: stamp })
    .where('id', '=', id)
    .execute();
  keysChanged(db);
  return getKey(db, id);
}

/** A key's record with its account's, as stored; whether it may be used is `checkKey`'s answer. */
export interface FoundKey {
  readonly key: ApiKey;
  readonly account: Account;
}

/**
 * Looks a key up by the hash of its plaintext. The lookup goes by hash, so timing depends on the
 * hash, not on how much of the key matched; the final comparison is constant-time as well.
 */
export async function findKey(db: Db, hash: string): Promise<FoundKey | undefined> {
  const row = await keyRowWithAccount(db, 'key_hash', hash);
  if (row === undefined || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) {
    return undefined;
  }
  return foundKeyOf(row);
}

/** A key's record with its account's, by the key's id (the console's playground names keys so). */
export async function findKeyById(db: Db, id: string): Promise<FoundKey | undefined> {
  const row = await keyRowWithAccount(db, 'id', id);
  return row === undefined ? undefined : foundKeyOf(row);
}

/** A key's row and its account's columns (named `account_*`), by the key's hash or id. */
function keyWithAccountQuery(db: Db, column: KeyColumn, value: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('api_keys')
    .select([
      'accounts.name as account_name',
      'accounts.slug as account_slug',
      'accounts.active as account_active',
      'accounts.stats_enabled as account_stats_enabled',
      'accounts.monthly_quota as account_monthly_quota',
      'accounts.per_second as account_per_second',
      'accounts.per_minute as account_per_minute',
      'accounts.billing_anchor as account_billing_anchor',
      'accounts.created_at as account_created_at',
      'accounts.updated_at as account_updated_at',
    ])
    .where(`api_keys.${column}`, '=', value);
}

type KeyColumn = 'key_hash' | 'id';
type KeyWithAccountRow = InferResult<ReturnType<typeof keyWithAccountQuery>>[number];

const keyWithAccountBy = {
  key_hash: reusableQuery('key with account by key_hash', (db, hash: string) =>
    keyWithAccountQuery(db, 'key_hash', hash),
  ),
  id: reusableQuery('key with account by id', (db, id: string) => keyWithAccountQuery(db, 'id', id)),
};

/**
 * A key's row with its account's in one query: a key read afresh (a signed link, a key cache
 * miss) pays one round trip, not two. Compiled once: Kysely took 19 us to build this join, more
 * than SQLite took to run it (12 us; the two single-table queries it replaces took 6 + 17).
 */
export async function keyRowWithAccount(
  db: Db,
  column: KeyColumn,
  value: string,
): Promise<KeyWithAccountRow | undefined> {
  return (await keyWithAccountBy[column](db, value)).rows[0];
}

/** The key and account a keyRowWithAccount row holds. */
export function foundKeyOf(row: KeyWithAccountRow): FoundKey {
  return {
    key: fromKeyRow(row),
    account: fromAccountRow({
      id: row.account_id,
      name: row.account_name,
      slug: row.account_slug,
      active: row.account_active,
      stats_enabled: row.account_stats_enabled,
      monthly_quota: row.account_monthly_quota,
      per_second: row.account_per_second,
      per_minute: row.account_per_minute,
      billing_anchor: row.account_billing_anchor,
      created_at: row.account_created_at,
      updated_at: row.account_updated_at,
    }),
  };
}

/** Whether a found key may be used at `now`: active, not expired, and its account active. */
export function checkKey(found: FoundKey | undefined, now: Date): KeyVerification {
  if (found === undefined) return { ok: false, reason: 'unknown' };
  const { key, account } = found;
  if (!key.active) return { ok: false, reason: 'inactive' };
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime())
    return { ok: false, reason: 'expired' };
  if (!account.active) return { ok: false, reason: 'account_inactive' };
  return { ok: true, key, account };
}
