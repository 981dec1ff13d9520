import type { Logger } from 'pino';
import { getAccountBySlug } from '../billing/accounts.js';
import { checkKey, getKey } from '../billing/keys.js';
import { type JobSpec, runCall, targetOf } from '../calls/call-spec.js';
import type { CallDeps } from '../calls/deps.js';
import type { Caller } from '../calls/metering.js';
import type { Clock } from '../clock.js';
import type { JobsConfig } from '../config.js';
import { errorResponse, WebcapError } from '../errors.js';
import type { RequestLog } from '../stats/request-log.js';
import type { BlobStore } from '../store/blobs.js';
import type { Db } from '../store/db.js';
import { withdrawnError } from './authority.js';
import { jobRecordJson } from './job-record.js';
import {
  claimJob,
  type EndFrom,
  endJob,
  findJob,
  type JobEnd,
  type JobRow,
  renewLease,
  requeueJob,
} from './job-store.js';
import { claimLeased, LET_GO, type Lease, LeasedRuns, withinTimeout } from './leased-run.js';
import type { RunOutcome } from './queue.js';
import type { Sealer } from './sealed.js';
import { openStoredCall, type StoredCall } from './stored-call.js';
import type { WebhookDelivery, Webhooks } from './webhooks.js';

export interface RunnerDeps {
  readonly db: Db;
  readonly calls: CallDeps;
  readonly blobs: BlobStore;
  readonly sealer: Sealer;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly requestLog: RequestLog;
  readonly webhooks: Webhooks;
  readonly config: JobsConfig;
  /** Counts a job's end by engine and outcome (completed, failed). */
  readonly observe: (engine: string, outcome: 'completed' | 'failed') => void;
}

/** The blob key of a job's result. */
function resultKey(jobId: string): string {
  return `jobs/${jobId}.json`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A job's waits for capacity: the first, doubling up to the error's Retry-After, never longer than the last. */
const FIRST_CAPACITY_WAIT_MS = 250;
const LONGEST_CAPACITY_WAIT_MS = 5000;

/**
 * How long the job waits before trying again, when its call failed for want of capacity: a 503
 * with Retry-After (every browser busy and the render queue full, the extractor processes busy,
 * the database or the file store briefly unreachable or busy), which tells a synchronous caller
 * to come back later. Undefined for every other failure, which ends the job.
 */
function capacityWaitMs(error: unknown, previousMs: number): number | undefined {
  if (!(error instanceof WebcapError) || error.code !== 'unavailable') return undefined;
  const retryAfterSeconds = error.options.retryAfterSeconds;
  if (retryAfterSeconds === undefined) return undefined;
  const doubled = previousMs === 0 ? FIRST_CAPACITY_WAIT_MS : previousMs * 2;
  return Math.min(doubled, retryAfterSeconds * 1000, LONGEST_CAPACITY_WAIT_MS);
}

/**
 * Runs jobs: claims one in the database, runs its call through the same path as a synchronous
 * call (the unit reserved at submission is held, not drawn again), keeps its lease alive, stores
 * the result, and ends the job and settles its unit in one transaction. Then the request log gets
 * the job's row (201, or the error status) and the webhook its record.
 */
export class JobRunner {
  private readonly runs = new LeasedRuns();

  constructor(private readonly deps: RunnerDeps) {}

  /**
   * Hands back the jobs of the runs in progress and of those to come: each goes back to the
   * queue unended, its unit still held, and the call it was running is abandoned (the engines'
   * closing ends it). For a stopping process whose grace is over.
   */
  letGo(): void {
    this.runs.letGo();
  }

  /**
   * Runs the job if it is this caller's to run. A failing call ends the job failed; only the
   * database failing rejects (Jobs then delivers the job again later). After letGo the job is
   * handed back instead, unless it completed first.
   */
  async run(jobId: string): Promise<RunOutcome> {
    const { db, config, clock, logger } = this.deps;
    const job = await claimLeased(
      { leaseMs: config.leaseMs, now: clock },
      () => claimJob(db, jobId, clock(), config.leaseMs, config.maxAttempts),
      async () => {
        const found = await findJob(db, jobId);
        return found?.status === 'running' ? found.lease_until : null;
      },
    );
    if (job === undefined) return 'ended';
    const started = clock().getTime();
    // Undefined when the process let the run go before its call ended.
    let end: JobEnd | undefined;
    let target: string | null = null;
    try {
      const stored = openStoredCall(this.deps.sealer, job.params);
      target = targetOf(stored.spec);
      const lease: Lease = {
        leaseMs: config.leaseMs,
        now: clock,
        renew: (until) => renewLease(db, job.id, job.attempts, until),
        renewFailed: (error) => logger.warn({ err: error, job: job.id }, 'renewing a job lease failed'),
      };
      const body = await this.runs.run(lease, () => this.attempt(job, stored.spec));
      if (body !== LET_GO) {
        const key = resultKey(job.id);
        await this.deps.blobs.put(key, body, {
          contentType: 'application/json',
          expiresAt: new Date(clock().getTime() + config.retentionMs),
        });
        end = { status: 'completed', resultKey: key };
      }
    } catch (error) {
      const known =
        error instanceof WebcapError ? error : new WebcapError('internal', undefined, { cause: error });
      const { status, body } = errorResponse(known);
      if (status >= 500) logger.error({ err: error, job: job.id }, 'job failed');
      end = { status: 'failed', errorStatus: status, errorMessage: body.error };
    }
    if (end === undefined) {
      if (!(await requeueJob(db, job.id, job.attempts))) return 'ended';
      logger.info({ job: job.id }, 'job handed back to the queue');
      return 'handed back';
    }
    await this.end(job, { run: job.attempts }, end, clock().getTime() - started, target);
    return 'ended';
  }

  /**
   * Ends a job that is not running here (cancelled, expired, interrupted, abandoned): failed,
   * its unit released. Returns whether this call ended it.
   */
  async fail(jobId: string, from: EndFrom, why: WebcapError): Promise<boolean> {
    const job = await findJob(this.deps.db, jobId);
    if (job === undefined) return false;
    const { status, body } = errorResponse(why);
    const end: JobEnd = { status: 'failed', errorStatus: status, errorMessage: body.error };
    return this.end(job, from, end, 0, this.targetOfJob(job));
  }

  /** The job's target for the request log; null when its sealed parameters cannot be opened. */
  private targetOfJob(job: JobRow): string | null {
    try {
      return targetOf(openStoredCall(this.deps.sealer, job.params).spec);
    } catch {
      return null;
    }
  }

  /**
   * Runs the call, each try within JOB_TIMEOUT_MS. A try that finds the service out of capacity
   * (capacityWaitMs) is not the job's failure: the job waits, yielding, and tries again while its
   * queue deadline (created_at + JOB_QUEUE_TIMEOUT_MS, its `expires_at` until it ends) allows,
   * within the same run: the same attempt, the same held unit.
   */
  private async attempt(job: JobRow, spec: JobSpec): Promise<Buffer> {
    const { clock, logger } = this.deps;
    const deadline = Date.parse(job.expires_at);
    for (let waitMs = 0; ; ) {
      try {
        return await withinTimeout(this.execute(job, spec), this.deps.config.timeoutMs, 'the job');
      } catch (error) {
        const next = capacityWaitMs(error, waitMs);
        if (next === undefined || clock().getTime() + next > deadline) throw error;
        waitMs = next;
        logger.debug({ job: job.id, waitMs, reason: (error as Error).message }, 'job waits for capacity');
        await sleep(waitMs);
      }
    }
  }

  /** Runs the call on the authority of the key that submitted it, as it stands now. */
  private async execute(job: JobRow, spec: JobSpec): Promise<Buffer> {
    const { db, clock } = this.deps;
    const { key, accountSlug } = await getKey(db, job.key_id);
    const account = await getAccountBySlug(db, accountSlug);
    const verdict = checkKey({ key, account }, clock());
    if (!verdict.ok) throw withdrawnError(verdict.reason);
    const caller: Caller = { account, key, unitHeld: true };
    return runCall(this.deps.calls, caller, spec);
  }

  /** The run, or a timeout error once JOB_TIMEOUT_MS has passed (the run's own bounds end it later). */
  private async end(
    job: JobRow,
    from: EndFrom,
    end: JobEnd,
    durationMs: number,
    target: string | null,
  ): Promise<boolean> {
    const { db, clock, config, requestLog, logger } = this.deps;
    const now = clock();
    const { ended, billed } = await endJob(db, job.id, from, end, now, config.retentionMs);
    if (!ended) return false;
    this.deps.observe(job.engine, end.status);
    requestLog.record({
      account_id: job.account_id,
      key_id: job.key_id,
      engine: job.engine,
      path: job.path,
      // The spec's 201: a completed async job, as the request log records it.
      status: end.status === 'completed' ? 201 : end.errorStatus,
      duration_ms: Math.round(durationMs),
      billed: billed ? 1 : 0,
      created_at: now.toISOString(),
      target_url: target,
      error: end.status === 'failed' ? end.errorMessage : null,
    });
    if (end.status === 'completed' && !billed) {
      logger.warn({ job: job.id }, 'job completed but its unit was already settled; not billed');
    }
    if (job.webhook !== null) this.deps.webhooks.kick(job.id);
    return true;
  }

  /** What a webhook delivery of the job sends: its URL and its record as it stands, result included. */
  async webhookDelivery(job: JobRow): Promise<WebhookDelivery> {
    const { webhookUrl } = this.deps.sealer.open<StoredCall>(job.params);
    if (webhookUrl === null) throw new Error('the job has no webhook URL');
    const result = job.result_key === null ? null : await this.deps.blobs.get(job.result_key);
    if (job.status === 'completed' && result === null) throw new Error('the job result is gone');
    return {
      url: webhookUrl,
      body: jobRecordJson(job, result?.bytes ?? null),
      headers: { 'webcap-job-id': job.id },
    };
  }
}
