import { invalidParam, WebcapError } from '../errors.js';
import { type Db, unlessTaken } from '../store/db.js';
import { newId } from '../store/ids.js';
import type { AccountsTable } from '../store/schema.js';
import { MAX_AMOUNT, MAX_RATE } from './amounts.js';
import { parseIsoDate } from './iso-date.js';
import { keysChanged } from './key-changes.js';

/** An account as the rest of the service sees it. */
export interface Account {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly active: boolean;
  readonly statsEnabled: boolean;
  readonly monthlyQuota: number | null;
  readonly perSecond: number | null;
  readonly perMinute: number | null;
  readonly billingAnchor: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface NewAccount {
  readonly name: string;
  readonly slug: string;
  readonly monthlyQuota?: number | null;
  readonly perSecond?: number | null;
  readonly perMinute?: number | null;
  readonly statsEnabled?: boolean;
  readonly billingAnchor?: string;
}

export interface AccountPatch {
  readonly name?: string;
  readonly active?: boolean;
  readonly statsEnabled?: boolean;
  readonly monthlyQuota?: number | null;
  readonly perSecond?: number | null;
  readonly perMinute?: number | null;
  readonly billingAnchor?: string;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** The columns an Account is made of. */
export type AccountFields = Pick<
  AccountsTable,
  | 'id'
  | 'name'
  | 'slug'
  | 'active'
  | 'stats_enabled'
  | 'monthly_quota'
  | 'per_second'
  | 'per_minute'
  | 'billing_anchor'
  | 'created_at'
  | 'updated_at'
>;

export function fromAccountRow(row: AccountFields): Account {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    active: row.active === 1,
    statsEnabled: row.stats_enabled === 1,
    monthlyQuota: row.monthly_quota,
    perSecond: row.per_second,
    perMinute: row.per_minute,
    billingAnchor: row.billing_anchor,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function checkLimit(name: string, value: number | null | undefined, max: number): void {
  if (value === undefined || value === null) return;
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw invalidParam(name, `must be an integer from 0 to ${max}`);
  }
}

function checkPatch(patch: AccountPatch): void {
  if (patch.name !== undefined && patch.name.trim() === '') throw invalidParam('name', 'must not be empty');
  checkLimit('monthly_quota', patch.monthlyQuota, MAX_AMOUNT);
  if (patch.perSecond === 0) throw invalidParam('per_second', 'must be at least 1, or null for unlimited');
  if (patch.perMinute === 0) throw invalidParam('per_minute', 'must be at least 1, or null for unlimited');
  checkLimit('per_second', patch.perSecond, MAX_RATE);
  checkLimit('per_minute', patch.perMinute, MAX_RATE);
  if (patch.billingAnchor !== undefined) parseIsoDate(patch.billingAnchor, 'billing_anchor');
}

/** Creates an account; a taken slug is a conflict. */
export async function createAccount(db: Db, input: NewAccount, now: Date): Promise<Account> {
  if (!SLUG.test(input.slug)) {
    throw invalidParam('slug', 'must be 1 to 64 characters of a-z, 0-9 and inner hyphens');
  }
  checkPatch(input);
  const stamp = now.toISOString();
  const row: AccountsTable = {
    id: newId('acc'),
    name: input.name.trim(),
    slug: input.slug,
    active: 1,
    stats_enabled: input.statsEnabled ? 1 : 0,
    monthly_quota: input.monthlyQuota ?? null,
    per_second: input.perSecond ?? null,
    per_minute: input.perMinute ?? null,
    billing_anchor: input.billingAnchor
      ? parseIsoDate(input.billingAnchor, 'billing_anchor').toISOString()
      : stamp,
    created_at: stamp,
    updated_at: stamp,
    lock_seq: 0,
    credits_given: 0,
    credits_used: 0,
    webhook_secret: null,
  };
  await unlessTaken(
    () => db.insertInto('accounts').values(row).execute(),
    `account slug ${input.slug} is taken`,
  );
  return fromAccountRow(row);
}

export async function listAccounts(db: Db): Promise<Account[]> {
  const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('slug').execute();
  return rows.map(fromAccountRow);
}

export async function findAccountBySlug(db: Db, slug: string): Promise<Account | undefined> {
  const row = await db.selectFrom('accounts').selectAll().where('slug', '=', slug).executeTakeFirst();
  return row === undefined ? undefined : fromAccountRow(row);
}

/** The account with this slug, or a not_found error naming it. */
export async function getAccountBySlug(db: Db, slug: string): Promise<Account> {
  const account = await findAccountBySlug(db, slug);
  if (account === undefined) throw new WebcapError('not_found', `no account ${slug}`);
  return account;
}

/** Applies the fields present in the patch; absent fields keep their values, null clears a limit. */
export async function updateAccount(db: Db, slug: string, patch: AccountPatch, now: Date): Promise<Account> {
  checkPatch(patch);
  const account = await getAccountBySlug(db, slug);
  const changes: Partial<AccountsTable> = { updated_at: now.toISOString() };
  if (patch.name !== undefined) changes.name = patch.name.trim();
  if (patch.active !== undefined) changes.active = patch.active ? 1 : 0;
  if (patch.statsEnabled !== undefined) changes.stats_enabled = patch.statsEnabled ? 1 : 0;
  if (patch.monthlyQuota !== undefined) changes.monthly_quota = patch.monthlyQuota;
  if (patch.perSecond !== undefined) changes.per_second = patch.perSecond;
  if (patch.perMinute !== undefined) changes.per_minute = patch.perMinute;
  if (patch.billingAnchor !== undefined) {
    changes.billing_anchor = parseIsoDate(patch.billingAnchor, 'billing_anchor').toISOString();
  }
  await db.updateTable('accounts').set(changes).where('id', '=', account.id).execute();
  keysChanged(db);
  return getAccountBySlug(db, slug);
}

export async function countAccounts(db: Db): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
