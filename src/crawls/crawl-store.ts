import { setImmediate as nextTurn } from 'node:timers/promises';
import { settleIn, type Trx } from '../billing/ledger.js';
import { hostOf } from '../engines/site/site-url.js';
import type { Db } from '../store/db.js';
import { timeOrderedId } from '../store/ids.js';
import { olderThan, type Page, type PageRequest, pageOf } from '../store/pages.js';
import type {
  CrawlEventType,
  CrawlHostsTable,
  CrawlPagesTable,
  CrawlStatus,
  CrawlsTable,
} from '../store/schema.js';

/*
 * A crawl's frontier lives in the database, so that any worker runs any page and a crawl outlives
 * every process. Every change of a crawl's frontier (pages added, ended, promoted to the queue,
 * the crawl cancelled) runs in one transaction that first writes the crawl's row: that row lock
 * serializes them per crawl on PostgreSQL (SQLite has one writer anyway), so the limit, the
 * concurrency and each host's politeness slots hold under any number of workers. A page ends
 * once (a conditional update), and its unit is settled in the same transaction, so a page is
 * billed if and only if it completed, whatever crashes in between.
 */

export type CrawlRow = CrawlsTable;
export type PageRow = CrawlPagesTable;
export type HostRow = CrawlHostsTable;

/** Page units carry this id prefix on the job queue. */
export const PAGE_PREFIX = 'cpg_';

/** States in which a crawl still runs pages. */
export const LIVE_STATUSES: readonly CrawlStatus[] = ['queued', 'running'];

/** A unit handed to the queue: its id and how long it waits for its host's slot. */
export interface Promoted {
  readonly id: string;
  readonly delayMs: number;
}

export type NewCrawl = Pick<
  CrawlsTable,
  | 'id'
  | 'account_id'
  | 'key_id'
  | 'kind'
  | 'params'
  | 'page_limit'
  | 'max_concurrency'
  | 'webhook'
  | 'created_at'
  | 'idempotency_key'
  | 'params_hash'
>;

/** A unit the crawl starts with: its start page, the discovery of its sitemaps, or a batch's items. */
export interface Seed {
  readonly kind: 'page' | 'sitemap' | 'item';
  readonly url: string;
  /** The unit reserved at submission, held until this unit ends. */
  readonly reservationId: string | null;
  /** A batch item's call, sealed. */
  readonly options?: string;
}

/** What an event is about: its crawl's or batch's start, one of its pages or items, its end. */
type EventOf = 'started' | 'page' | 'completed' | 'failed';

function eventType(kind: CrawlRow['kind'], of: EventOf): CrawlEventType {
  if (kind === 'crawl') return `crawl.${of}`;
  return of === 'page' ? 'batch.item' : `batch.${of}`;
}

/** Rows per multi-row insert: well under SQLite's bound on a statement's parameters. */
const ROWS_PER_INSERT = 200;

/** Writes the crawl's row first: its lock serializes the frontier's changes (see above). */
async function lockCrawl(trx: Trx, crawlId: string, now: Date): Promise<CrawlRow | undefined> {
  return trx
    .updateTable('crawls')
    .set({ updated_at: now.toISOString() })
    .where('id', '=', crawlId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Hands pending pages to the queue while the crawl has fewer than max_concurrency queued or
 * running, shallowest first (a breadth-first crawl), each at its host's next slot: the host's
 * slots are `delayMs` (or its Crawl-delay, when longer) apart, across every worker.
 */
async function promote(trx: Trx, crawl: CrawlRow, now: Date, delayMs: number): Promise<Promoted[]> {
  const { n } = await trx
    .selectFrom('crawl_pages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('crawl_id', '=', crawl.id)
    .where('state', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow();
  const free = crawl.max_concurrency - Number(n);
  if (free <= 0) return [];
  const next = await trx
    .selectFrom('crawl_pages')
    .select(['id', 'url', 'kind'])
    .where('crawl_id', '=', crawl.id)
    .where('state', '=', 'pending')
    .orderBy('depth')
    .orderBy('seq')
    .limit(free)
    .execute();
  const promoted: Promoted[] = [];
  const stamp = now.toISOString();
  for (const page of next) {
    let slot = now.getTime();
    if (page.kind === 'page') slot = await takeSlot(trx, crawl.id, hostOf(page.url), now, delayMs);
    await trx
      .updateTable('crawl_pages')
      .set({ state: 'queued', queued_at: stamp, not_before: new Date(slot).toISOString() })
      .where('id', '=', page.id)
      .execute();
    promoted.push({ id: page.id, delayMs: slot - now.getTime() });
  }
  return promoted;
}

/** The host's next slot (now at the earliest), moving its next one on by the host's delay. */
async function takeSlot(
  trx: Trx,
  crawlId: string,
  host: string,
  now: Date,
  delayMs: number,
): Promise<number> {
  const row = await trx
    .selectFrom('crawl_hosts')
    .selectAll()
    .where('crawl_id', '=', crawlId)
    .where('host', '=', host)
    .executeTakeFirst();
  if (row === undefined) {
    await trx
      .insertInto('crawl_hosts')
      .values({
        crawl_id: crawlId,
        host,
        next_at: new Date(now.getTime() + delayMs).toISOString(),
        robots: null,
        delay_ms: 0,
      })
      .execute();
    return now.getTime();
  }
  const slot = Math.max(now.getTime(), Date.parse(row.next_at));
  const gap = Math.max(delayMs, row.delay_ms);
  await trx
    .updateTable('crawl_hosts')
    .set({ next_at: new Date(slot + gap).toISOString() })
    .where('crawl_id', '=', crawlId)
    .where('host', '=', host)
    .execute();
  return slot;
}

/**
 * Stores a new crawl with its seeds and hands the first units to the queue (returned, for the
 * caller to enqueue), within the caller's transaction (the one that reserves the first seed's
 * unit); null when the account already has a crawl under its idempotency key.
 */
export async function insertCrawl(
  trx: Trx,
  crawl: NewCrawl,
  seeds: readonly Seed[],
  delayMs: number,
  now: Date,
): Promise<Promoted[] | null> {
  const stamp = now.toISOString();
  const pages = seeds.filter((seed) => seed.kind !== 'sitemap').length;
  const row: CrawlRow = {
    ...crawl,
    status: 'queued',
    stop_reason: null,
    discovered: pages,
    completed: 0,
    failed: 0,
    skipped: 0,
    credits_used: 0,
    updated_at: stamp,
    finished_at: null,
    expires_at: null,
  };
  const inserted = await trx
    .insertInto('crawls')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted === undefined) return null;
  let seq = 0;
  for (const seed of seeds) {
    await trx
      .insertInto('crawl_pages')
      .values({
        ...newPage(crawl.id, seed.kind === 'sitemap' ? -1 : seq++, seed.url, 0, now),
        kind: seed.kind,
        reservation_id: seed.reservationId,
        options: seed.options ?? null,
      })
      .execute();
  }
  if (row.webhook === 1) await queueEvent(trx, row, 'started', null, now);
  return promote(trx, row, now, delayMs);
}

/** Queues a webhook event of the crawl, due now; its body is read when it is sent (crawl-events.ts). */
async function queueEvent(
  trx: Trx,
  crawl: Pick<CrawlRow, 'id' | 'account_id' | 'kind'>,
  of: EventOf,
  pageId: string | null,
  now: Date,
): Promise<void> {
  await trx
    .insertInto('crawl_events')
    .values({
      id: timeOrderedId('cev', now.getTime()),
      crawl_id: crawl.id,
      account_id: crawl.account_id,
      type: eventType(crawl.kind, of),
      page_id: pageId,
      created_at: now.toISOString(),
      log: JSON.stringify({ state: 'pending', attempts: [] }),
      next_at: now.toISOString(),
    })
    .execute();
}

function newPage(crawlId: string, seq: number, url: string, depth: number, now: Date): PageRow {
  return {
    id: timeOrderedId(PAGE_PREFIX.slice(0, -1), now.getTime()),
    crawl_id: crawlId,
    seq,
    kind: 'page',
    url,
    depth,
    state: 'pending',
    attempts: 0,
    lease_until: null,
    not_before: null,
    queued_at: null,
    reservation_id: null,
    status_code: null,
    final_url: null,
    error: null,
    result_key: null,
    done_seq: null,
    options: null,
    finished_at: null,
  };
}

/** The account's crawl or batch under an idempotency key. */
export async function findCrawlByIdempotencyKey(
  db: Db,
  accountId: string,
  key: string,
): Promise<CrawlRow | undefined> {
  return db
    .selectFrom('crawls')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** Frees an idempotency key past its window, so that a new submission may use it. */
export async function releaseCrawlIdempotencyKey(db: Db, id: string): Promise<void> {
  await db.updateTable('crawls').set({ idempotency_key: null }).where('id', '=', id).execute();
}

export async function findCrawl(db: Db, id: string): Promise<CrawlRow | undefined> {
  return db.selectFrom('crawls').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findPage(db: Db, id: string): Promise<PageRow | undefined> {
  return db.selectFrom('crawl_pages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The crawl starts running with its first unit. */
export async function markRunning(db: Db, crawlId: string): Promise<void> {
  await db
    .updateTable('crawls')
    .set({ status: 'running' })
    .where('id', '=', crawlId)
    .where('status', '=', 'queued')
    .execute();
}

/**
 * Takes a page unit to run it: a queued one, or a running one whose worker let its lease lapse,
 * while runs are left. Undefined when it is not this caller's to run.
 */
export async function claimPage(
  db: Db,
  id: string,
  now: Date,
  leaseMs: number,
  maxAttempts: number,
): Promise<PageRow | undefined> {
  const stamp = now.toISOString();
  return db
    .updateTable('crawl_pages')
    .set((eb) => ({
      state: 'running',
      attempts: eb('attempts', '+', 1),
      lease_until: new Date(now.getTime() + leaseMs).toISOString(),
    }))
    .where('id', '=', id)
    .where('attempts', '<', maxAttempts)
    .where((eb) =>
      eb.or([
        eb('state', '=', 'queued'),
        eb.and([eb('state', '=', 'running'), eb('lease_until', '<', stamp)]),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Extends a run's lease; false when the run no longer owns the page. */
export async function renewPageLease(db: Db, id: string, attempt: number, until: Date): Promise<boolean> {
  const updated = await db
    .updateTable('crawl_pages')
    .set({ lease_until: until.toISOString() })
    .where('id', '=', id)
    .where('state', '=', 'running')
    .where('attempts', '=', attempt)
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/** Records the unit held for the run; false when the run no longer owns the page. */
export async function holdUnit(db: Db, id: string, attempt: number, reservationId: string): Promise<boolean> {
  const updated = await db
    .updateTable('crawl_pages')
    .set({ reservation_id: reservationId })
    .where('id', '=', id)
    .where('state', '=', 'running')
    .where('attempts', '=', attempt)
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/** Whether a page of the crawl other than `id` holds a unit it has not settled yet. */
export async function othersHolding(db: Db, crawlId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('crawl_pages')
    .select('id')
    .where('crawl_id', '=', crawlId)
    .where('id', '!=', id)
    .where('state', 'in', ['queued', 'running'])
    .where('reservation_id', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Puts a run's page back in the queue unended (its run not counted, its unit still held), to run
 * no earlier than `notBefore`: a process letting its runs go, or a page waiting for capacity.
 */
export async function requeuePage(db: Db, id: string, attempt: number, notBefore: Date): Promise<boolean> {
  const updated = await db
    .updateTable('crawl_pages')
    .set({ state: 'queued', attempts: attempt - 1, lease_until: null, not_before: notBefore.toISOString() })
    .where('id', '=', id)
    .where('state', '=', 'running')
    .where('attempts', '=', attempt)
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/** How a page's run ended. */
export type PageEnd =
  | {
      readonly state: 'completed';
      readonly statusCode: number;
      readonly finalUrl: string | null;
      readonly resultKey: string | null;
    }
  | { readonly state: 'failed'; readonly statusCode: number | null; readonly error: string }
  | { readonly state: 'skipped'; readonly error: string }
  /** Recorded as skipped: its target joins the frontier as a link at the same depth, so no page is fetched twice. */
  | { readonly state: 'redirected'; readonly statusCode: number; readonly location: string }
  | { readonly state: 'cancelled' };

/** What ending a page changed. */
export interface PageEnded {
  /** False when the run no longer owned the page (another run or a cancellation ended it). */
  readonly ended: boolean;
  readonly billed: boolean;
  /** Units to hand to the queue now. */
  readonly promoted: Promoted[];
  /** The crawl's row after the change; its status says whether this ended it. */
  readonly crawl: CrawlRow | undefined;
  /** The crawl ended with this page. */
  readonly finished: boolean;
}

/**
 * Ends a page's run and, in the same transaction: settles its unit (billed when a page
 * completed), counts it, adds the links it found (or its redirect's target) to the frontier (the
 * crawl's limit applied, each URL once), hands the next pages to the queue, and completes the
 * crawl when nothing is left. `links` are normalized and in scope already.
 */
export async function endPage(
  db: Db,
  page: Pick<PageRow, 'id' | 'crawl_id' | 'attempts'>,
  end: PageEnd,
  links: readonly string[],
  now: Date,
  delayMs: number,
  retentionMs: number,
): Promise<PageEnded> {
  return db.transaction().execute(async (trx) => {
    const crawl = await lockCrawl(trx, page.crawl_id, now);
    if (crawl === undefined) return { ended: false, billed: false, promoted: [], crawl, finished: false };
    const stamp = now.toISOString();
    const listed = end.state !== 'cancelled';
    const state = end.state === 'redirected' ? 'skipped' : end.state;
    const row = await trx
      .updateTable('crawl_pages')
      .set({
        state,
        lease_until: null,
        finished_at: stamp,
        status_code: 'statusCode' in end ? end.statusCode : null,
        final_url:
          end.state === 'completed' ? end.finalUrl : end.state === 'redirected' ? end.location : null,
        error:
          'error' in end ? end.error : end.state === 'redirected' ? `redirects to ${end.location}` : null,
        result_key: end.state === 'completed' ? end.resultKey : null,
      })
      .where('id', '=', page.id)
      .where('state', '=', 'running')
      .where('attempts', '=', page.attempts)
      .returning(['reservation_id', 'kind', 'depth'])
      .executeTakeFirst();
    if (row === undefined) return { ended: false, billed: false, promoted: [], crawl, finished: false };
    const listable = row.kind !== 'sitemap';
    const bills = end.state === 'completed' && listable;
    const billed =
      row.reservation_id === null
        ? false
        : (await settleIn(trx, row.reservation_id, bills ? 'commit' : 'release', now)) && bills;
    let counted = crawl;
    if (listable && listed) {
      const doneSeq = crawl.completed + crawl.failed + crawl.skipped;
      await trx.updateTable('crawl_pages').set({ done_seq: doneSeq }).where('id', '=', page.id).execute();
      if (crawl.webhook === 1) await queueEvent(trx, crawl, 'page', page.id, now);
      counted = {
        ...crawl,
        completed: crawl.completed + (end.state === 'completed' ? 1 : 0),
        failed: crawl.failed + (end.state === 'failed' ? 1 : 0),
        skipped: crawl.skipped + (state === 'skipped' ? 1 : 0),
        credits_used: crawl.credits_used + (billed ? 1 : 0),
      };
    }
    const live = LIVE_STATUSES.includes(crawl.status);
    if (live && (end.state === 'completed' || end.state === 'redirected')) {
      const depth = end.state === 'completed' ? row.depth + 1 : row.depth;
      counted = { ...counted, discovered: await addLinks(trx, counted, links, depth, now) };
    }
    const promoted = live ? await promote(trx, counted, now, delayMs) : [];
    let finished = false;
    if (live && promoted.length === 0 && !(await hasUnitsLeft(trx, crawl.id))) {
      counted = {
        ...counted,
        status: 'completed',
        finished_at: stamp,
        expires_at: new Date(now.getTime() + retentionMs).toISOString(),
      };
      finished = true;
      if (crawl.webhook === 1) await queueEvent(trx, crawl, 'completed', null, now);
    }
    await trx
      .updateTable('crawls')
      .set({
        status: counted.status,
        discovered: counted.discovered,
        completed: counted.completed,
        failed: counted.failed,
        skipped: counted.skipped,
        credits_used: counted.credits_used,
        finished_at: counted.finished_at,
        expires_at: counted.expires_at,
      })
      .where('id', '=', crawl.id)
      .execute();
    return { ended: true, billed, promoted, crawl: counted, finished };
  });
}

async function hasUnitsLeft(trx: Trx, crawlId: string): Promise<boolean> {
  const left = await trx
    .selectFrom('crawl_pages')
    .select('id')
    .where('crawl_id', '=', crawlId)
    .where('state', 'in', ['pending', 'queued', 'running'])
    .limit(1)
    .executeTakeFirst();
  return left !== undefined;
}

/**
 * Adds the links not yet in the frontier, in order, while the crawl is under its limit; returns
 * the crawl's new `discovered`. Under the crawl's lock nobody else adds pages meanwhile, so the
 * URLs found absent are inserted as they are, numbered on from `discovered`.
 */
async function addLinks(
  trx: Trx,
  crawl: CrawlRow,
  links: readonly string[],
  depth: number,
  now: Date,
): Promise<number> {
  let discovered = crawl.discovered;
  for (let i = 0; i < links.length && discovered < crawl.page_limit; i += ROWS_PER_INSERT) {
    const chunk = links.slice(i, i + ROWS_PER_INSERT);
    const known = await trx
      .selectFrom('crawl_pages')
      .select('url')
      .where('crawl_id', '=', crawl.id)
      .where('url', 'in', chunk)
      .execute();
    const seen = new Set(known.map((row) => row.url));
    const fresh = chunk.filter((url) => !seen.has(url)).slice(0, crawl.page_limit - discovered);
    if (fresh.length === 0) continue;
    await trx
      .insertInto('crawl_pages')
      .values(fresh.map((url, k) => newPage(crawl.id, discovered + k, url, depth, now)))
      .execute();
    discovered += fresh.length;
  }
  return discovered;
}

/**
 * Adds URLs a sitemap listed, at depth 1, the same way as a page's links; `full` when the crawl
 * takes no more (at its limit, or ended), so that a caller adding a long list in parts stops.
 */
export async function addSitemapPages(
  db: Db,
  crawlId: string,
  urls: readonly string[],
  now: Date,
  delayMs: number,
): Promise<{ readonly promoted: Promoted[]; readonly full: boolean }> {
  return db.transaction().execute(async (trx) => {
    const crawl = await lockCrawl(trx, crawlId, now);
    if (crawl === undefined || !LIVE_STATUSES.includes(crawl.status)) return { promoted: [], full: true };
    const discovered = await addLinks(trx, crawl, urls, 1, now);
    await trx.updateTable('crawls').set({ discovered }).where('id', '=', crawlId).execute();
    const promoted = await promote(trx, { ...crawl, discovered }, now, delayMs);
    return { promoted, full: discovered >= crawl.page_limit };
  });
}

/** Unstarted pages cancelled per transaction when a crawl ends early. */
const CANCELLED_PER_TRANSACTION = 1000;

/**
 * Ends a live crawl before its frontier is empty (cancelled, or stopped for a reason): its pages
 * not started are cancelled and the units held for them released; pages running finish (and are
 * billed) but add nothing. False when it had already ended.
 *
 * The crawl ends in one transaction, after which no page starts (a unit claimed later finds the
 * crawl ended and cancels itself); its unstarted pages are then cancelled a thousand per
 * transaction, the event loop let go between them: with better-sqlite3 one UPDATE of 10,000
 * pages held it 0.36 s.
 */
export async function finishCrawl(
  db: Db,
  crawlId: string,
  status: Extract<CrawlStatus, 'cancelled' | 'stopped' | 'failed'>,
  reason: string | null,
  now: Date,
  retentionMs: number,
): Promise<boolean> {
  const stamp = now.toISOString();
  const ended = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('crawls')
      .set({
        status,
        stop_reason: reason,
        updated_at: stamp,
        finished_at: stamp,
        expires_at: new Date(now.getTime() + retentionMs).toISOString(),
      })
      .where('id', '=', crawlId)
      .where('status', 'in', [...LIVE_STATUSES])
      .executeTakeFirst();
    if (updated.numUpdatedRows !== 1n) return false;
    const crawl = await trx
      .selectFrom('crawls')
      .select(['id', 'account_id', 'kind', 'webhook'])
      .where('id', '=', crawlId)
      .executeTakeFirstOrThrow();
    if (crawl.webhook === 1) await queueEvent(trx, crawl, 'failed', null, now);
    return true;
  });
  if (!ended) return false;
  for (;;) {
    const cancelled = await db.transaction().execute(async (trx) => {
      const unstarted = await trx
        .selectFrom('crawl_pages')
        .select('id')
        .where('crawl_id', '=', crawlId)
        .where('state', 'in', ['pending', 'queued'])
        .limit(CANCELLED_PER_TRANSACTION)
        .execute();
      if (unstarted.length === 0) return 0;
      const held = await trx
        .updateTable('crawl_pages')
        .set({ state: 'cancelled', finished_at: stamp })
        .where(
          'id',
          'in',
          unstarted.map((row) => row.id),
        )
        .where('state', 'in', ['pending', 'queued'])
        .returning('reservation_id')
        .execute();
      for (const { reservation_id } of held) {
        if (reservation_id !== null) await settleIn(trx, reservation_id, 'release', now);
      }
      return unstarted.length;
    });
    if (cancelled < CANCELLED_PER_TRANSACTION) return true;
    await nextTurn();
  }
}

/** A page of the crawl's finished pages, in the order they finished, after the cursor. */
export async function listPages(db: Db, crawlId: string, after: number, limit: number): Promise<PageRow[]> {
  return db
    .selectFrom('crawl_pages')
    .selectAll()
    .where('crawl_id', '=', crawlId)
    .where('done_seq', '>', after)
    .orderBy('done_seq')
    .limit(limit)
    .execute();
}

/** A crawl with the number of its pages being fetched now. */
export type CrawlHeadRow = CrawlRow & { readonly running: number };

/**
 * Selects a crawl's columns and its running pages in one statement: one snapshot, so that a
 * reader who sees no page running sees the counts of every page that ended (two reads let a page
 * end between them, and a poller waiting for `running: 0` took counts from before its end).
 */
function selectHead(db: Db) {
  return db
    .selectFrom('crawls')
    .selectAll('crawls')
    .select((eb) =>
      eb
        .selectFrom('crawl_pages')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('crawl_pages.crawl_id', '=', 'crawls.id')
        .where('crawl_pages.state', '=', 'running')
        .as('running'),
    );
}

function headOf<T extends CrawlRow & { running: number | string | bigint | null }>(row: T): CrawlHeadRow {
  return { ...row, running: Number(row.running ?? 0) };
}

export async function findCrawlHead(db: Db, id: string): Promise<CrawlHeadRow | undefined> {
  const row = await selectHead(db).where('crawls.id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : headOf(row);
}

/**
 * A page of an account's crawls and batches, newest first, by the (account_id, created_at) index:
 * the live ones, and ended ones within their retention (as the jobs list keeps its jobs).
 */
export async function listCrawls(
  db: Db,
  accountId: string,
  page: PageRequest,
  now: Date,
): Promise<Page<CrawlHeadRow>> {
  let query = selectHead(db)
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('status', 'in', [...LIVE_STATUSES]), eb('expires_at', '>', now.toISOString())]))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
  if (page.before !== undefined) query = query.where(olderThan('created_at', 'id', page.before));
  const rows = await query.execute();
  return pageOf(rows, page.limit, (row) => ({ at: row.created_at, id: row.id }), headOf);
}

export async function findHost(db: Db, crawlId: string, host: string): Promise<HostRow | undefined> {
  return db
    .selectFrom('crawl_hosts')
    .selectAll()
    .where('crawl_id', '=', crawlId)
    .where('host', '=', host)
    .executeTakeFirst();
}

/** Keeps a host's robots.txt rules (JSON) and its Crawl-delay for the crawl's later pages. */
export async function saveRobots(
  db: Db,
  crawlId: string,
  host: string,
  robots: string,
  delayMs: number,
  now: Date,
): Promise<void> {
  await db
    .insertInto('crawl_hosts')
    .values({ crawl_id: crawlId, host, next_at: now.toISOString(), robots, delay_ms: delayMs })
    .onConflict((oc) => oc.columns(['crawl_id', 'host']).doUpdateSet({ robots, delay_ms: delayMs }))
    .execute();
}

/**
 * Units of live crawls the queue may have lost: queued and due before `queuedBefore`, or running on
 * a lease that lapsed before `leaseBefore`. Enqueuing one twice is harmless (claims are conditional).
 */
export async function strandedUnits(db: Db, queuedBefore: Date, leaseBefore: Date): Promise<PageRow[]> {
  return db
    .selectFrom('crawl_pages')
    .innerJoin('crawls', 'crawls.id', 'crawl_pages.crawl_id')
    .selectAll('crawl_pages')
    .where('crawls.status', 'in', [...LIVE_STATUSES])
    .where((eb) =>
      eb.or([
        eb.and([
          eb('crawl_pages.state', '=', 'queued'),
          eb('crawl_pages.not_before', '<', queuedBefore.toISOString()),
        ]),
        eb.and([
          eb('crawl_pages.state', '=', 'running'),
          eb('crawl_pages.lease_until', '<', leaseBefore.toISOString()),
        ]),
      ]),
    )
    .limit(1000)
    .execute();
}

/** The in-process queue's restart: its runs were interrupted, so they go back to the queue, unended. */
export async function requeueInterrupted(db: Db): Promise<number> {
  const updated = await db
    .updateTable('crawl_pages')
    .set((eb) => ({ state: 'queued', attempts: eb('attempts', '-', 1), lease_until: null }))
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows);
}

/** Queued units of live crawls, for the in-process queue's restart to hand over again. */
export async function queuedUnits(db: Db): Promise<PageRow[]> {
  return db
    .selectFrom('crawl_pages')
    .innerJoin('crawls', 'crawls.id', 'crawl_pages.crawl_id')
    .selectAll('crawl_pages')
    .where('crawls.status', 'in', [...LIVE_STATUSES])
    .where('crawl_pages.state', '=', 'queued')
    .execute();
}

/** A crawl deleted past its retention: its sealed plan and its pages, for the blobs kept with them to go too. */
export interface PrunedCrawl {
  readonly kind: CrawlRow['kind'];
  readonly params: string;
  readonly pages: readonly Pick<PageRow, 'id' | 'result_key'>[];
}

/** Deletes crawls past their retention, with their pages and hosts; returns what they were. */
export async function pruneCrawls(db: Db, now: Date): Promise<PrunedCrawl[]> {
  const expired = await db
    .selectFrom('crawls')
    .select(['id', 'kind', 'params'])
    .where('status', 'not in', [...LIVE_STATUSES])
    .where('expires_at', '<', now.toISOString())
    .limit(100)
    .execute();
  const pruned: PrunedCrawl[] = [];
  for (const { id, kind, params } of expired) {
    await db.transaction().execute(async (trx) => {
      const pages = await trx
        .deleteFrom('crawl_pages')
        .where('crawl_id', '=', id)
        .returning(['id', 'result_key'])
        .execute();
      await trx.deleteFrom('crawl_hosts').where('crawl_id', '=', id).execute();
      await trx.deleteFrom('crawl_events').where('crawl_id', '=', id).execute();
      await trx.deleteFrom('crawls').where('id', '=', id).execute();
      pruned.push({ kind, params, pages });
    });
  }
  return pruned;
}
