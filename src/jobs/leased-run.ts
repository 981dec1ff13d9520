import { WebcapError } from '../errors.js';

/*
 * What every run of a unit held on a lease shares (a job, a crawl's page, a batch's item): the
 * claim that waits out a dead worker's lease, the lease renewed while the run lasts, the run raced
 * against the process letting its runs go, and the run's time limit.
 */

/** What a run's work is raced against: the process letting its runs go. */
export const LET_GO = Symbol('let go');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A unit's lease: how long it lasts, and how it is moved on. */
export interface Lease {
  readonly leaseMs: number;
  readonly now: () => Date;
  /** Moves the lease on to `until`. */
  readonly renew: (until: Date) => Promise<unknown>;
  /** Told when a renewal failed: the run goes on, and a lease that lapses lets another worker take it. */
  readonly renewFailed: (error: unknown) => void;
}

/**
 * Claims a unit; when it is still leased to a run that stopped renewing (a worker that died,
 * redelivered before its lease ran out), waits for the lease to lapse and claims again, three
 * times at most. `leasedUntil` answers the running unit's lease, null when it is not running.
 */
export async function claimLeased<T>(
  lease: Pick<Lease, 'leaseMs' | 'now'>,
  claim: () => Promise<T | undefined>,
  leasedUntil: () => Promise<string | null>,
): Promise<T | undefined> {
  for (let tries = 0; tries < 3; tries++) {
    const claimed = await claim();
    if (claimed !== undefined) return claimed;
    const until = await leasedUntil();
    if (until === null) return undefined;
    const wait = Date.parse(until) - lease.now().getTime();
    if (wait > lease.leaseMs) return undefined;
    await sleep(Math.max(0, wait) + 50);
  }
  return undefined;
}

/** The runs of one runner (jobs, or crawl units), each renewing its lease, all let go at once. */
export class LeasedRuns {
  private lettingGo = false;
  /** How each run in progress is told to let go (one per run, dropped when it ends, so none piles up). */
  private readonly runsToLetGo = new Set<() => void>();

  /**
   * Lets go the runs in progress and those to come: each answers LET_GO at once, its work left to
   * the engines' closing, for its unit to be handed back unended. For a stopping process whose
   * grace is over.
   */
  letGo(): void {
    this.lettingGo = true;
    for (const letGo of this.runsToLetGo) letGo();
  }

  /** Runs `work` with its lease renewed every third of it: its result, or LET_GO once the process lets go. */
  async run<T>(lease: Lease, work: () => Promise<T>): Promise<T | typeof LET_GO> {
    const renew = setInterval(
      () => lease.renew(new Date(lease.now().getTime() + lease.leaseMs)).catch(lease.renewFailed),
      Math.max(100, Math.floor(lease.leaseMs / 3)),
    );
    let letGo: () => void = () => undefined;
    const lettingGo = new Promise<typeof LET_GO>((resolve) => {
      letGo = () => resolve(LET_GO);
    });
    if (this.lettingGo) letGo();
    this.runsToLetGo.add(letGo);
    try {
      const running = work();
      // A run let go leaves its work to the engines' closing; what it would have done is lost with it.
      running.catch(() => undefined);
      return await Promise.race([running, lettingGo]);
    } finally {
      clearInterval(renew);
      this.runsToLetGo.delete(letGo);
    }
  }
}

/** `run`, or a `timeout` error naming `what` once `timeoutMs` have passed. */
export function withinTimeout<T>(run: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new WebcapError('timeout', `${what} did not finish within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  // A run that fails after the timeout has nobody to tell.
  run.catch(() => undefined);
  return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
}
