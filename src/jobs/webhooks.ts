import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { GuardedFetcher } from '../net/guarded-fetch.js';
import type { Db } from '../store/db.js';
import type { WebhookAttempt, WebhookLog } from './job-record.js';
import { claimWebhook, dueWebhookJobIds, type JobRow, saveWebhookAttempt } from './job-store.js';
import { webhookSecret } from './webhook-secret.js';

/** What one delivery sends: the job's webhook URL and its record as it stands. */
export interface WebhookDelivery {
  readonly url: string;
  readonly body: Buffer;
}

export interface WebhookOptions {
  readonly db: Db;
  /** The network guard's fetcher: a webhook target is a URL a caller gave, checked like any other. */
  readonly fetcher: GuardedFetcher;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Deadline of one delivery. */
  readonly timeoutMs: number;
  /** Retries stop once this long has passed since the job ended. */
  readonly retryWindowMs: number;
  /** First retry delay; each next one doubles, up to five minutes. */
  readonly backoffMs: number;
  /** The delivery of an ended job that has a webhook. */
  readonly delivery: (job: JobRow) => Promise<WebhookDelivery>;
  /** Counts each attempt by outcome (delivered, failed). */
  readonly observe: (outcome: 'delivered' | 'failed') => void;
}

const MAX_BACKOFF_MS = 300_000;
/** Attempts kept in the job record; later ones still count towards the window. */
const MAX_LOGGED_ATTEMPTS = 20;
/** Due attempts taken per poll. */
const BATCH = 20;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the header a receiver verifies (docs/jobs.md). */
export function webhookSignature(secret: string, timestampSeconds: number, body: Buffer): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * Delivers ended jobs' records to their webhooks: POSTed, signed with the account's secret, retried
 * with exponential backoff while the retry window lasts. When each attempt is due is kept in the
 * job's row, so that any process sharing the database makes it, whichever one ended the job and
 * whether or not that one still runs; a process claims an attempt before making it. Delivery is
 * at least once: a process that dies mid-attempt leaves it to be made again.
 */
export class Webhooks {
  private readonly inFlight = new Map<string, Promise<void>>();
  private poller: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: WebhookOptions) {}

  /** Starts polling for due attempts, at half the first backoff (between 100 ms and 5 s). */
  start(): void {
    const everyMs = Math.min(5000, Math.max(100, Math.floor(this.options.backoffMs / 2)));
    this.poller = setInterval(() => void this.poll(), everyMs);
    this.poller.unref();
  }

  /** Makes the job's due attempt now (a job that just ended) rather than at the next poll. */
  kick(jobId: string): void {
    this.track(jobId);
  }

  /** Stops polling and waits for the attempts in flight; what is still due is left to other processes or the next start. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.poller !== null) clearInterval(this.poller);
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private async poll(): Promise<void> {
    try {
      for (const id of await dueWebhookJobIds(this.options.db, this.options.clock(), BATCH)) this.track(id);
    } catch (error) {
      this.options.logger.error({ err: error }, 'looking for due webhooks failed');
    }
  }

  private track(jobId: string): void {
    if (this.closed || this.inFlight.has(jobId)) return;
    const run = this.deliverDue(jobId)
      .catch((error: unknown) =>
        this.options.logger.error({ err: error, job: jobId }, 'webhook delivery failed'),
      )
      .finally(() => this.inFlight.delete(jobId));
    this.inFlight.set(jobId, run);
  }

  private async deliverDue(jobId: string): Promise<void> {
    const { db, clock, timeoutMs, backoffMs, retryWindowMs } = this.options;
    const now = clock();
    // Held a little longer than an attempt can take.
    const job = await claimWebhook(db, jobId, now, new Date(now.getTime() + timeoutMs + 5000));
    if (job === undefined) return;
    const log: WebhookLog =
      job.webhook === null ? { state: 'pending', attempts: [] } : JSON.parse(job.webhook);
    let delivery: WebhookDelivery;
    try {
      delivery = await this.options.delivery(job);
    } catch (error) {
      // Nothing can be sent (the parameters cannot be opened, the result is gone): no retry helps.
      this.options.logger.error({ err: error, job: jobId }, 'webhook delivery could not be prepared');
      const attempt = { at: now.toISOString(), status: null, error: 'the job record could not be prepared' };
      const failed: WebhookLog = { state: 'failed', attempts: [...log.attempts, attempt] };
      await saveWebhookAttempt(db, jobId, JSON.stringify(failed), null);
      return;
    }
    const result = await this.attempt(job, delivery);
    const attempts = log.attempts.length < MAX_LOGGED_ATTEMPTS ? [...log.attempts, result] : log.attempts;
    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    this.options.observe(delivered ? 'delivered' : 'failed');
    const after = clock().getTime();
    const delay = Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** log.attempts.length);
    const ended = new Date(job.finished_at ?? now.toISOString()).getTime();
    const more = !delivered && after + delay - ended <= retryWindowMs;
    const state: WebhookLog['state'] = delivered ? 'delivered' : more ? 'pending' : 'failed';
    await saveWebhookAttempt(
      db,
      jobId,
      JSON.stringify({ state, attempts } satisfies WebhookLog),
      more ? new Date(after + delay) : null,
    );
  }

  private async attempt(job: JobRow, delivery: WebhookDelivery): Promise<WebhookAttempt> {
    const now = this.options.clock();
    const at = now.toISOString();
    try {
      const secret = await webhookSecret(this.options.db, job.account_id);
      const timestamp = Math.floor(now.getTime() / 1000);
      const response = await this.options.fetcher.fetch(delivery.url, {
        post: { body: delivery.body, contentType: 'application/json' },
        headers: {
          'user-agent': 'webcap-webhooks/1',
          'webcap-job-id': job.id,
          'webcap-signature': webhookSignature(secret, timestamp, delivery.body),
        },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      return { at, status: response.status };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { at, status: null, error: message.slice(0, 200) };
    }
  }
}
