import type { JobQueue, RunOutcome } from './queue.js';

/**
 * The embedded queue: job ids in this process's memory, in submission order. The jobs are in the
 * database, so a restart loses nothing: the runtime re-enqueues the queued ones at start
 * (jobs/recovery.ts). Its length is bounded by JOB_MAX_QUEUED, checked at submission.
 */
export class InProcessQueue implements JobQueue {
  readonly backend = 'in-process' as const;
  private readonly pending: string[] = [];
  private readonly runs = new Set<Promise<unknown>>();
  /** Units waiting out a delay before they join `pending`. */
  private readonly delayed = new Set<NodeJS.Timeout>();
  private handle: ((jobId: string) => Promise<RunOutcome>) | null = null;
  private concurrency = 0;
  private taking = true;
  private closed = false;

  async enqueue(jobId: string, delayMs = 0): Promise<void> {
    if (this.closed) throw new Error('the job queue is closed');
    if (delayMs > 0) {
      this.later(jobId, delayMs);
      return;
    }
    this.pending.push(jobId);
    this.pump();
  }

  /** Queues the unit after `delayMs`; a queue that closes first drops it (it is in the database, for the next start). */
  private later(jobId: string, delayMs: number): void {
    const timer = setTimeout(() => {
      this.delayed.delete(timer);
      if (this.closed) return;
      this.pending.push(jobId);
      this.pump();
    }, delayMs);
    this.delayed.add(timer);
  }

  consume(handle: (jobId: string) => Promise<RunOutcome>, concurrency: number): void {
    this.handle = handle;
    this.concurrency = concurrency;
    this.pump();
  }

  async ready(): Promise<boolean> {
    return !this.closed;
  }

  async stopTaking(boundMs: number): Promise<void> {
    this.taking = false;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([Promise.allSettled([...this.runs]), grace]);
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    this.taking = false;
    this.closed = true;
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
  }

  private pump(): void {
    const handle = this.handle;
    while (this.taking && handle !== null && this.runs.size < this.concurrency) {
      const jobId = this.pending.shift();
      if (jobId === undefined) return;
      // The handler records its own failures on the job; nothing it throws may stop the queue. A
      // job it hands back is queued in the database, for the next start to enqueue.
      const run: Promise<unknown> = handle(jobId)
        .then((outcome) => {
          if (typeof outcome === 'object' && !this.closed) this.later(jobId, outcome.retryInMs);
        })
        .catch(() => undefined)
        .finally(() => {
          this.runs.delete(run);
          this.pump();
        });
      this.runs.add(run);
    }
  }
}
