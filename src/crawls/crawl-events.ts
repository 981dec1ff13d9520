import type { WebhookLog } from '../jobs/job-record.js';
import type { Sealer } from '../jobs/sealed.js';
import type { WebhookOutbox } from '../jobs/webhooks.js';
import type { BatchPlan } from '../requests/batch.js';
import type { BlobStore } from '../store/blobs.js';
import type { Db } from '../store/db.js';
import { findCrawl, findPage } from './crawl-store.js';
import { itemJson, pageJson } from './page-json.js';
import type { CrawlPlan } from './plan.js';

/** Events claimed per poll and process. */
const BATCH_LIMIT = 100;

/**
 * A crawl's webhook events as an outbox (docs/crawl.md, "Webhooks"): each row holds its delivery
 * log and due time; its body is read when it is sent, so that a crawl.page event carries the
 * page as kept (its image linked by `link` from the crawl's base URL) and a crawl.completed one
 * the counts as they stand.
 */
export function crawlOutbox(
  db: Db,
  blobs: BlobStore,
  sealer: Sealer,
  link: (baseUrl: string, fileId: string) => string,
): WebhookOutbox {
  return {
    async due(now, limit) {
      const rows = await db
        .selectFrom('crawl_events')
        .select('id')
        .where('next_at', '<=', now.toISOString())
        .orderBy('next_at')
        .limit(Math.min(limit, BATCH_LIMIT))
        .execute();
      return rows.map((row) => row.id);
    },
    async claim(id, now, until) {
      const event = await db
        .updateTable('crawl_events')
        .set({ next_at: until.toISOString() })
        .where('id', '=', id)
        .where('next_at', '<=', now.toISOString())
        .returningAll()
        .executeTakeFirst();
      if (event === undefined) return undefined;
      return {
        accountId: event.account_id,
        log: JSON.parse(event.log) as WebhookLog,
        happenedAt: event.created_at,
        async prepare() {
          const crawl = await findCrawl(db, event.crawl_id);
          if (crawl === undefined) throw new Error('the crawl is gone');
          const plan = sealer.open<Pick<CrawlPlan, 'webhookUrl'> & Partial<CrawlPlan & BatchPlan>>(
            crawl.params,
          );
          if (plan.webhookUrl === null) throw new Error('the crawl has no webhook URL');
          let data: unknown;
          if (event.type === 'crawl.page' || event.type === 'batch.item') {
            const page = event.page_id === null ? undefined : await findPage(db, event.page_id);
            if (page === undefined) throw new Error('the page is gone');
            data =
              crawl.kind === 'batch'
                ? await itemJson(sealer, blobs, page)
                : await pageJson(blobs, page, (id) => link(plan.baseUrl ?? '', id));
          } else if (event.type === 'crawl.started') {
            data = { url: plan.url };
          } else if (event.type === 'batch.started') {
            data = { engine: plan.engine, total: crawl.discovered };
          } else {
            const { discovered, completed, failed, skipped, credits_used } = crawl;
            data = {
              status: crawl.status,
              stop_reason: crawl.stop_reason,
              counts: { discovered, completed, failed, skipped, credits_used },
            };
          }
          const id = crawl.kind === 'batch' ? { batch_id: crawl.id } : { crawl_id: crawl.id };
          const body = { type: event.type, ...id, created_at: event.created_at, data };
          return {
            url: plan.webhookUrl,
            body: Buffer.from(JSON.stringify(body)),
            headers: { [`webcap-${crawl.kind}-id`]: crawl.id, 'webcap-event': event.type },
          };
        },
      };
    },
    async save(id, log, nextAt) {
      await db
        .updateTable('crawl_events')
        .set({ log: JSON.stringify(log), next_at: nextAt === null ? null : nextAt.toISOString() })
        .where('id', '=', id)
        .execute();
    },
  };
}
