import type { Logger } from 'pino';
import { hostedFileLink } from '../calls/delivery.js';
import type { CallDeps } from '../calls/deps.js';
import { type Caller, reserveLinkedUnit } from '../calls/metering.js';
import type { Clock } from '../clock.js';
import type { JobsConfig } from '../config.js';
import { WebcapError } from '../errors.js';
import { idempotencyHash, replayable } from '../jobs/idempotency.js';
import type { Jobs } from '../jobs/jobs.js';
import type { Sealer } from '../jobs/sealed.js';
import type { Webhooks } from '../jobs/webhooks.js';
import type { BatchPlan } from '../requests/batch.js';
import type { RequestLog } from '../stats/request-log.js';
import type { BlobStore } from '../store/blobs.js';
import type { Db } from '../store/db.js';
import { timeOrderedId } from '../store/ids.js';
import type { Page, PageRequest } from '../store/pages.js';
import type {
  BatchAccepted,
  BatchHead,
  BatchRecord,
  CrawlAccepted,
  CrawlHead,
  CrawlListItem,
  CrawlRecord,
} from './crawl-record.js';
import {
  type CrawlHeadRow,
  type CrawlRow,
  findCrawlByIdempotencyKey,
  findCrawlHead,
  finishCrawl,
  insertCrawl,
  LIVE_STATUSES,
  listCrawls,
  listPages,
  type NewCrawl,
  PAGE_PREFIX,
  type PageRow,
  type Promoted,
  type PrunedCrawl,
  pruneCrawls,
  queuedUnits,
  releaseCrawlIdempotencyKey,
  requeueInterrupted,
  type Seed,
  strandedUnits,
} from './crawl-store.js';
import { itemJson, pageJson } from './page-json.js';
import { PageRunner } from './page-run.js';
import { screenshotKey } from './page-screenshot.js';
import type { CrawlPlan } from './plan.js';

export interface CrawlsDeps {
  readonly db: Db;
  readonly calls: CallDeps;
  readonly blobs: BlobStore;
  readonly sealer: Sealer;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly requestLog: RequestLog;
  readonly jobs: Jobs;
  readonly config: JobsConfig;
  /** Delivers the crawls' events (crawl-events.ts). */
  readonly webhooks: Webhooks;
}

/** A submission's answer; `replayed` when an earlier one with the same Idempotency-Key is answered. */
export interface Submitted<T> {
  readonly accepted: T;
  readonly replayed: boolean;
}

function crawlAccepted(crawl: CrawlRow, statusUrl: (id: string) => string): CrawlAccepted {
  return { success: true, crawl_id: crawl.id, status: crawl.status, url: statusUrl(crawl.id) };
}

function batchAccepted(batch: CrawlRow, statusUrl: (id: string) => string): BatchAccepted {
  return { success: true, batch_id: batch.id, status: batch.status, url: statusUrl(batch.id) };
}

/** Who may read a crawl: the account of a caller's key, or of a console session. */
export type Owner = Pick<Caller, 'account'>;

/** Pages listed in one answer at most, and the bytes of their results past which the rest wait for `next`. */
export const MAX_PAGES_PER_ANSWER = 100;
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

/**
 * Whole-site crawls (docs/crawl.md): submission (checks, the first unit held, the plan stored
 * sealed, the first units queued), the record with its pages, cancellation, and this process's
 * upkeep of them: the in-process queue's restart, units the queue lost, retention. The pages run
 * as units on the job queue (PageRunner), so every worker takes them.
 */
export class Crawls {
  readonly runner: PageRunner;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly deps: CrawlsDeps) {
    this.runner = new PageRunner({
      db: deps.db,
      calls: deps.calls,
      blobs: deps.blobs,
      sealer: deps.sealer,
      clock: deps.clock,
      logger: deps.logger,
      requestLog: deps.requestLog,
      config: deps.config,
      enqueue: (id, delayMs) => deps.jobs.enqueueUnit(id, delayMs),
      onPage: () => undefined,
    });
    deps.jobs.addUnits({
      prefix: PAGE_PREFIX,
      run: (id) => this.runner.run(id),
      abandon: (id) => this.runner.abandon(id),
      letGo: () => this.runner.letGo(),
    });
  }

  /**
   * Starts this process's part: with the in-process queue, the units a restart interrupted go
   * back to the queue with the queued ones; then the periodic sweep.
   */
  async start(): Promise<void> {
    const { db, jobs, config } = this.deps;
    if (jobs.backend === 'in-process') {
      await requeueInterrupted(db);
      for (const unit of await queuedUnits(db)) await jobs.enqueueUnit(unit.id, this.waitOf(unit));
    }
    this.deps.webhooks.start();
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), Math.min(config.sweepIntervalMs, config.leaseMs));
    this.sweeper.unref();
  }

  /** Stops the sweep and the webhooks (their attempts in flight finish). */
  async close(): Promise<void> {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    await this.deps.webhooks.close();
  }

  /**
   * Starts a crawl: its start page is checked as any call's target, one unit is reserved (a spent
   * balance is a 402 now, not a crawl that stops at once) and held for its first unit, and the
   * plan is stored sealed.
   */
  async submit(
    caller: Caller,
    plan: CrawlPlan,
    statusUrl: (id: string) => string,
    idempotencyKey: string | null,
  ): Promise<Submitted<CrawlAccepted>> {
    const { clock, sealer, calls } = this.deps;
    const hash = idempotencyHash(sealer, { kind: 'crawl', plan });
    const replay = await this.replay(caller, idempotencyKey, hash);
    if (replay !== undefined) return { accepted: crawlAccepted(replay, statusUrl), replayed: true };
    await calls.guard.checkTarget(plan.url, 'url');
    if (plan.page.proxy !== null) await calls.guard.checkUpstream(plan.page.proxy);
    if (plan.webhookUrl !== null) await calls.guard.checkTarget(plan.webhookUrl, 'webhook_url');
    const now = clock();
    const id = timeOrderedId('crawl', now.getTime());
    // Named apart from the start page (no page URL has a `sitemap:` scheme): the frontier holds each URL once.
    // The unit held at submission goes to the start page; with sitemap=only, to the discovery (released when it ends).
    const seeds = (reservationId: string): Seed[] => {
      const kinds: Seed['kind'][] = [];
      if (plan.sitemap !== 'skip') kinds.push('sitemap');
      if (plan.sitemap !== 'only') kinds.push('page');
      return kinds.map((kind, index) => ({
        kind,
        url: kind === 'sitemap' ? `sitemap:${plan.url}` : plan.url,
        reservationId: index === kinds.length - 1 ? reservationId : null,
      }));
    };
    const promoted = await this.store(
      caller,
      'crawl',
      {
        id,
        kind: 'crawl',
        params: sealer.seal(plan),
        page_limit: plan.limit,
        max_concurrency: plan.maxConcurrency,
        webhook: plan.webhookUrl === null ? 0 : 1,
        idempotency_key: idempotencyKey,
        params_hash: hash,
      },
      seeds,
      plan.delayMs,
      now,
    );
    if (promoted === null) {
      const winner = await this.lostRace(caller, idempotencyKey, hash);
      return { accepted: crawlAccepted(winner, statusUrl), replayed: true };
    }
    for (const unit of promoted) await this.deps.jobs.enqueueUnit(unit.id, unit.delayMs);
    return {
      accepted: { success: true, crawl_id: id, status: 'queued', url: statusUrl(id) },
      replayed: false,
    };
  }

  /**
   * The crawl's record with its finished pages after `cursor` (-1: from the first), at most
   * `limit` of them and about 10 MB of results; `next` names the following ones.
   */
  async record(
    owner: Owner,
    crawlId: string,
    cursor: number,
    limit: number,
    pageUrl: (cursor: number) => string,
  ): Promise<CrawlRecord> {
    const crawl = await this.owned(owner, crawlId);
    const plan = this.deps.sealer.open<CrawlPlan>(crawl.params);
    const {
      listed: pages,
      more,
      last,
    } = await this.finished(crawl, cursor, limit, (row) =>
      pageJson(this.deps.blobs, row, (id) => hostedFileLink(this.deps.calls, plan.baseUrl, id)),
    );
    return {
      success: true,
      ...this.crawlHead(crawl),
      pages,
      next: more ? pageUrl(last) : null,
      cursor: more ? String(last) : null,
    };
  }

  /** Cancels a live crawl: no page starts after this; those running finish and are billed. */
  async cancel(owner: Owner, crawlId: string, pageUrl: (cursor: number) => string): Promise<CrawlRecord> {
    await this.finish(owner, crawlId, 'crawl');
    return this.record(owner, crawlId, -1, 0, pageUrl);
  }

  /** Cancels a live batch: as a crawl, items not started never run. */
  async cancelBatch(
    owner: Owner,
    batchId: string,
    itemUrl: (cursor: number) => string,
  ): Promise<BatchRecord> {
    await this.finish(owner, batchId, 'batch');
    return this.batchRecord(owner, batchId, -1, 0, itemUrl);
  }

  private async finish(owner: Owner, id: string, kind: CrawlRow['kind']): Promise<void> {
    const crawl = await this.owned(owner, id, kind);
    const { db, clock, config } = this.deps;
    if (!(await finishCrawl(db, crawl.id, 'cancelled', null, clock(), config.retentionMs))) {
      const now = await this.owned(owner, id, kind);
      throw new WebcapError('conflict', `the ${kind} is ${now.status} and can no longer be cancelled`);
    }
  }

  /**
   * Starts a batch: one unit reserved now (a spent balance is a 402) and held for its first item,
   * the items stored sealed (their options may hold a caller's secrets), max_concurrency of them
   * queued; each runs as a job's call would, billed as its engine.
   */
  async submitBatch(
    caller: Caller,
    plan: BatchPlan,
    statusUrl: (id: string) => string,
    idempotencyKey: string | null,
  ): Promise<Submitted<BatchAccepted>> {
    const { clock, sealer, calls } = this.deps;
    const hash = idempotencyHash(sealer, { kind: 'batch', plan });
    const replay = await this.replay(caller, idempotencyKey, hash);
    if (replay !== undefined) return { accepted: batchAccepted(replay, statusUrl), replayed: true };
    if (plan.webhookUrl !== null) await calls.guard.checkTarget(plan.webhookUrl, 'webhook_url');
    const now = clock();
    const id = timeOrderedId('batch', now.getTime());
    const seeds = (reservationId: string): Seed[] =>
      plan.items.map((item, index) => ({
        kind: 'item',
        url: `item:${index}`,
        reservationId: index === 0 ? reservationId : null,
        options: sealer.seal(item),
      }));
    const { items: _items, ...kept } = plan;
    const promoted = await this.store(
      caller,
      plan.engine,
      {
        id,
        kind: 'batch',
        params: sealer.seal(kept),
        page_limit: plan.items.length,
        max_concurrency: plan.maxConcurrency,
        webhook: plan.webhookUrl === null ? 0 : 1,
        idempotency_key: idempotencyKey,
        params_hash: hash,
      },
      seeds,
      0,
      now,
    );
    if (promoted === null) {
      const winner = await this.lostRace(caller, idempotencyKey, hash);
      return { accepted: batchAccepted(winner, statusUrl), replayed: true };
    }
    for (const unit of promoted) await this.deps.jobs.enqueueUnit(unit.id, unit.delayMs);
    return {
      accepted: { success: true, batch_id: id, status: 'queued', url: statusUrl(id) },
      replayed: false,
    };
  }

  /**
   * The crawl or batch an idempotency key already names with the same parameters (idempotency.ts);
   * the hash covers the kind, so a key of a crawl sent with a batch is a 400 too.
   */
  private async replay(caller: Caller, key: string | null, hash: string): Promise<CrawlRow | undefined> {
    if (key === null) return undefined;
    const { db, clock } = this.deps;
    const crawl = await findCrawlByIdempotencyKey(db, caller.account.id, key);
    return replayable(crawl, hash, clock(), (id) => releaseCrawlIdempotencyKey(db, id));
  }

  /**
   * Stores a crawl or batch with its seeds and the unit its first seed holds, in one transaction
   * (ledger.ts reserveLinked): a server killed in between leaves neither, rather than a unit held
   * for nothing until its hold expires. The units to enqueue; null when another submission with the
   * same Idempotency-Key won, and nothing was reserved.
   */
  private async store(
    caller: Caller,
    engine: string,
    crawl: Omit<NewCrawl, 'account_id' | 'key_id' | 'created_at'>,
    seeds: (reservationId: string) => Seed[],
    delayMs: number,
    now: Date,
  ): Promise<Promoted[] | null> {
    const { calls, config } = this.deps;
    const holdMs = config.queueTimeoutMs + config.maxAttempts * (config.timeoutMs + 2 * config.leaseMs);
    const row: NewCrawl = {
      ...crawl,
      account_id: caller.account.id,
      key_id: caller.key.id,
      created_at: now.toISOString(),
    };
    const stored: { promoted: Promoted[] } = { promoted: [] };
    const reservation = await reserveLinkedUnit(
      calls.metering,
      caller,
      engine,
      holdMs,
      async (trx, reservationId) => {
        const promoted = await insertCrawl(trx, row, seeds(reservationId), delayMs, now);
        if (promoted !== null) stored.promoted = promoted;
        return promoted !== null;
      },
    );
    return reservation === null ? null : stored.promoted;
  }

  /** The crawl that won the Idempotency-Key this submission also sent. */
  private async lostRace(caller: Caller, key: string | null, hash: string): Promise<CrawlRow> {
    const winner = await this.replay(caller, key, hash);
    // Freed between the insert and this read (past its 24 hours): a retry finds the key free.
    if (winner === undefined) {
      throw new WebcapError('conflict', 'Idempotency-Key is in use; retry', { retryAfterSeconds: 1 });
    }
    return winner;
  }

  /** The batch's record with its finished items after `cursor`, as a crawl's with its pages. */
  async batchRecord(
    owner: Owner,
    batchId: string,
    cursor: number,
    limit: number,
    itemUrl: (cursor: number) => string,
  ): Promise<BatchRecord> {
    const batch = await this.owned(owner, batchId, 'batch');
    const {
      listed: items,
      more,
      last,
    } = await this.finished(batch, cursor, limit, (row) => itemJson(this.deps.sealer, this.deps.blobs, row));
    return {
      success: true,
      ...this.batchHead(batch),
      items,
      next: more ? itemUrl(last) : null,
      cursor: more ? String(last) : null,
    };
  }

  /** A page of the owner's crawls and batches, newest first, as the console lists them. */
  async list(owner: Owner, page: PageRequest): Promise<Page<CrawlListItem>> {
    const { db, clock } = this.deps;
    const rows = await listCrawls(db, owner.account.id, page, clock());
    return { items: rows.items.map((row) => this.listItem(row)), next: rows.next };
  }

  /** Cancels the owner's live crawl or batch, whichever the id names, as `cancel` and `cancelBatch` do. */
  async cancelListed(owner: Owner, id: string): Promise<CrawlListItem> {
    const { kind } = await this.owned(owner, id, 'any');
    await this.finish(owner, id, kind);
    return this.listItem(await this.owned(owner, id, kind));
  }

  private listItem(row: CrawlHeadRow): CrawlListItem {
    return row.kind === 'crawl'
      ? { kind: 'crawl', ...this.crawlHead(row) }
      : { kind: 'batch', ...this.batchHead(row) };
  }

  private crawlHead(crawl: CrawlHeadRow): CrawlHead {
    const plan = this.deps.sealer.open<CrawlPlan>(crawl.params);
    return {
      crawl_id: crawl.id,
      status: crawl.status,
      stop_reason: crawl.stop_reason,
      url: plan.url,
      formats: [...plan.formats],
      created_at: crawl.created_at,
      finished_at: crawl.finished_at,
      expires_at: crawl.expires_at,
      counts: {
        discovered: crawl.discovered,
        completed: crawl.completed,
        failed: crawl.failed,
        skipped: crawl.skipped,
        credits_used: crawl.credits_used,
        running: crawl.running,
      },
    };
  }

  private batchHead(batch: CrawlHeadRow): BatchHead {
    const { engine } = this.deps.sealer.open<Pick<BatchPlan, 'engine'>>(batch.params);
    return {
      batch_id: batch.id,
      engine,
      status: batch.status,
      stop_reason: batch.stop_reason,
      created_at: batch.created_at,
      finished_at: batch.finished_at,
      expires_at: batch.expires_at,
      counts: {
        total: batch.discovered,
        completed: batch.completed,
        failed: batch.failed,
        credits_used: batch.credits_used,
        running: batch.running,
      },
    };
  }

  /**
   * The finished pages or items after `cursor`, in the order they finished, at most `limit` and
   * about MAX_ANSWER_BYTES of them (one at least); `more` when the crawl is live or some are left,
   * `last` the cursor past them.
   */
  private async finished<T>(
    crawl: CrawlRow,
    cursor: number,
    limit: number,
    json: (row: PageRow) => Promise<T>,
  ): Promise<{ listed: T[]; more: boolean; last: number }> {
    const rows = await listPages(this.deps.db, crawl.id, cursor, Math.min(limit, MAX_PAGES_PER_ANSWER));
    const listed: T[] = [];
    let bytes = 0;
    let last = cursor;
    for (const row of rows) {
      const entry = await json(row);
      const size = JSON.stringify(entry).length;
      if (listed.length > 0 && bytes + size > MAX_ANSWER_BYTES) break;
      listed.push(entry);
      bytes += size;
      last = row.done_seq ?? last;
    }
    const done = crawl.completed + crawl.failed + crawl.skipped;
    return { listed, more: LIVE_STATUSES.includes(crawl.status) || last + 1 < done, last };
  }

  /** The owner's crawl or batch of this kind ('any': either); another account's is not found. */
  private async owned(
    owner: Owner,
    crawlId: string,
    kind: CrawlRow['kind'] | 'any' = 'crawl',
  ): Promise<CrawlHeadRow> {
    const crawl = await findCrawlHead(this.deps.db, crawlId);
    if (
      crawl === undefined ||
      crawl.account_id !== owner.account.id ||
      (kind !== 'any' && crawl.kind !== kind)
    ) {
      throw new WebcapError('not_found');
    }
    return crawl;
  }

  /** The blobs a pruned crawl kept: its pages' results and, with the screenshot format, their images. */
  private blobKeysOf({ kind, params, pages }: PrunedCrawl): string[] {
    const keys = pages.flatMap((page) => (page.result_key === null ? [] : [page.result_key]));
    const { formats } = this.deps.sealer.open<Partial<CrawlPlan>>(params);
    // Every page's, not only those with a result: an image kept by a run that died before its end.
    if (kind === 'crawl' && formats?.includes('screenshot'))
      keys.push(...pages.map((page) => screenshotKey(page.id)));
    return keys;
  }

  private waitOf(unit: PageRow): number {
    const notBefore = unit.not_before === null ? 0 : Date.parse(unit.not_before);
    return Math.max(0, notBefore - this.deps.clock().getTime());
  }

  /**
   * Hands the queue again the units it may have lost (queued long ago, or running on a lease that
   * lapsed a job timeout ago), and deletes crawls past their retention with their results.
   */
  private async sweep(): Promise<void> {
    const { db, clock, config, logger, blobs, jobs } = this.deps;
    try {
      const now = clock();
      const queuedBefore = new Date(now.getTime() - config.leaseMs);
      const leaseBefore = new Date(now.getTime() - config.timeoutMs);
      for (const unit of await strandedUnits(db, queuedBefore, leaseBefore)) {
        await jobs.enqueueUnit(unit.id, this.waitOf(unit));
      }
      for (const pruned of await pruneCrawls(db, now)) {
        for (const key of this.blobKeysOf(pruned)) await blobs.delete(key);
      }
    } catch (error) {
      logger.error({ err: error }, 'crawl sweep failed');
    }
  }
}
