import { DelayedError, Queue, WaitingError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { JobQueue, RunOutcome } from './queue.js';

export interface BullMqOptions {
  readonly redisUrl: string;
  readonly queueName: string;
  /** How long a worker's lock on a job lasts unless renewed; a dead worker's job is redelivered after it. */
  readonly leaseMs: number;
  /** Runs of one job at most: BullMQ gives up on a job that stalled more often than this allows. */
  readonly maxAttempts: number;
  readonly logger: Logger;
  /** Called with the id of a job BullMQ gave up on (it stalled too often), so that it can be failed unbilled. */
  readonly onAbandoned: (jobId: string) => Promise<void>;
}

/**
 * The scale-out queue: BullMQ on Redis, consumed by `webcap serve` and `webcap worker` processes
 * on any number of machines. It carries job ids only (never parameters); BullMQ's stalled-job
 * check redelivers the job of a worker that died, and the database decides who runs it.
 */
export class BullMqQueue implements JobQueue {
  readonly backend = 'bullmq' as const;
  private readonly producerConnection: Redis;
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private workerConnection: Redis | null = null;

  constructor(private readonly options: BullMqOptions) {
    // A submission must learn soon that Redis is gone (a 503), not wait for it to come back.
    this.producerConnection = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 5000 });
    this.queue = new Queue(options.queueName, { connection: this.producerConnection });
    // The queue passes on its connection's errors; with no listener, BullMQ writes each one raw to
    // stderr (console.error), once per reconnection for as long as Redis is away.
    this.queue.on('error', (error) =>
      options.logger.warn({ err: error }, 'job queue: Redis connection error'),
    );
  }

  async enqueue(jobId: string, delayMs = 0): Promise<void> {
    await this.queue.add(
      'job',
      { jobId },
      {
        jobId,
        ...(delayMs > 0 ? { delay: delayMs } : {}),
        removeOnComplete: true,
        removeOnFail: { age: 86_400, count: 10_000 },
      },
    );
  }

  consume(handle: (jobId: string) => Promise<RunOutcome>, concurrency: number): void {
    if (concurrency === 0 || this.worker !== null) return;
    const { logger, leaseMs, maxAttempts } = this.options;
    // BullMQ's blocking worker connection must retry forever (its documented requirement).
    const connection = new Redis(this.options.redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection = connection;
    connection.on('error', (error) => logger.warn({ err: error }, 'job worker: Redis connection error'));
    this.worker = new Worker(
      this.options.queueName,
      async (job, token) => {
        const outcome = await handle(String((job.data as { jobId: string }).jobId));
        if (typeof outcome === 'object') {
          // Delayed in place, under the same id: a new job with that id would be refused while this one lives.
          await job.moveToDelayed(Date.now() + outcome.retryInMs, token);
          throw new DelayedError();
        }
        if (outcome === 'handed back') {
          // Back to the wait list at once, for any worker (not after a lease and a stalled
          // check, which would also count a stall against the job); WaitingError tells the
          // worker that the job was moved, so that it neither completes nor fails it.
          await job.moveToWait(token);
          throw new WaitingError();
        }
      },
      {
        connection,
        concurrency,
        lockDuration: leaseMs,
        stalledInterval: leaseMs,
        maxStalledCount: maxAttempts - 1,
      },
    );
    this.worker.on('failed', (job, error) => {
      if (job === undefined) return;
      logger.warn({ err: error, job: job.id }, 'job queue: BullMQ gave up on a job');
      this.options
        .onAbandoned(String((job.data as { jobId: string }).jobId))
        .catch((failure: unknown) => logger.error({ err: failure }, 'failing an abandoned job failed'));
    });
    this.worker.on('error', (error) => logger.warn({ err: error }, 'job worker error'));
  }

  async ready(): Promise<boolean> {
    try {
      return (await this.producerConnection.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async stopTaking(boundMs: number): Promise<void> {
    const { worker } = this;
    if (worker !== null) {
      // worker.close(true) would not cut a close already waiting for its runs (BullMQ returns the
      // close in progress): past the bound, the connection is closed under them instead.
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), boundMs);
      });
      const closed = await Promise.race([worker.close(), bound]);
      clearTimeout(timer);
      if (closed === 'late')
        this.options.logger.warn('job worker: runs still going at close are left to their lease');
    }
    this.workerConnection?.disconnect();
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.producerConnection.disconnect();
  }
}
