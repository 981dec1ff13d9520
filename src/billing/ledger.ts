import type { Transaction } from 'kysely';
import type { Db } from '../store/db.js';
import { newId } from '../store/ids.js';
import type { BalanceSource, DatabaseSchema } from '../store/schema.js';
import { billingPeriod, QUOTA_WINDOWS, type QuotaWindow, windowEnds, windowStarts } from './periods.js';

/** A unit held for one call: committed when the call bills, released otherwise. */
export interface Reservation {
  readonly id: string;
  readonly source: BalanceSource;
}

export type ReserveResult =
  | { readonly ok: true; readonly reservation: Reservation }
  | { readonly ok: false; readonly reason: 'insufficient' }
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
}

type Trx = Transaction<DatabaseSchema>;

/** Takes the account's lock for the rest of the transaction (row lock on PostgreSQL, write lock on SQLite). */
async function lockAccount(trx: Trx, accountId: string): Promise<void> {
  await trx
    .updateTable('accounts')
    .set((eb) => ({ lock_seq: eb('lock_seq', '+', 1) }))
    .where('id', '=', accountId)
    .execute();
}

/** The first key quota that has no room left, if any. */
async function exceededQuota(trx: Trx, keyId: string, now: Date) {
  const key = await trx
    .selectFrom('api_keys')
    .select(['quota_total', 'quota_daily', 'quota_weekly', 'quota_monthly'])
    .where('id', '=', keyId)
    .executeTakeFirstOrThrow();
  const limits: Record<QuotaWindow, number | null> = {
    total: key.quota_total,
    daily: key.quota_daily,
    weekly: key.quota_weekly,
    monthly: key.quota_monthly,
  };
  if (QUOTA_WINDOWS.every((w) => limits[w] === null)) return undefined;
  const starts = windowStarts(now);
  const rows = await trx
    .selectFrom('key_usage')
    .select(['window_kind', 'used'])
    .where('key_id', '=', keyId)
    .where((eb) =>
      eb.or(
        QUOTA_WINDOWS.map((w) => eb.and([eb('window_kind', '=', w), eb('window_start', '=', starts[w])])),
      ),
    )
    .execute();
  const used = new Map(rows.map((row) => [row.window_kind, row.used]));
  const ends = windowEnds(now);
  for (const window of QUOTA_WINDOWS) {
    const limit = limits[window];
    if (limit !== null && (used.get(window) ?? 0) >= limit) {
      return { quota: window, limit, resetsAt: window === 'total' ? null : ends[window] };
    }
  }
  return undefined;
}

/** Draws one unit in the spec's order: subscription quota, then packs by purchase date, then credits. */
async function drawUnit(trx: Trx, accountId: string, now: Date) {
  const account = await trx
    .selectFrom('accounts')
    .select(['monthly_quota', 'billing_anchor', 'credits_given', 'credits_used'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();

  if (account.monthly_quota !== null && account.monthly_quota > 0) {
    const periodStart = billingPeriod(new Date(account.billing_anchor), now).start.toISOString();
    const row = await trx
      .selectFrom('subscription_usage')
      .select('used')
      .where('account_id', '=', accountId)
      .where('period_start', '=', periodStart)
      .executeTakeFirst();
    if ((row?.used ?? 0) < account.monthly_quota) {
      await trx
        .insertInto('subscription_usage')
        .values({ account_id: accountId, period_start: periodStart, used: 1 })
        .onConflict((oc) =>
          oc
            .columns(['account_id', 'period_start'])
            .doUpdateSet((eb) => ({ used: eb('subscription_usage.used', '+', 1) })),
        )
        .execute();
      return { source: 'subscription' as const, packId: null, periodStart };
    }
  }

  const pack = await trx
    .selectFrom('packs')
    .select('id')
    .where('account_id', '=', accountId)
    .whereRef('used', '<', 'total')
    .orderBy('purchased_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (pack !== undefined) {
    await trx
      .updateTable('packs')
      .set((eb) => ({ used: eb('used', '+', 1) }))
      .where('id', '=', pack.id)
      .execute();
    return { source: 'pack' as const, packId: pack.id, periodStart: null };
  }

  if (account.credits_used < account.credits_given) {
    await trx
      .updateTable('accounts')
      .set((eb) => ({ credits_used: eb('credits_used', '+', 1) }))
      .where('id', '=', accountId)
      .execute();
    return { source: 'credit' as const, packId: null, periodStart: null };
  }
  return undefined;
}

/** Adds `delta` to the key's counter in every window containing `at`. */
async function countKeyUse(trx: Trx, keyId: string, at: Date, delta: 1 | -1): Promise<void> {
  const starts = windowStarts(at);
  if (delta === 1) {
    await trx
      .insertInto('key_usage')
      .values(QUOTA_WINDOWS.map((w) => ({ key_id: keyId, window_kind: w, window_start: starts[w], used: 1 })))
      .onConflict((oc) =>
        oc
          .columns(['key_id', 'window_kind', 'window_start'])
          .doUpdateSet((eb) => ({ used: eb('key_usage.used', '+', 1) })),
      )
      .execute();
    return;
  }
  for (const w of QUOTA_WINDOWS) {
    await trx
      .updateTable('key_usage')
      .set((eb) => ({ used: eb('used', '-', 1) }))
      .where('key_id', '=', keyId)
      .where('window_kind', '=', w)
      .where('window_start', '=', starts[w])
      .execute();
  }
}

/**
 * Atomically reserves one unit for a call, after checking the key's quotas. Reservations of one
 * account are serialized by the account lock, so concurrent calls can never overdraw a balance
 * or a quota, on either dialect and across processes. The unit is held until `holdMs` has
 * passed; after that an unsettled reservation is released (see releaseExpired).
 */
export async function reserveUnit(
  db: Db,
  request: ReserveRequest,
  now: Date,
  holdMs: number,
): Promise<ReserveResult> {
  return db.transaction().execute(async (trx): Promise<ReserveResult> => {
    await lockAccount(trx, request.accountId);
    const exceeded = await exceededQuota(trx, request.keyId, now);
    if (exceeded !== undefined) return { ok: false, reason: 'quota', ...exceeded };
    const drawn = await drawUnit(trx, request.accountId, now);
    if (drawn === undefined) return { ok: false, reason: 'insufficient' };
    await countKeyUse(trx, request.keyId, now, 1);
    const id = newId('res');
    await trx
      .insertInto('reservations')
      .values({
        id,
        account_id: request.accountId,
        key_id: request.keyId,
        source: drawn.source,
        pack_id: drawn.packId,
        period_start: drawn.periodStart,
        status: 'reserved',
        engine: request.engine,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + holdMs).toISOString(),
        settled_at: null,
      })
      .execute();
    return { ok: true, reservation: { id, source: drawn.source } };
  });
}

/**
 * Bills a reserved unit. Idempotent: only the first commit of a reservation that is still held
 * takes effect. Returns false when the reservation was already settled (committed, or released
 * because its hold expired), in which case nothing is billed now.
 */
export async function commitUnit(db: Db, reservationId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('reservations')
    .set({ status: 'committed', settled_at: now.toISOString() })
    .where('id', '=', reservationId)
    .where('status', '=', 'reserved')
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Gives a reserved unit back to the balance it came from. Idempotent; false when already settled. */
export async function releaseUnit(db: Db, reservationId: string, now: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const settled = await trx
      .updateTable('reservations')
      .set({ status: 'released', settled_at: now.toISOString() })
      .where('id', '=', reservationId)
      .where('status', '=', 'reserved')
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
  });
}

/** Releases every reservation whose hold has expired (its process died or hung); returns how many. */
export async function releaseExpired(db: Db, now: Date): Promise<number> {
  const stale = await db
    .selectFrom('reservations')
    .select('id')
    .where('status', '=', 'reserved')
    .where('expires_at', '<', now.toISOString())
    .execute();
  let released = 0;
  for (const { id } of stale) {
    if (await releaseUnit(db, id, now)) released += 1;
  }
  return released;
}
