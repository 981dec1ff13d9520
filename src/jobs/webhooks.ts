import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { GuardedFetcher } from '../net/guarded-fetch.js';
import type { Db } from '../store/db.js';
import type { WebhookAttempt, WebhookLog } from './job-record.js';
import { saveWebhookLog } from './job-store.js';
import { webhookSecret } from './webhook-secret.js';

export interface WebhookOptions {
  readonly db: Db;
  /** The network guard's fetcher: a webhook target is a URL a caller gave, checked like any other. */
  readonly fetcher: GuardedFetcher;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Deadline of one delivery. */
  readonly timeoutMs: number;
  /** Retries stop once this long has passed since the first attempt. */
  readonly retryWindowMs: number;
  /** First retry delay; each next one doubles, up to five minutes. */
  readonly backoffMs: number;
  /** Counts each attempt by outcome (delivered, failed). */
  readonly observe: (outcome: 'delivered' | 'failed') => void;
}

const MAX_BACKOFF_MS = 300_000;
/** Attempts kept in the job record; later ones still count towards the window. */
const MAX_LOGGED_ATTEMPTS = 20;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the header a receiver verifies (docs/jobs.md). */
export function webhookSignature(secret: string, timestampSeconds: number, body: Buffer): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * Delivers a finished job's record to its webhook: POSTed, signed with the account's secret,
 * retried with exponential backoff while the retry window lasts, every attempt written to the
 * job record. Retries live in this process; a restart drops the ones pending (docs/jobs.md).
 */
export class Webhooks {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: WebhookOptions) {}

  /** Starts delivering `body` (the job record) to `url`; returns at once. */
  deliver(jobId: string, accountId: string, url: string, body: Buffer): void {
    const started = this.options.clock().getTime();
    const attempts: WebhookAttempt[] = [];
    const attempt = (n: number) => {
      const run = this.attempt(jobId, accountId, url, body).then(async (result) => {
        if (attempts.length < MAX_LOGGED_ATTEMPTS) attempts.push(result);
        const delivered = result.status !== null && result.status >= 200 && result.status < 300;
        this.options.observe(delivered ? 'delivered' : 'failed');
        const delay = Math.min(MAX_BACKOFF_MS, this.options.backoffMs * 2 ** n);
        const more =
          !delivered &&
          !this.closed &&
          this.options.clock().getTime() + delay - started <= this.options.retryWindowMs;
        const state: WebhookLog['state'] = delivered ? 'delivered' : more ? 'pending' : 'failed';
        await saveWebhookLog(
          this.options.db,
          jobId,
          JSON.stringify({ state, attempts } satisfies WebhookLog),
        );
        if (!more) return;
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          attempt(n + 1);
        }, delay);
        timer.unref();
        this.timers.add(timer);
      });
      const tracked = run
        .catch((error: unknown) =>
          this.options.logger.error({ err: error, job: jobId }, 'webhook delivery failed'),
        )
        .finally(() => this.inFlight.delete(tracked));
      this.inFlight.add(tracked);
    };
    attempt(0);
  }

  /** Drops pending retries and waits for the attempts in flight. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private async attempt(
    jobId: string,
    accountId: string,
    url: string,
    body: Buffer,
  ): Promise<WebhookAttempt> {
    const now = this.options.clock();
    const at = now.toISOString();
    try {
      const secret = await webhookSecret(this.options.db, accountId);
      const timestamp = Math.floor(now.getTime() / 1000);
      const response = await this.options.fetcher.fetch(url, {
        post: { body, contentType: 'application/json' },
        headers: {
          'user-agent': 'webcap-webhooks/1',
          'webcap-job-id': jobId,
          'webcap-signature': webhookSignature(secret, timestamp, body),
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
