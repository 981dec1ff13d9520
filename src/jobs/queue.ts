/** Which queue carries job ids: this process's memory, or BullMQ on Redis shared by every worker. */
export type QueueBackend = 'in-process' | 'bullmq';

/**
 * How a run left its unit: ended (completed or failed), handed back to the queue by a stopping
 * process, or to be delivered again after a wait (a crawl page whose host is not yet due, or that
 * waits for capacity).
 */
export type RunOutcome = 'ended' | 'handed back' | { readonly retryInMs: number };

/**
 * The queue port. Jobs themselves live in the database (jobs/job-store.ts); a queue only hands
 * job ids to workers, at most `concurrency` at once per process. Delivering an id twice is
 * harmless: a run starts only by claiming the job in the database.
 */
export interface JobQueue {
  readonly backend: QueueBackend;
  /**
   * Hands a stored, queued unit (a job, a crawl's page) to the workers, after `delayMs` when given;
   * throws when the queue cannot take it.
   */
  enqueue(jobId: string, delayMs?: number): Promise<void>;
  /**
   * Starts running `handle` for each job id handed over, at most `concurrency` at once; a job
   * the handler hands back is delivered again (in-process: by the next start).
   */
  consume(handle: (jobId: string) => Promise<RunOutcome>, concurrency: number): void;
  /** Whether the queue's backend answers (for /readyz). */
  ready(): Promise<boolean>;
  /**
   * Stops taking jobs and waits up to `boundMs` for the runs in progress to return (Jobs makes
   * them hand their jobs back before); past it, a run left is taken over once its lease lapses.
   * Submissions are still taken: a draining server's calls in flight may queue work (in-process,
   * for the next start to run).
   */
  stopTaking(boundMs: number): Promise<void>;
  /** Stops taking submissions too and lets the backend go; after stopTaking. */
  close(): Promise<void>;
}
