import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { GuardedFetcher } from '../net/guarded-fetch.js';
import type { Db } from '../store/db.js';
import type { WebhookAttempt, WebhookLog } from './job-record.js';
import { webhookSecret } from './webhook-secret.js';

/** What one delivery sends: the URL, the body as it stands, and headers naming what it is about. */
export interface WebhookDelivery {
  readonly url: string;
  readonly body: Buffer;
  /** Such as `webcap-job-id`; the signature and user agent are added. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A delivery whose attempt this process has claimed. */
export interface ClaimedWebhook {
  readonly accountId: string;
  readonly log: WebhookLog;
  /** When what it reports happened: retries stop once the retry window has passed since. */
  readonly happenedAt: string;
  /** The delivery as it stands now; throws when it can no longer be made (no retry helps then). */
  prepare(): Promise<WebhookDelivery>;
}

/**
 * Where deliveries wait (a job's row, a crawl's events): each has its next attempt's due time,
 * so that any process sharing the database makes it, and a process claims an attempt by moving
 * that time on before making it.
 */
export interface WebhookOutbox {
  /** Ids of the deliveries due at `now`, soonest first, at most `limit`. */
  due(now: Date, limit: number): Promise<string[]>;
  /** Takes the due attempt, holding it until `until`; undefined when it is not due (another process took it). */
  claim(id: string, now: Date, until: Date): Promise<ClaimedWebhook | undefined>;
  /** Records an attempt's outcome and when the next is due (null: none). */
  save(id: string, log: WebhookLog, nextAt: Date | null): Promise<void>;
}

export interface WebhookOptions {
  readonly db: Db;
  readonly outbox: WebhookOutbox;
  /** The network guard's fetcher: a webhook target is a URL a caller gave, checked like any other. */
  readonly fetcher: GuardedFetcher;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Deadline of one delivery. */
  readonly timeoutMs: number;
  /** Retries stop once this long has passed since what it reports happened. */
  readonly retryWindowMs: number;
  /** First retry delay; each next one doubles, up to five minutes. */
  readonly backoffMs: number;
  /** Counts each attempt by outcome (delivered, failed). */
  readonly observe: (outcome: 'delivered' | 'failed') => void;
}

const MAX_BACKOFF_MS = 300_000;
/** Attempts kept in the log; later ones still count towards the window. */
const MAX_LOGGED_ATTEMPTS = 20;
/** Due attempts taken per poll. */
const BATCH = 20;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the header a receiver verifies (docs/jobs.md). */
export function webhookSignature(secret: string, timestampSeconds: number, body: Buffer): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * Delivers what an outbox holds (ended jobs' records, crawl events) to their webhooks: POSTed,
 * signed with the account's secret, retried with exponential backoff while the retry window
 * lasts. When each attempt is due is kept in the database, so that any process sharing it makes
 * it, whichever one queued the delivery and whether or not that one still runs; a process claims
 * an attempt before making it. Delivery is at least once: a process that dies mid-attempt leaves
 * it to be made again.
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

  /** Makes the delivery's due attempt now (a job that just ended) rather than at the next poll. */
  kick(id: string): void {
    this.track(id);
  }

  /** Stops polling and waits for the attempts in flight; what is still due is left to other processes or the next start. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.poller !== null) clearInterval(this.poller);
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private async poll(): Promise<void> {
    try {
      for (const id of await this.options.outbox.due(this.options.clock(), BATCH)) this.track(id);
    } catch (error) {
      this.options.logger.error({ err: error }, 'looking for due webhooks failed');
    }
  }

  private track(id: string): void {
    if (this.closed || this.inFlight.has(id)) return;
    const run = this.deliverDue(id)
      .catch((error: unknown) =>
        this.options.logger.error({ err: error, delivery: id }, 'webhook delivery failed'),
      )
      .finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, run);
  }

  private async deliverDue(id: string): Promise<void> {
    const { outbox, clock, timeoutMs, backoffMs, retryWindowMs } = this.options;
    const now = clock();
    // Held a little longer than an attempt can take.
    const claimed = await outbox.claim(id, now, new Date(now.getTime() + timeoutMs + 5000));
    if (claimed === undefined) return;
    const { log } = claimed;
    let delivery: WebhookDelivery;
    try {
      delivery = await claimed.prepare();
    } catch (error) {
      // Nothing can be sent (the parameters cannot be opened, the result is gone): no retry helps.
      this.options.logger.error({ err: error, delivery: id }, 'webhook delivery could not be prepared');
      const attempt = { at: now.toISOString(), status: null, error: 'the record could not be prepared' };
      await outbox.save(id, { state: 'failed', attempts: [...log.attempts, attempt] }, null);
      return;
    }
    const result = await this.attempt(claimed.accountId, delivery);
    const attempts = log.attempts.length < MAX_LOGGED_ATTEMPTS ? [...log.attempts, result] : log.attempts;
    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    this.options.observe(delivered ? 'delivered' : 'failed');
    const after = clock().getTime();
    const delay = Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** log.attempts.length);
    const happened = new Date(claimed.happenedAt).getTime();
    const more = !delivered && after + delay - happened <= retryWindowMs;
    const state: WebhookLog['state'] = delivered ? 'delivered' : more ? 'pending' : 'failed';
    await outbox.save(id, { state, attempts }, more ? new Date(after + delay) : null);
  }

  private async attempt(accountId: string, delivery: WebhookDelivery): Promise<WebhookAttempt> {
    const now = this.options.clock();
    const at = now.toISOString();
    try {
      const secret = await webhookSecret(this.options.db, accountId);
      const timestamp = Math.floor(now.getTime() / 1000);
      const response = await this.options.fetcher.fetch(delivery.url, {
        post: { body: delivery.body, contentType: 'application/json' },
        headers: {
          ...delivery.headers,
          'user-agent': 'webcap-webhooks/1',
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
