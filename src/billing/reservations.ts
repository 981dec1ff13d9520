import type { Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import { GroupCommit } from '../store/group-commit.js';
import {
  type ReserveRequest,
  type ReserveResult,
  releaseExpired,
  releaseUnit,
  writeBatch,
} from './ledger.js';

type Operation = { readonly reserve: ReserveRequest } | { readonly commit: string };
type Outcome = ReserveResult | boolean;

/**
 * The ledger as the metering path uses it: one unit reserved per call, committed when the call
 * bills, released when it fails. The reservations and commits of concurrent calls share one
 * transaction (group commit, see ledger.writeBatch); each call still gets exactly its own answer,
 * and every guarantee of the ledger holds per call.
 */
export class Reservations {
  private readonly batches: GroupCommit<Operation, Outcome>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** How long a reserved unit is held before an unsettled reservation is released. */
    holdMs: number,
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
  }

  /** Reserves a unit for the call, or says why none can be: the balance is spent, or a key quota is full. */
  reserve(request: ReserveRequest): Promise<ReserveResult> {
    return this.batches.submit({ reserve: request }) as Promise<ReserveResult>;
  }

  /** Bills a reserved unit; false when it was already settled (its hold expired first). */
  commit(reservationId: string): Promise<boolean> {
    return this.batches.submit({ commit: reservationId }) as Promise<boolean>;
  }

  /** Gives a reserved unit back to the balance and key counters it came from. */
  release(reservationId: string): Promise<boolean> {
    return releaseUnit(this.db, reservationId, this.clock());
  }

  /** Releases the reservations whose hold expired (their process died or hung); returns how many. */
  releaseExpired(): Promise<number> {
    return releaseExpired(this.db, this.clock());
  }
}
