import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import { GroupCommit } from '../store/group-commit.js';
import {
  type Link,
  type ReserveRequest,
  type ReserveResult,
  releaseExpired,
  releaseUnit,
  renewHolds,
  reserveLinked,
  writeBatch,
} from './ledger.js';

type Operation = { readonly reserve: ReserveRequest } | { readonly commit: string };
type Outcome = ReserveResult | boolean;

/**
 * The ledger as the metering path uses it: one unit reserved per call, committed when the call
 * bills, released when it fails. The reservations and commits of concurrent calls share one
 * transaction (group commit, see ledger.writeBatch); each call still gets exactly its own answer,
 * and every guarantee of the ledger holds per call.
 *
 * A call's unit is held on a lease: while the call runs, this process extends its hold every third
 * of the hold (as a job's lease is renewed), so a call slower than the hold is billed like any
 * other, and only the units of a process that died (or stopped for two thirds of the hold) expire
 * and are released by a sweep, this process's or another's.
 */
export class Reservations {
  private readonly batches: GroupCommit<Operation, Outcome>;
  /** The units of the calls running in this process, until they are committed or released here. */
  private readonly leased = new Set<string>();
  private readonly renewer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** How long a reserved unit is held, unless its process renews it, before it is released. */
    private readonly holdMs: number,
    logger: Logger,
  ) {
    this.batches = new GroupCommit(async (operations) => {
      const commits: string[] = [];
      const reserves: ReserveRequest[] = [];
      for (const operation of operations) {
        if ('commit' in operation) commits.push(operation.commit);
        else reserves.push(operation.reserve);
      }
      const { committed, reserved } = await writeBatch(db, { commits, reserves }, clock(), holdMs);
      let c = 0;
      let r = 0;
      return operations.map((operation) =>
        'commit' in operation ? (committed[c++] as boolean) : (reserved[r++] as ReserveResult),
      );
    });
    this.renewer = setInterval(
      () =>
        void this.renew().catch((error: unknown) =>
          logger.warn({ err: error }, 'renewing the holds of running calls failed'),
        ),
      Math.max(100, Math.floor(holdMs / 3)),
    );
    this.renewer.unref();
  }

  /**
   * Reserves a unit for the call, or says why none can be: the balance is spent, a key quota is
   * full, or the request's link wrote nothing (`unlinked`). The unit of a call running here is
   * leased until commit or release; one billed at once (`settled`) or held for a time of its own
   * (`holdMs`: an async job's, which its job settles) is not.
   */
  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const result = (await this.batches.submit({ reserve: request })) as ReserveResult;
    if (result.ok && request.settled !== true && request.holdMs === undefined) {
      this.leased.add(result.reservation.id);
    }
    return result;
  }

  /**
   * Reserves a unit held for `holdMs` and writes where it goes in the same transaction, for a link
   * that locks a row that exists (ledger.ts reserveLinked); `unlinked` when `link` found nothing to
   * write. Not batched: the link's row is locked before the account, and a batch locks its
   * accounts first. A link that only writes new rows goes through reserve() as `request.link`.
   */
  reserveLinked(
    request: Omit<ReserveRequest, 'link'> & { readonly holdMs: number },
    link: Link,
  ): Promise<ReserveResult> {
    return reserveLinked(this.db, request, link, this.clock(), request.holdMs);
  }

  /** Bills a reserved unit; false when it was already settled (released by a sweep first). */
  async commit(reservationId: string): Promise<boolean> {
    try {
      return (await this.batches.submit({ commit: reservationId })) as boolean;
    } finally {
      this.leased.delete(reservationId);
    }
  }

  /** Gives a reserved unit back to the balance and key counters it came from. */
  async release(reservationId: string): Promise<boolean> {
    try {
      return await releaseUnit(this.db, reservationId, this.clock());
    } finally {
      this.leased.delete(reservationId);
    }
  }

  /**
   * Releases the reservations whose hold expired (their process died or hung); returns how many.
   * This process's running calls are renewed first, so that its own sweep never releases them,
   * however late its timers run on a loaded machine.
   */
  async releaseExpired(): Promise<number> {
    await this.renew();
    return releaseExpired(this.db, this.clock());
  }

  /** Stops renewing: the units still leased expire after their hold, as a dead process's do. */
  close(): void {
    clearInterval(this.renewer);
  }

  /** Extends the hold of every unit leased here to a full hold from now. */
  private async renew(): Promise<void> {
    if (this.leased.size === 0) return;
    await renewHolds(this.db, [...this.leased], new Date(this.clock().getTime() + this.holdMs));
  }
}
