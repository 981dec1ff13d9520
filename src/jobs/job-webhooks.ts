import type { Db } from '../store/db.js';
import type { WebhookLog } from './job-record.js';
import { claimWebhook, dueWebhookJobIds, type JobRow, saveWebhookAttempt } from './job-store.js';
import type { WebhookDelivery, WebhookOutbox } from './webhooks.js';

/** Ended jobs' records as a webhook outbox: each job's row holds its delivery's log and due time. */
export function jobOutbox(db: Db, delivery: (job: JobRow) => Promise<WebhookDelivery>): WebhookOutbox {
  return {
    due: (now, limit) => dueWebhookJobIds(db, now, limit),
    async claim(id, now, until) {
      const job = await claimWebhook(db, id, now, until);
      if (job === undefined) return undefined;
      const log: WebhookLog =
        job.webhook === null ? { state: 'pending', attempts: [] } : JSON.parse(job.webhook);
      return {
        accountId: job.account_id,
        log,
        happenedAt: job.finished_at ?? now.toISOString(),
        prepare: () => delivery(job),
      };
    },
    save: (id, log, nextAt) => saveWebhookAttempt(db, id, JSON.stringify(log), nextAt),
  };
}
