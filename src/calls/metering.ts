import type { Logger } from 'pino';
import type { Account } from '../billing/accounts.js';
import type { ApiKey } from '../billing/keys.js';
import type { Link, Reservation, ReserveResult } from '../billing/ledger.js';
import type { CapSlots, RateCaps } from '../billing/rate-caps.js';
import type { Reservations } from '../billing/reservations.js';
import type { Clock } from '../clock.js';
import { WebcapError } from '../errors.js';

export interface MeteringDeps {
  readonly reservations: Reservations;
  readonly clock: Clock;
  readonly caps: RateCaps;
  readonly logger: Logger;
}

/** Who makes a billable call: the account it is billed to and the key it came with. */
export interface Caller {
  readonly account: Account;
  readonly key: ApiKey;
  /**
   * True when the call's unit is already held: an async job's, reserved at submission and
   * committed or released by the job runner together with the job's final state. The call then
   * neither draws nor settles a unit.
   */
  readonly unitHeld?: boolean;
}

/** A call's result and whether it was billed (a unit committed for it). */
export interface Metered<T> {
  readonly value: T;
  readonly billed: boolean;
}

/** A unit reserved for a call, and the cap slots it took. */
interface Drawn {
  readonly reservation: Reservation;
  readonly slots: CapSlots;
}

/**
 * Takes the account's caps, then runs `reserve`: its unit, or why there is none (thrown as the 402
 * or 429 that says why). Null when its link wrote nothing (`unlinked`). The caps are given back
 * whenever no unit was reserved.
 */
async function withCaps(
  deps: MeteringDeps,
  caller: Caller,
  reserve: () => Promise<ReserveResult>,
): Promise<Drawn | null> {
  const slots = await takeCaps(deps, caller);
  let reserved: ReserveResult;
  try {
    reserved = await reserve();
  } catch (error) {
    await deps.caps.giveBack(caller.account, slots);
    throw error;
  }
  if (reserved.ok) return { reservation: reserved.reservation, slots };
  await deps.caps.giveBack(caller.account, slots);
  if (reserved.reason === 'unlinked') return null;
  throw refusal(deps, reserved);
}

/**
 * Takes the account's caps and draws a unit for the call in the spec's order, after the key's
 * quotas; committed at once when `settled`. Throws the 401 or 402 that says why not, giving the
 * caps back.
 */
async function drawFor(deps: MeteringDeps, caller: Caller, engine: string, settled: boolean): Promise<Drawn> {
  const drawn = await withCaps(deps, caller, () =>
    deps.reservations.reserve({
      accountId: caller.account.id,
      keyId: caller.key.id,
      engine,
      settled,
    }),
  );
  // Only a link can write nothing; a request without one that comes back unlinked is a bug.
  if (drawn === null) throw new Error('a reservation without a link came back unlinked');
  return drawn;
}

/** Takes the account's per-second and per-minute caps, or throws the 429 of the one that is full. */
async function takeCaps(deps: MeteringDeps, caller: Caller): Promise<CapSlots> {
  const cap = await deps.caps.take(caller.account);
  if (!cap.ok) {
    const resetSeconds = Math.max(1, Math.ceil(cap.resetMs / 1000));
    throw new WebcapError('rate_limited', `quota ${cap.cap}`, {
      retryAfterSeconds: resetSeconds,
      rateLimit: { limit: cap.limit, remaining: 0, resetSeconds },
    });
  }
  return cap.slots;
}

/** The 402 or 429 that says why no unit was reserved. */
function refusal(
  deps: MeteringDeps,
  reserved: Exclude<ReserveResult, { ok: true } | { reason: 'unlinked' }>,
): WebcapError {
  if (reserved.reason === 'insufficient') {
    return new WebcapError(
      'insufficient_credits',
      'no subscription quota, pack or credits left; add a pack or credits',
    );
  }
  const resetSeconds =
    reserved.resetsAt === null
      ? undefined
      : Math.max(1, Math.ceil((reserved.resetsAt.getTime() - deps.clock().getTime()) / 1000));
  return new WebcapError('rate_limited', `quota ${reserved.quota}`, {
    retryAfterSeconds: resetSeconds,
    rateLimit: { limit: reserved.limit, remaining: 0, resetSeconds: resetSeconds ?? 0 },
  });
}

/**
 * The one billable-call path: caps → reserve a unit (key quotas, draw order) → run → commit on
 * success, release on failure. Every billable call runs its engine through this, whatever
 * transport it came by. The commit happens before the caller gets the result, so a client that
 * hangs up still pays for a result that was produced (spec, Errors rule 3); a call that throws
 * is never billed.
 */
export async function metered<T>(
  deps: MeteringDeps,
  caller: Caller,
  engine: string,
  run: () => Promise<T>,
): Promise<Metered<T>> {
  if (caller.unitHeld === true) return { value: await run(), billed: false };
  const { reservation, slots } = await drawFor(deps, caller, engine, false);
  let value: T;
  try {
    value = await run();
  } catch (error) {
    await deps.reservations
      .release(reservation.id)
      .catch((releaseError: unknown) =>
        deps.logger.error(
          { err: releaseError, reservation: reservation.id },
          'release failed; the hold will expire',
        ),
      );
    await deps.caps.giveBack(caller.account, slots);
    throw error;
  }
  const billed = await deps.reservations.commit(reservation.id);
  if (!billed) {
    deps.logger.warn({ reservation: reservation.id }, 'reservation expired before commit; call not billed');
  }
  return { value, billed };
}

/**
 * The same path for a call whose result is already in hand and whose answer can no longer fail
 * (a cache hit sent as it is): the unit is drawn and committed in one step, before the answer is
 * sent, so nothing is held and nothing needs settling. Throws the 401 or 402 that says why not.
 */
export async function charged(deps: MeteringDeps, caller: Caller, engine: string): Promise<void> {
  if (caller.unitHeld === true) return;
  await drawFor(deps, caller, engine, true);
}

/**
 * Takes the caps and reserves one unit held for `holdMs`, for a call that runs later (an async
 * job), with `insert` writing its holder's new rows in the same transaction, so that a process
 * that dies between them leaves no unit held for nothing. Through the group commit: a burst of
 * submissions on one account shares the account's lock. Null, with the caps given back, when
 * `insert` wrote nothing. Throws the 401 or 402 that says why not.
 */
export async function reserveUnit(
  deps: MeteringDeps,
  caller: Caller,
  engine: string,
  holdMs: number,
  insert: Link,
): Promise<Reservation | null> {
  const drawn = await withCaps(deps, caller, () =>
    deps.reservations.reserve({
      accountId: caller.account.id,
      keyId: caller.key.id,
      engine,
      holdMs,
      link: insert,
    }),
  );
  return drawn?.reservation ?? null;
}

/**
 * reserveUnit in a transaction of its own, `link` written before the account is locked (ledger.ts
 * reserveLinked): for a link that locks rows that exist (a crawl page's), or writes many (a crawl's
 * or batch's start, whose seeds and items would hold up a shared batch). Null, with the caps given
 * back, when `link` found nothing to write.
 */
export async function reserveLinkedUnit(
  deps: MeteringDeps,
  caller: Caller,
  engine: string,
  holdMs: number,
  link: Link,
): Promise<Reservation | null> {
  const drawn = await withCaps(deps, caller, () =>
    deps.reservations.reserveLinked(
      { accountId: caller.account.id, keyId: caller.key.id, engine, holdMs },
      link,
    ),
  );
  return drawn?.reservation ?? null;
}
