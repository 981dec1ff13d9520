import { checkCall, type JobSpec } from '../calls/call-spec.js';
import type { Caller } from '../calls/metering.js';
import { reserveUnit } from '../calls/metering.js';
import { WebcapError } from '../errors.js';
import { timeOrderedId } from '../store/ids.js';
import { idempotencyHash, replayable } from './idempotency.js';
import { jobRecordJson, type WebhookLog } from './job-record.js';
import {
  countQueued,
  findByIdempotencyKey,
  findJob,
  insertJob,
  type JobRow,
  pruneJobs,
  queuedJobIds,
  releaseIdempotencyKey,
  runningJobIds,
  staleJobIds,
} from './job-store.js';
import type { JobQueue, RunOutcome } from './queue.js';
import { JobRunner, type RunnerDeps } from './runner.js';
import type { StoredCall } from './stored-call.js';

export interface JobsDeps extends RunnerDeps {
  readonly queue: JobQueue;
}

/** An async call as submitted: the call, the endpoint it came to, and its options. */
export interface Submission {
  readonly spec: JobSpec;
  /** The endpoint's path as the request log records it (/v1/capture, /content...). */
  readonly path: string;
  readonly webhookUrl: string | null;
  readonly idempotencyKey: string | null;
}

/**
 * Another kind of unit the job queue carries beside jobs (a crawl's pages), told apart by its
 * id's prefix, so that the same workers and the same concurrency run both.
 */
export interface UnitHandler {
  /** Ids of this kind start with it (`cpg_`); job ids start with `job_`. */
  readonly prefix: string;
  run(id: string): Promise<RunOutcome>;
  /** BullMQ gave up on the unit (it stalled too often). */
  abandon(id: string): Promise<void>;
  /** The process's grace is over: runs hand their units back (see JobRunner.letGo). */
  letGo(): void;
}

/** Whose jobs a reader may see: the account of a caller's key, or of a console session. */
export type Owner = Pick<Caller, 'account'>;

/** How long runs let go at the end of the grace have to put their jobs back (a database update, a Redis move). */
const HAND_BACK_MS = 10_000;

/** How long a unit whose run failed on the database waits before it is delivered again. */
const FAILED_RUN_RETRY_MS = 5_000;

/**
 * Async jobs (DESIGN.md §2, docs/jobs.md): submission (checks, a unit reserved and held, the job
 * stored sealed, then queued), polling and cancellation by the owning account, and the runs of
 * this process with their upkeep: restart recovery, expiry, lapsed leases and retention.
 */
export class Jobs {
  readonly runner: JobRunner;
  private sweeper: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private readonly units: UnitHandler[] = [];

  constructor(private readonly deps: JobsDeps) {
    this.runner = new JobRunner(deps);
  }

  get backend(): JobQueue['backend'] {
    return this.deps.queue.backend;
  }

  /** Lets the queue carry units of another kind; before start. */
  addUnits(handler: UnitHandler): void {
    this.units.push(handler);
  }

  /** Hands a unit of another kind (stored, ready to run) to the workers, after `delayMs`. */
  enqueueUnit(id: string, delayMs = 0): Promise<void> {
    return this.deps.queue.enqueue(id, delayMs);
  }

  /** Runs whatever the queue delivered: a job, or a unit of the kind its prefix names. */
  private async dispatch(id: string): Promise<RunOutcome> {
    const handler = this.units.find((unit) => id.startsWith(unit.prefix));
    try {
      return await (handler === undefined ? this.runner.run(id) : handler.run(id));
    } catch (error) {
      // The database failing gets here (a claim, a lease's read, an end). Dropped, the unit would
      // stay queued until it expired; delivered again, its next claim (after the lease of a run
      // that started) decides whether it still runs, at most JOB_MAX_ATTEMPTS runs in all.
      this.deps.logger.warn({ err: error, unit: id }, 'a run failed on the database; delivered again later');
      return { retryInMs: FAILED_RUN_RETRY_MS };
    }
  }

  /** Ends, unbilled, a job or unit BullMQ gave up on (it stalled too often). */
  async abandon(id: string): Promise<void> {
    const handler = this.units.find((unit) => id.startsWith(unit.prefix));
    if (handler !== undefined) return handler.abandon(id);
    await this.runner.fail(
      id,
      { staleBefore: this.deps.clock() },
      new WebcapError('internal', 'the job stalled too often'),
    );
  }

  /**
   * Starts this process's part: the in-process queue's restart recovery (its interrupted runs end
   * failed and unbilled, its queued jobs go back in the queue), consuming, webhook deliveries that
   * are due (whoever ended the job), and the periodic sweep.
   */
  async start(): Promise<void> {
    const { queue, db, config } = this.deps;
    if (queue.backend === 'in-process') {
      for (const id of await runningJobIds(db)) {
        await this.runner.fail(
          id,
          { interrupted: true },
          new WebcapError('internal', 'interrupted by a restart'),
        );
      }
      for (const id of await queuedJobIds(db)) await queue.enqueue(id);
    }
    queue.consume((id) => this.dispatch(id), config.concurrency);
    this.deps.webhooks.start();
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), Math.min(config.sweepIntervalMs, config.leaseMs));
    this.sweeper.unref();
  }

  /**
   * Accepts an async call: what its synchronous form would refuse is refused now (400, 401, 402),
   * then one unit is reserved and held until the job ends, the job is stored and queued. A resubmission
   * with the same Idempotency-Key and parameters returns the first job; `replayed` says so.
   */
  async submit(caller: Caller, submission: Submission): Promise<{ job: JobRow; replayed: boolean }> {
    const { db, clock, sealer, config, calls, queue } = this.deps;
    const stored: StoredCall = { spec: submission.spec, webhookUrl: submission.webhookUrl };
    const hash = idempotencyHash(sealer, { path: submission.path, ...stored });
    const replay = await this.replay(caller, submission.idempotencyKey, hash);
    if (replay !== undefined) return { job: replay, replayed: true };
    await checkCall(calls, submission.spec);
    if (submission.webhookUrl !== null) await calls.guard.checkTarget(submission.webhookUrl, 'webhook_url');
    if ((await countQueued(db)) >= config.maxQueued) {
      throw new WebcapError('unavailable', 'the job queue is full; retry later', { retryAfterSeconds: 30 });
    }
    // Held for as long as the job can live: queued, then every run to its timeout and lease.
    const holdMs =
      config.queueTimeoutMs + config.maxAttempts * (config.timeoutMs + 2 * config.leaseMs) + 600_000;
    const engine = submission.spec.engine;
    const now = clock();
    const id = timeOrderedId('job', now.getTime());
    const params = sealer.seal(stored);
    // The unit and the job's row are one transaction, shared with the other submissions and calls
    // of the moment (group commit): a server killed between them leaves neither.
    const reservation = await reserveUnit(calls.metering, caller, engine, holdMs, (trx, reservationId) =>
      insertJob(trx, {
        id,
        account_id: caller.account.id,
        key_id: caller.key.id,
        engine,
        path: submission.path,
        reservation_id: reservationId,
        params,
        params_hash: hash,
        idempotency_key: submission.idempotencyKey,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + config.queueTimeoutMs).toISOString(),
        webhook:
          submission.webhookUrl === null
            ? null
            : JSON.stringify({ state: 'pending', attempts: [] } satisfies WebhookLog),
      }),
    );
    if (reservation === null) {
      // Another submission with the same key won the race: nothing was reserved for this one.
      const winner = await this.replay(caller, submission.idempotencyKey, hash);
      // The key's row was let go between the insert and this read (its enqueue failed, or it was
      // past the 24 hours): a retry in a moment finds the key free or the job queued.
      if (winner === undefined) {
        throw new WebcapError('conflict', 'Idempotency-Key is in use; retry', { retryAfterSeconds: 1 });
      }
      return { job: winner, replayed: true };
    }
    // Read before it is handed over: the answer says `queued` (DESIGN.md §2) even when a worker starts at once.
    const job = (await findJob(db, id)) as JobRow;
    try {
      await queue.enqueue(id);
    } catch (error) {
      const unavailable = new WebcapError('unavailable', 'the job queue is unavailable', {
        cause: error,
        retryAfterSeconds: 5,
      });
      await this.runner.fail(id, { queued: true }, unavailable);
      throw unavailable;
    }
    return { job, replayed: false };
  }

  /** The job record, result included, for its own account; 404 for any other or once it is past retention. */
  async record(caller: Owner, jobId: string): Promise<Buffer> {
    const job = await this.owned(caller, jobId);
    const result = job.result_key === null ? null : await this.deps.blobs.get(job.result_key);
    if (job.status === 'completed' && result === null) throw new WebcapError('not_found');
    return jobRecordJson(job, result?.bytes ?? null);
  }

  /** Cancels a queued job (its unit is released) and returns its record; a job already running or finished is a 409. */
  async cancel(caller: Owner, jobId: string): Promise<Buffer> {
    const job = await this.owned(caller, jobId);
    const cancelled = await this.runner.fail(
      job.id,
      { queued: true },
      new WebcapError('cancelled', 'the job was cancelled before it ran'),
    );
    if (!cancelled) {
      const now = await this.owned(caller, jobId);
      throw new WebcapError('conflict', `the job is ${now.status} and can no longer be cancelled`);
    }
    return this.record(caller, jobId);
  }

  /** Whether the queue's backend answers. */
  ready(): Promise<boolean> {
    return this.deps.queue.ready();
  }

  /** Jobs waiting across every process. */
  queued(): Promise<number> {
    return countQueued(this.deps.db);
  }

  /**
   * Stops the sweep and taking jobs, and waits up to JOB_SHUTDOWN_GRACE_MS for this process's
   * runs; those still going then hand their jobs back to the queue (docs/drain.md). Submissions
   * are still taken until close: a draining server's calls in flight may queue work. Once,
   * whoever asks first.
   */
  stopTaking(): Promise<void> {
    this.stopping ??= this.stopRuns();
    return this.stopping;
  }

  private async stopRuns(): Promise<void> {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    const { queue, config } = this.deps;
    const letGo = setTimeout(() => {
      this.runner.letGo();
      for (const unit of this.units) unit.letGo();
    }, config.shutdownGraceMs);
    try {
      await queue.stopTaking(config.shutdownGraceMs + HAND_BACK_MS);
    } finally {
      clearTimeout(letGo);
    }
  }

  /** Stops taking jobs (stopTaking), then submissions, and closes the queue and the webhooks. */
  async close(): Promise<void> {
    await this.stopTaking();
    await this.deps.queue.close();
    await this.deps.webhooks.close();
  }

  private async owned(caller: Owner, jobId: string): Promise<JobRow> {
    const job = await findJob(this.deps.db, jobId);
    const now = this.deps.clock().toISOString();
    const live =
      job !== undefined && (job.status === 'queued' || job.status === 'running' || job.expires_at > now);
    if (!live || job.account_id !== caller.account.id) throw new WebcapError('not_found');
    return job;
  }

  /** The job an idempotency key already names with the same parameters (idempotency.ts). */
  private async replay(caller: Caller, key: string | null, hash: string): Promise<JobRow | undefined> {
    if (key === null) return undefined;
    const { db, clock } = this.deps;
    const job = await findByIdempotencyKey(db, caller.account.id, key);
    return replayable(job, hash, clock(), (id) => releaseIdempotencyKey(db, id));
  }

  /**
   * Ends what nobody will: queued jobs past JOB_QUEUE_TIMEOUT_MS, and runs whose lease lapsed
   * more than a job timeout ago (their worker died and no other one took them over); then deletes
   * finished jobs past their retention.
   */
  private async sweep(): Promise<void> {
    const { db, clock, config, logger, blobs } = this.deps;
    try {
      const now = clock();
      for (const id of await staleJobIds(db, 'queued', now)) {
        await this.runner.fail(
          id,
          { staleBefore: now },
          new WebcapError('internal', 'the job expired in the queue'),
        );
      }
      const abandonedBefore = new Date(now.getTime() - config.timeoutMs);
      for (const id of await staleJobIds(db, 'running', abandonedBefore)) {
        await this.runner.fail(
          id,
          { staleBefore: abandonedBefore },
          new WebcapError('internal', 'the worker running the job stopped'),
        );
      }
      for (const key of await pruneJobs(db, now)) await blobs.delete(key);
    } catch (error) {
      logger.error({ err: error }, 'job sweep failed');
    }
  }
}
