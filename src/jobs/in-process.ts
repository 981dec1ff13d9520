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
  private handle: ((jobId: string) => Promise<RunOutcome>) | null = null;
  private concurrency = 0;
  private taking = true;
  private closed = false;

  async enqueue(jobId: string): Promise<void> {
    if (this.closed) throw new Error('the job queue is closed');
    this.pending.push(jobId);
    this.pump();
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
  }

  private pump(): void {
    const handle = this.handle;
    while (this.taking && handle !== null && this.runs.size < this.concurrency) {
      const jobId = this.pending.shift();
      if (jobId === undefined) return;
      // The handler records its own failures on the job; nothing it throws may stop the queue. A
      // job it hands back is queued in the database, for the next start to enqueue.
      const run: Promise<unknown> = handle(jobId)
        .catch(() => undefined)
        .finally(() => {
          this.runs.delete(run);
          this.pump();
        });
      this.runs.add(run);
    }
  }
}
