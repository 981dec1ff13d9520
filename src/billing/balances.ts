import { invalidParam } from '../errors.js';
import type { Db } from '../store/db.js';
import { newId } from '../store/ids.js';
import type { BalanceSource, PacksTable, ReservationStatus } from '../store/schema.js';
import { getAccountBySlug } from './accounts.js';
import { MAX_AMOUNT, MAX_STORED_COUNT } from './amounts.js';
import { parseIsoDate } from './iso-date.js';

export interface Pack {
  readonly id: string;
  readonly title: string;
  readonly total: number;
  readonly used: number;
  readonly purchasedAt: string;
}

/** A grant of credits, with the account's credit totals after it. */
export interface CreditGrant {
  readonly id: string;
  readonly accountSlug: string;
  readonly amount: number;
  readonly note: string;
  readonly grantedAt: string;
  readonly credits: { readonly given: number; readonly consumed: number };
}

/** One reserved unit: where it was drawn from and how it settled. */
export interface LedgerEntry {
  readonly id: string;
  readonly keyId: string;
  readonly engine: string;
  readonly source: BalanceSource;
  readonly packId: string | null;
  readonly periodStart: string | null;
  readonly status: ReservationStatus;
  readonly createdAt: string;
  readonly settledAt: string | null;
}

/** An account's units: committed per source (what it was billed, all time), in flight, released. */
export interface LedgerTotals {
  readonly committed: { readonly subscription: number; readonly pack: number; readonly credit: number };
  readonly reserved: number;
  readonly released: number;
}

export interface Ledger {
  readonly accountSlug: string;
  readonly totals: LedgerTotals;
  /** Newest first. */
  readonly entries: readonly LedgerEntry[];
}

function fromPackRow(row: PacksTable): Pack {
  return { id: row.id, title: row.title, total: row.total, used: row.used, purchasedAt: row.purchased_at };
}

function checkAmount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_AMOUNT) {
    throw invalidParam(name, `must be an integer from 1 to ${MAX_AMOUNT}`);
  }
}

/** Adds a one-time pack; packs are drawn after the subscription quota, oldest purchase first. */
export async function addPack(
  db: Db,
  input: { accountSlug: string; total: number; title?: string; purchasedAt?: string },
  now: Date,
): Promise<Pack> {
  checkAmount('total', input.total);
  const purchasedAt = input.purchasedAt === undefined ? now : parseIsoDate(input.purchasedAt, 'purchased_at');
  const account = await getAccountBySlug(db, input.accountSlug);
  const row: PacksTable = {
    id: newId('pack'),
    account_id: account.id,
    title: input.title?.trim() || `${input.total} credits pack`,
    total: input.total,
    used: 0,
    purchased_at: purchasedAt.toISOString(),
  };
  await db.insertInto('packs').values(row).execute();
  return fromPackRow(row);
}

/** Every pack of an account in draw order. */
export async function listPacks(db: Db, accountId: string): Promise<Pack[]> {
  const rows = await db
    .selectFrom('packs')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('purchased_at')
    .orderBy('id')
    .execute();
  return rows.map(fromPackRow);
}

/** Grants credits (a separate ledger, drawn last). Returns the grant and the account's new totals. */
export async function grantCredits(
  db: Db,
  input: { accountSlug: string; amount: number; note?: string },
  now: Date,
): Promise<CreditGrant> {
  checkAmount('amount', input.amount);
  const account = await getAccountBySlug(db, input.accountSlug);
  const grant = {
    id: newId('cred'),
    account_id: account.id,
    amount: input.amount,
    note: input.note?.trim() ?? '',
    granted_at: now.toISOString(),
  };
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('accounts')
      .set((eb) => ({ credits_given: eb('credits_given', '+', input.amount) }))
      .where('id', '=', account.id)
      .where('credits_given', '<=', MAX_STORED_COUNT - input.amount)
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) {
      throw invalidParam('amount', `would take the account's credits past ${MAX_STORED_COUNT}`);
    }
    await trx.insertInto('credit_grants').values(grant).execute();
  });
  const totals = await db
    .selectFrom('accounts')
    .select(['credits_given', 'credits_used'])
    .where('id', '=', account.id)
    .executeTakeFirstOrThrow();
  return {
    id: grant.id,
    accountSlug: account.slug,
    amount: grant.amount,
    note: grant.note,
    grantedAt: grant.granted_at,
    credits: { given: totals.credits_given, consumed: totals.credits_used },
  };
}

/**
 * The account's ledger: committed units per source (what it was billed, all time) and the
 * latest `limit` reservations, newest first, with where each was drawn from and how it settled.
 */
export async function listLedger(db: Db, accountSlug: string, limit: number): Promise<Ledger> {
  const account = await getAccountBySlug(db, accountSlug);
  const sums = await db
    .selectFrom('reservations')
    .select(['source', 'status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('account_id', '=', account.id)
    .groupBy(['source', 'status'])
    .execute();
  const totals = {
    committed: { subscription: 0, pack: 0, credit: 0 },
    reserved: 0,
    released: 0,
  };
  for (const row of sums) {
    const n = Number(row.n);
    if (row.status === 'committed') totals.committed[row.source] += n;
    else totals[row.status] += n;
  }
  const rows = await db
    .selectFrom('reservations')
    .selectAll()
    .where('account_id', '=', account.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return {
    accountSlug: account.slug,
    totals,
    entries: rows.map((r) => ({
      id: r.id,
      keyId: r.key_id,
      engine: r.engine,
      source: r.source,
      packId: r.pack_id,
      periodStart: r.period_start,
      status: r.status,
      createdAt: r.created_at,
      settledAt: r.settled_at,
    })),
  };
}
