import { type ExpressionBuilder, SqliteAdapter, sql, type Transaction } from 'kysely';
import { reusableQuery } from '../store/compiled-queries.js';
import type { Db } from '../store/db.js';
import { timeOrderedId } from '../store/ids.js';
import { columnsOf, insertRows } from '../store/row-inserts.js';
import type { AccountsTable, BalanceSource, DatabaseSchema, ReservationsTable } from '../store/schema.js';
import { powerOfTwoChunks } from '../store/statement-chunks.js';
import { type Balance, count, type Drawn, draw, exceeded, type KeyAllowance, undraw } from './draw.js';
import { billingPeriod, QUOTA_WINDOWS, type QuotaWindow, windowEnds, windowStarts } from './periods.js';

/** A unit held for one call: committed when the call bills, released otherwise. */
export interface Reservation {
  readonly id: string;
  readonly source: BalanceSource;
}

export type ReserveResult =
  | { readonly ok: true; readonly reservation: Reservation }
  | { readonly ok: false; readonly reason: 'insufficient' }
  /** The request's link found nothing to write (its holder is taken or has moved on): nothing is reserved. */
  | { readonly ok: false; readonly reason: 'unlinked' }
  | {
      readonly ok: false;
      readonly reason: 'quota';
      readonly quota: QuotaWindow;
      readonly limit: number;
      /** When the window ends; null for the total quota, which never resets. */
      readonly resetsAt: Date | null;
    };

export interface ReserveRequest {
  readonly accountId: string;
  readonly keyId: string;
  readonly engine: string;
  /** Bill the unit at once: the call's result is already in hand (a cache hit), nothing is held. */
  readonly settled?: boolean;
  /** How long this unit is held, instead of the batch's default (an async job's unit outlives its queue wait). */
  readonly holdMs?: number;
  /** The id to reserve under, chosen beforehand by reserveLinked; a new one otherwise. */
  readonly id?: string;
  /**
   * Writes where the unit goes (an async job's row) in the reservation's transaction, once the
   * unit is drawn and under the account's lock; false when it wrote nothing (its Idempotency-Key
   * is taken), and then nothing is reserved. It may only write new rows: rows that exist are
   * locked before the account (reserveLinked), and taking one after it could deadlock.
   */
  readonly link?: Link;
}

/** Writes a reservation's holder in its transaction; false when it wrote nothing. */
export type Link = (trx: Trx, reservationId: string) => Promise<boolean>;

export type Trx = Transaction<DatabaseSchema>;

/**
 * Rows (or ids) per multi-row statement, at most: well under either dialect's limit on bound
 * parameters, and a power of two, as powerOfTwoChunks takes.
 */
const ROWS_PER_STATEMENT = 64;

const RESERVATION_COLUMNS = columnsOf<ReservationsTable>({
  id: true,
  account_id: true,
  key_id: true,
  source: true,
  pack_id: true,
  period_start: true,
  status: true,
  engine: true,
  created_at: true,
  expires_at: true,
  settled_at: true,
});

const BALANCE_COLUMNS = ['monthly_quota', 'billing_anchor', 'credits_given', 'credits_used'] as const;

/** The update that takes the account's lock: it writes the account's row. */
function lockAccountQuery(db: Db, accountId: string) {
  return db
    .updateTable('accounts')
    .set((eb) => ({ lock_seq: eb('lock_seq', '+', 1) }))
    .where('id', '=', accountId);
}

const lockAccount = reusableQuery('ledger: lock account', lockAccountQuery);

const lockAccountReturning = reusableQuery('ledger: lock account, returning', (db, accountId: string) =>
  lockAccountQuery(db, accountId).returning(BALANCE_COLUMNS),
);

const accountBalance = reusableQuery('ledger: account balance', (db, accountId: string) =>
  db.selectFrom('accounts').select(BALANCE_COLUMNS).where('id', '=', accountId),
);

const subscriptionUsed = reusableQuery(
  'ledger: subscription used',
  (db, accountId: string, periodStart: string) =>
    db
      .selectFrom('subscription_usage')
      .select('used')
      .where('account_id', '=', accountId)
      .where('period_start', '=', periodStart),
);

const packsLeft = reusableQuery('ledger: packs left', (db, accountId: string) =>
  db
    .selectFrom('packs')
    .select(['id', 'total', 'used'])
    .where('account_id', '=', accountId)
    .whereRef('used', '<', 'total')
    .orderBy('purchased_at')
    .orderBy('id'),
);

/**
 * Takes the account's lock for the rest of the transaction (row lock on PostgreSQL, write lock on
 * SQLite) and reads, under it, the balance the account can still spend. SQLite answers an UPDATE's
 * RETURNING through a temporary table it sets up on every run (30 µs, where the update and a
 * select take 3), so there the row is read by a second statement; PostgreSQL returns it in the
 * same round trip.
 */
async function lockBalance(trx: Trx, accountId: string, now: Date): Promise<Balance> {
  let account: Pick<AccountsTable, (typeof BALANCE_COLUMNS)[number]> | undefined;
  if (trx.getExecutor().adapter instanceof SqliteAdapter) {
    await lockAccount(trx, accountId);
    [account] = (await accountBalance(trx, accountId)).rows;
  } else [account] = (await lockAccountReturning(trx, accountId)).rows;
  if (account === undefined) throw new Error(`no account ${accountId} to draw from`);
  let subscription: Balance['subscription'] = null;
  if (account.monthly_quota !== null && account.monthly_quota > 0) {
    const periodStart = billingPeriod(new Date(account.billing_anchor), now).start.toISOString();
    const [row] = (await subscriptionUsed(trx, accountId, periodStart)).rows;
    subscription = { quota: account.monthly_quota, used: row?.used ?? 0, periodStart };
  }
  const packs = (await packsLeft(trx, accountId)).rows;
  return { subscription, packs, credits: { given: account.credits_given, used: account.credits_used } };
}

/** Conditions on key_usage rows, one for each window: of its kind, starting at its start. */
function windowsStarting(
  eb: ExpressionBuilder<DatabaseSchema, 'key_usage'>,
  starts: Readonly<Record<QuotaWindow, string>>,
) {
  return QUOTA_WINDOWS.map((w) => eb.and([eb('window_kind', '=', w), eb('window_start', '=', starts[w])]));
}

const keyQuotas = reusableQuery('ledger: key quotas', (db, keyId: string) =>
  db
    .selectFrom('api_keys')
    .select(['quota_total', 'quota_daily', 'quota_weekly', 'quota_monthly'])
    .where('id', '=', keyId),
);

const keyUsed = reusableQuery(
  'ledger: key used',
  (db, keyId: string, total: string, daily: string, weekly: string, monthly: string) =>
    db
      .selectFrom('key_usage')
      .select(['window_kind', 'used'])
      .where('key_id', '=', keyId)
      .where((eb) => eb.or(windowsStarting(eb, { total, daily, weekly, monthly }))),
);

/** The key's quotas and its use in the windows containing `now`; usage is read only for quotas that are set. */
async function readAllowance(trx: Trx, keyId: string, now: Date): Promise<KeyAllowance> {
  const [key] = (await keyQuotas(trx, keyId)).rows;
  if (key === undefined) throw new Error(`no key ${keyId} to count`);
  const limits: Record<QuotaWindow, number | null> = {
    total: key.quota_total,
    daily: key.quota_daily,
    weekly: key.quota_weekly,
    monthly: key.quota_monthly,
  };
  const used: Record<QuotaWindow, number> = { total: 0, daily: 0, weekly: 0, monthly: 0 };
  if (QUOTA_WINDOWS.every((w) => limits[w] === null)) return { limits, used };
  const starts = windowStarts(now);
  const { rows } = await keyUsed(trx, keyId, starts.total, starts.daily, starts.weekly, starts.monthly);
  for (const row of rows) used[row.window_kind] = row.used;
  return { limits, used };
}

/** A key's billable calls in the quota windows containing an instant (units held for calls in flight count). */
export interface KeyUse {
  readonly total: number;
  readonly today: number;
  readonly this_week: number;
  readonly this_month: number;
}

/** Each key's use in the windows containing `now`, by key id; a key without calls has zeros. */
export async function keyUse(db: Db, keyIds: readonly string[], now: Date): Promise<Map<string, KeyUse>> {
  const uses = new Map<string, { total: number; today: number; this_week: number; this_month: number }>();
  for (const id of keyIds) uses.set(id, { total: 0, today: 0, this_week: 0, this_month: 0 });
  if (keyIds.length === 0) return uses;
  const starts = windowStarts(now);
  const rows = await db
    .selectFrom('key_usage')
    .select(['key_id', 'window_kind', 'used'])
    .where('key_id', 'in', keyIds)
    .where((eb) => eb.or(windowsStarting(eb, starts)))
    .execute();
  const field = { total: 'total', daily: 'today', weekly: 'this_week', monthly: 'this_month' } as const;
  for (const row of rows) {
    const use = uses.get(row.key_id);
    if (use !== undefined) use[field[row.window_kind]] = row.used;
  }
  return uses;
}

const countKeyUseUp = reusableQuery(
  'ledger: count key use',
  (db, keyId: string, delta: number, total: string, daily: string, weekly: string, monthly: string) => {
    const starts: Record<QuotaWindow, string> = { total, daily, weekly, monthly };
    return db
      .insertInto('key_usage')
      .values(
        QUOTA_WINDOWS.map((w) => ({ key_id: keyId, window_kind: w, window_start: starts[w], used: delta })),
      )
      .onConflict((oc) =>
        oc
          .columns(['key_id', 'window_kind', 'window_start'])
          .doUpdateSet((eb) => ({ used: eb('key_usage.used', '+', delta) })),
      );
  },
);

/** Adds `delta` to the key's counter in every window containing `at`. */
async function countKeyUse(trx: Trx, keyId: string, at: Date, delta: number): Promise<void> {
  const starts = windowStarts(at);
  if (delta > 0) {
    await countKeyUseUp(trx, keyId, delta, starts.total, starts.daily, starts.weekly, starts.monthly);
    return;
  }
  for (const w of QUOTA_WINDOWS) {
    await trx
      .updateTable('key_usage')
      .set((eb) => ({ used: eb('used', '+', delta) }))
      .where('key_id', '=', keyId)
      .where('window_kind', '=', w)
      .where('window_start', '=', starts[w])
      .execute();
  }
}

const countSubscriptionUse = reusableQuery(
  'ledger: count subscription use',
  (db, accountId: string, periodStart: string, units: number) =>
    db
      .insertInto('subscription_usage')
      .values({ account_id: accountId, period_start: periodStart, used: units })
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'period_start'])
          .doUpdateSet((eb) => ({ used: eb('subscription_usage.used', '+', units) })),
      ),
);

const countPackUse = reusableQuery('ledger: count pack use', (db, packId: string, units: number) =>
  db
    .updateTable('packs')
    .set((eb) => ({ used: eb('used', '+', units) }))
    .where('id', '=', packId),
);

const countCreditUse = reusableQuery('ledger: count credit use', (db, accountId: string, units: number) =>
  db
    .updateTable('accounts')
    .set((eb) => ({ credits_used: eb('credits_used', '+', units) }))
    .where('id', '=', accountId),
);

/** Writes what the draws took from the balance, the keys' counters, and one reservation row per unit. */
async function recordDraws(
  trx: Trx,
  accountId: string,
  draws: readonly { id: string; request: ReserveRequest; drawn: Drawn }[],
  now: Date,
  holdMs: number,
): Promise<void> {
  if (draws.length === 0) return;
  const bySource = (source: BalanceSource) => draws.filter((d) => d.drawn.source === source);
  const subscription = bySource('subscription');
  const periodStart = subscription[0]?.drawn.periodStart;
  if (periodStart !== undefined && periodStart !== null) {
    await countSubscriptionUse(trx, accountId, periodStart, subscription.length);
  }
  const perPack = new Map<string, number>();
  for (const { drawn } of bySource('pack')) {
    if (drawn.packId !== null) perPack.set(drawn.packId, (perPack.get(drawn.packId) ?? 0) + 1);
  }
  for (const [packId, units] of perPack) await countPackUse(trx, packId, units);
  const credits = bySource('credit').length;
  if (credits > 0) await countCreditUse(trx, accountId, credits);
  const perKey = new Map<string, number>();
  for (const { request } of draws) perKey.set(request.keyId, (perKey.get(request.keyId) ?? 0) + 1);
  for (const [keyId, units] of perKey) await countKeyUse(trx, keyId, now, units);
  const createdAt = now.toISOString();
  const rows = draws.map(({ id, request, drawn }) => ({
    id,
    account_id: accountId,
    key_id: request.keyId,
    source: drawn.source,
    pack_id: drawn.packId,
    period_start: drawn.periodStart,
    status: request.settled === true ? ('committed' as const) : ('reserved' as const),
    engine: request.engine,
    created_at: createdAt,
    expires_at: new Date(now.getTime() + (request.holdMs ?? holdMs)).toISOString(),
    settled_at: request.settled === true ? createdAt : null,
  }));
  await insertRows(trx, 'reservations', RESERVATION_COLUMNS, rows, ROWS_PER_STATEMENT);
}

/** Reserves one unit for each request, in order, within the caller's transaction (see writeBatch). */
async function reserveIn(
  trx: Trx,
  requests: readonly ReserveRequest[],
  now: Date,
  holdMs: number,
): Promise<ReserveResult[]> {
  const results: ReserveResult[] = [];
  const accountIds = [...new Set(requests.map((r) => r.accountId))].sort();
  for (const accountId of accountIds) {
    const balance = await lockBalance(trx, accountId, now);
    const allowances = new Map<string, KeyAllowance>();
    const draws: { id: string; request: ReserveRequest; drawn: Drawn }[] = [];
    for (const [index, request] of requests.entries()) {
      if (request.accountId !== accountId) continue;
      let allowance = allowances.get(request.keyId);
      if (allowance === undefined) {
        allowance = await readAllowance(trx, request.keyId, now);
        allowances.set(request.keyId, allowance);
      }
      const quota = exceeded(allowance);
      if (quota !== undefined) {
        const limit = allowance.limits[quota] ?? 0;
        const resetsAt = quota === 'total' ? null : windowEnds(now)[quota];
        results[index] = { ok: false, reason: 'quota', quota, limit, resetsAt };
        continue;
      }
      const drawn = draw(balance);
      if (drawn === undefined) {
        results[index] = { ok: false, reason: 'insufficient' };
        continue;
      }
      const id = request.id ?? timeOrderedId('res', now.getTime());
      if (request.link !== undefined && !(await request.link(trx, id))) {
        undraw(balance, drawn);
        results[index] = { ok: false, reason: 'unlinked' };
        continue;
      }
      count(allowance);
      draws.push({ id, request, drawn });
      results[index] = { ok: true, reservation: { id, source: drawn.source } };
    }
    await recordDraws(trx, accountId, draws, now, holdMs);
  }
  return results;
}

/** Bills the reservations still held, within the caller's transaction; per id, whether this billed it. */
async function commitIn(trx: Trx, reservationIds: readonly string[], now: Date): Promise<boolean[]> {
  const billed = new Set<string>();
  for (const ids of powerOfTwoChunks(reservationIds, ROWS_PER_STATEMENT)) {
    const rows = await trx
      .updateTable('reservations')
      .set({ status: 'committed', settled_at: now.toISOString() })
      .where('id', 'in', ids)
      .where('status', '=', 'reserved')
      .returning('id')
      .execute();
    for (const row of rows) billed.add(row.id);
  }
  // An id listed twice is billed once, for its first listing.
  return reservationIds.map((id) => billed.delete(id));
}

/** Commits of earlier calls and reservations of new ones, written together. */
export interface LedgerBatch {
  readonly commits: readonly string[];
  readonly reserves: readonly ReserveRequest[];
}

export interface LedgerBatchResult {
  /** Per commit: whether it billed the reservation (false when it was already settled). */
  readonly committed: boolean[];
  /** Per reservation request: the unit reserved, or why there is none. */
  readonly reserved: ReserveResult[];
}

/**
 * One transaction for many calls, so that concurrent calls share its cost. Commits first: a
 * commit bills a reservation still held, and is idempotent (only the first commit of a
 * reservation takes effect; a reservation released because its hold expired stays unbilled).
 * Then reservations: one unit for each request, in order, after checking its key's quotas. Each
 * account is locked (in id order, so that two batches never wait on each other) and its balance
 * read once; units are drawn in memory exactly as one call at a time would draw them, then
 * written. Reservations are thereby serialized per account on either dialect and across
 * processes, and never overdraw a balance or a quota. A unit is held until `holdMs` has passed;
 * after that an unsettled reservation is released (see releaseExpired).
 */
export async function writeBatch(
  db: Db,
  batch: LedgerBatch,
  now: Date,
  holdMs: number,
): Promise<LedgerBatchResult> {
  if (batch.commits.length === 0 && batch.reserves.length === 0) return { committed: [], reserved: [] };
  return db.transaction().execute(async (trx) => ({
    committed: await commitIn(trx, batch.commits, now),
    reserved: await reserveIn(trx, batch.reserves, now, holdMs),
  }));
}

/** A reservation refused inside reserveLinked's transaction, thrown to roll its link back. */
class Refused extends Error {
  constructor(readonly result: ReserveResult) {
    super('refused');
  }
}

/**
 * Reserves one unit and writes where it goes (`link`: a crawl page's row) in one transaction, the
 * link first, so that a process dying in between leaves neither. `unlinked` when the link finds
 * nothing to write (its page has moved on): nothing is reserved. A refused reservation (balance
 * spent, quota full) rolls the link back. The link locks its row before the account is locked, as
 * a page's end does before it settles the unit, so the two never wait on each other.
 */
export async function reserveLinked(
  db: Db,
  request: Omit<ReserveRequest, 'link'>,
  link: Link,
  now: Date,
  holdMs: number,
): Promise<ReserveResult> {
  const id = timeOrderedId('res', now.getTime());
  try {
    return await db.transaction().execute(async (trx) => {
      if (!(await link(trx, id))) return { ok: false, reason: 'unlinked' } as const;
      // One result per request.
      const result = (await reserveIn(trx, [{ ...request, id }], now, holdMs))[0] as ReserveResult;
      if (!result.ok) throw new Refused(result);
      return result;
    });
  } catch (error) {
    if (error instanceof Refused) return error.result;
    throw error;
  }
}

/**
 * Bills or gives back a held unit within the caller's transaction, so that it is settled together
 * with what depends on it (an async job's final state). Idempotent; false when already settled.
 */
export async function settleIn(
  trx: Trx,
  reservationId: string,
  outcome: 'commit' | 'release',
  now: Date,
): Promise<boolean> {
  if (outcome === 'commit') return (await commitIn(trx, [reservationId], now))[0] === true;
  return releaseIn(trx, reservationId, now, false);
}

/**
 * Gives a held unit back to the balance and key counters it came from; with `expiredOnly`, only
 * if its hold has expired at `now` (checked in the same statement that settles it).
 */
async function releaseIn(trx: Trx, reservationId: string, now: Date, expiredOnly: boolean): Promise<boolean> {
  const settled = await trx
    .updateTable('reservations')
    .set({ status: 'released', settled_at: now.toISOString() })
    .where('id', '=', reservationId)
    .where('status', '=', 'reserved')
    .$if(expiredOnly, (qb) => qb.where('expires_at', '<', now.toISOString()))
    .executeTakeFirst();
  if (settled.numUpdatedRows !== 1n) return false;
  const r = await trx
    .selectFrom('reservations')
    .selectAll()
    .where('id', '=', reservationId)
    .executeTakeFirstOrThrow();
  if (r.source === 'subscription' && r.period_start !== null) {
    await trx
      .updateTable('subscription_usage')
      .set((eb) => ({ used: eb('used', '-', 1) }))
      .where('account_id', '=', r.account_id)
      .where('period_start', '=', r.period_start)
      .execute();
  } else if (r.source === 'pack' && r.pack_id !== null) {
    await trx
      .updateTable('packs')
      .set((eb) => ({ used: eb('used', '-', 1) }))
      .where('id', '=', r.pack_id)
      .execute();
  } else if (r.source === 'credit') {
    await trx
      .updateTable('accounts')
      .set((eb) => ({ credits_used: eb('credits_used', '-', 1) }))
      .where('id', '=', r.account_id)
      .execute();
  }
  await countKeyUse(trx, r.key_id, new Date(r.created_at), -1);
  return true;
}

/** Gives a reserved unit back to the balance it came from. Idempotent; false when already settled. */
export async function releaseUnit(db: Db, reservationId: string, now: Date): Promise<boolean> {
  return db.transaction().execute((trx) => settleIn(trx, reservationId, 'release', now));
}

/**
 * Extends to `until` the holds of those of `reservationIds` still held: the lease of the calls
 * running in the process that holds them (see Reservations). Returns how many were extended.
 */
export async function renewHolds(db: Db, reservationIds: readonly string[], until: Date): Promise<number> {
  let renewed = 0;
  for (const ids of powerOfTwoChunks(reservationIds, ROWS_PER_STATEMENT)) {
    const result = await db
      .updateTable('reservations')
      .set({ expires_at: until.toISOString() })
      .where('id', 'in', ids)
      .where('status', '=', 'reserved')
      .executeTakeFirst();
    renewed += Number(result.numUpdatedRows);
  }
  return renewed;
}

/**
 * Releases every reservation whose hold has expired (its process died or hung: nothing renews
 * it); returns how many. Each is released only if still expired when it is settled, so a hold
 * its process renewed after the list was read is kept.
 */
export async function releaseExpired(db: Db, now: Date): Promise<number> {
  const stale = await db
    .selectFrom('reservations')
    .select('id')
    // A literal, so that SQLite sees the query fits the partial index on held reservations.
    .where('status', '=', sql.lit('reserved'))
    .where('expires_at', '<', now.toISOString())
    .execute();
  let released = 0;
  for (const { id } of stale) {
    if (await db.transaction().execute((trx) => releaseIn(trx, id, now, true))) released += 1;
  }
  return released;
}
