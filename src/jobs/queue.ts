/** Which queue carries job ids: this process's memory, or BullMQ on Redis shared by every worker. */
export type QueueBackend = 'in-process' | 'bullmq';

/**
 * The queue port. Jobs themselves live in the database (jobs/job-store.ts); a queue only hands
 * job ids to workers, at most `concurrency` at once per process. Delivering an id twice is
 * harmless: a run starts only by claiming the job in the database.
 */
export interface JobQueue {
  readonly backend: QueueBackend;
  /** Hands a stored, queued job to the workers; throws when the queue cannot take it. */
  enqueue(jobId: string): Promise<void>;
  /** Starts running `handle` for each job id handed over, at most `concurrency` at once. */
  consume(handle: (jobId: string) => Promise<void>, concurrency: number): void;
  /** Whether the queue's backend answers (for /readyz). */
  ready(): Promise<boolean>;
  /**
   * Stops taking jobs and waits up to `graceMs` for the runs in progress; runs still going then
   * are let go (in-process: failed by the next start; BullMQ: taken over by another worker).
   */
  close(graceMs: number): Promise<void>;
}
