import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import { getAccountBySlug } from '../billing/accounts.js';
import { checkKey, getKey } from '../billing/keys.js';
import type { Trx } from '../billing/ledger.js';
import type { RequestShaping } from '../browser/request-shaping-params.js';
import { runCall, targetOf } from '../calls/call-spec.js';
import type { CallDeps } from '../calls/deps.js';
import { checkPage } from '../calls/deps.js';
import { type Caller, reserveLinkedUnit } from '../calls/metering.js';
import type { Clock } from '../clock.js';
import type { JobsConfig } from '../config.js';
import { content } from '../engines/content/content.js';
import type { ContentResult } from '../engines/content/params.js';
import { discoverSitemap } from '../engines/content/sitemap.js';
import { USER_AGENT } from '../engines/crawler/crawler.js';
import {
  ALLOW_ALL,
  DISALLOW_ALL,
  parseRobots,
  type RobotsRules,
  robotsAllow,
} from '../engines/site/robots.js';
import { hostOf, siteUrl } from '../engines/site/site-url.js';
import { errorResponse, WebcapError } from '../errors.js';
import { claimLeased, LET_GO, type Lease, LeasedRuns, withinTimeout } from '../jobs/leased-run.js';
import type { RunOutcome } from '../jobs/queue.js';
import type { Sealer } from '../jobs/sealed.js';
import type { BatchItem } from '../requests/batch.js';
import type { RequestLog } from '../stats/request-log.js';
import type { BlobStore } from '../store/blobs.js';
import type { Db } from '../store/db.js';
import {
  addSitemapPages,
  type CrawlRow,
  claimPage,
  endPage,
  findCrawl,
  findHost,
  findPage,
  finishCrawl,
  holdUnit,
  LIVE_STATUSES,
  markRunning,
  othersHolding,
  type PageEnd,
  type PageEnded,
  type PageRow,
  type Promoted,
  renewPageLease,
  requeuePage,
  saveRobots,
} from './crawl-store.js';
import { candidateLinks, MAX_LINKS_PER_PAGE, URLS_PER_TURN } from './frontier.js';
import { screenshotFileId, screenshotKey, withScreenshotStep } from './page-screenshot.js';
import type { CrawlPlan } from './plan.js';

export interface PageRunDeps {
  readonly db: Db;
  readonly calls: CallDeps;
  readonly blobs: BlobStore;
  readonly sealer: Sealer;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly requestLog: RequestLog;
  readonly config: JobsConfig;
  /** Hands units to the job queue. */
  readonly enqueue: (id: string, delayMs: number) => Promise<void>;
  /** Told when a page ended and when a crawl did (webhooks, metrics). */
  readonly onPage: (crawl: CrawlRow, page: PageRow, ended: PageEnded) => void;
}

/** The request log's paths for a crawl's pages and a batch's items. */
export const CRAWL_PATH = '/v1/crawl';
export const BATCH_PATH = '/v1/batch';

/** robots.txt beyond this is ignored (RFC 9309 §2.5 asks for at least 500 KiB to be read). */
const ROBOTS_MAX_BYTES = 500 * 1024;
/** A unit whose slot is this close is run now rather than put back. */
const EARLY_MS = 50;
/** Sitemap URLs added to the frontier per transaction. */
const SITEMAP_PAGES_PER_TRANSACTION = 1000;
/** A page whose call found the service out of capacity waits this long before it runs again. */
const CAPACITY_WAIT_MS = 2000;
/** A page refused a unit while other pages hold theirs waits this long for them to settle. */
const HELD_ELSEWHERE_WAIT_MS = 500;

/** The balance is spent, but other pages of the crawl hold units they may yet give back. */
class HeldElsewhere extends Error {}

/** The blob key of a page's result. */
function resultKey(crawlId: string, pageId: string): string {
  return `crawls/${crawlId}/${pageId}.json`;
}

/**
 * The JSON a page's result is kept as: what GET /v1/crawl/{id} lists for it (crawl-record.ts),
 * but for `screenshot`, the hosted file's id, which each read signs into a link (page-json.ts).
 */
export interface PageResult {
  readonly markdown?: string;
  readonly html?: string;
  readonly metadata?: ContentResult['metadata'];
  readonly links?: string[];
  readonly json?: ContentResult['json'];
  readonly screenshot?: string;
  readonly warnings: string[];
}

/** What the content engine answers for a page: its result, and the images of its screenshot steps. */
type Rendered = Awaited<ReturnType<typeof content>>;

/** What the request log's row of a page or item says besides the crawl's account and key. */
interface PageLogRow {
  readonly status: number;
  readonly started: number;
  readonly target: string | null;
  /** Why the page or item failed; null when it did not. */
  readonly error: string | null;
  /** A batch item's engine; a crawl's page has none (its row is the crawl's). */
  readonly engine?: string;
}

/**
 * Runs a crawl's units as the job queue delivers them: claims one in the database, waits for its
 * host's slot, checks robots.txt, holds a unit of the crawl's key for it, renders and extracts
 * the page through the content engine, keeps the result, and ends the page (settling its unit
 * and adding the links it found) in one transaction; then hands the next pages to the queue.
 */
export class PageRunner {
  private readonly runs = new LeasedRuns();

  constructor(private readonly deps: PageRunDeps) {}

  /** See JobRunner.letGo: runs hand their pages back unended, their units still held. */
  letGo(): void {
    this.runs.letGo();
  }

  async run(id: string): Promise<RunOutcome> {
    const { db, clock, config, logger } = this.deps;
    const page = await claimLeased(
      { leaseMs: config.leaseMs, now: clock },
      () => claimPage(db, id, clock(), config.leaseMs, config.maxAttempts),
      async () => {
        const found = await findPage(db, id);
        return found?.state === 'running' ? found.lease_until : null;
      },
    );
    if (page === undefined) return 'ended';
    const due = page.not_before === null ? 0 : Date.parse(page.not_before) - clock().getTime();
    if (due > EARLY_MS) return this.putBack(page, due);
    const crawl = await findCrawl(db, page.crawl_id);
    if (crawl === undefined || !LIVE_STATUSES.includes(crawl.status)) {
      await this.end(page, { state: 'cancelled' }, []);
      return 'ended';
    }
    if (crawl.status === 'queued') await markRunning(db, crawl.id);
    const lease: Lease = {
      leaseMs: config.leaseMs,
      now: clock,
      renew: (until) => renewPageLease(db, page.id, page.attempts, until),
      renewFailed: (error) =>
        logger.warn({ err: error, page: page.id }, 'renewing a crawl page lease failed'),
    };
    const outcome = await this.runs.run(lease, () =>
      page.kind === 'item'
        ? this.item(crawl, page)
        : page.kind === 'sitemap'
          ? this.sitemap(crawl, this.deps.sealer.open<CrawlPlan>(crawl.params), page)
          : this.page(crawl, this.deps.sealer.open<CrawlPlan>(crawl.params), page),
    );
    if (outcome !== LET_GO) return outcome;
    if (await requeuePage(db, page.id, page.attempts, clock())) {
      logger.info({ page: page.id }, 'crawl page handed back to the queue');
      return 'handed back';
    }
    return 'ended';
  }

  /** Ends, unbilled, a page BullMQ gave up on (it stalled too often). */
  async abandon(id: string): Promise<void> {
    const { db, clock, config } = this.deps;
    const page = await claimPage(db, id, clock(), config.leaseMs, config.maxAttempts + 1);
    if (page !== undefined)
      await this.end(page, { state: 'failed', statusCode: null, error: 'the page stalled too often' }, []);
  }

  private async putBack(page: PageRow, delayMs: number): Promise<RunOutcome> {
    const notBefore = new Date(this.deps.clock().getTime() + delayMs);
    if (!(await requeuePage(this.deps.db, page.id, page.attempts, notBefore))) return 'ended';
    return { retryInMs: delayMs };
  }

  /** The discovery of the site's sitemaps: their URLs in scope join the frontier at depth 1. */
  private async sitemap(crawl: CrawlRow, plan: CrawlPlan, page: PageRow): Promise<RunOutcome> {
    const { calls, db, clock } = this.deps;
    let end: PageEnd = { state: 'completed', statusCode: 200, finalUrl: null, resultKey: null };
    try {
      const found = await discoverSitemap(calls.content.fetcher, plan.url, calls.content.sitemap, {
        proxy: plan.page.proxy,
      });
      if (plan.maxDepth >= 1) {
        const urls = await candidateLinks(
          found.links,
          plan,
          undefined,
          crawl.page_limit + MAX_LINKS_PER_PAGE,
        );
        const allowed = await this.robotsFiltered(crawl.id, plan, urls);
        // A transaction each: better-sqlite3 holds the event loop for the whole of one, and
        // 10,000 rows in one held it 0.6 s on a loaded 2-core machine.
        for (let at = 0; at < allowed.length; at += SITEMAP_PAGES_PER_TRANSACTION) {
          if (at > 0) await nextTurn();
          const part = allowed.slice(at, at + SITEMAP_PAGES_PER_TRANSACTION);
          const added = await addSitemapPages(db, crawl.id, part, clock(), plan.delayMs);
          await this.hand(added.promoted);
          if (added.full) break;
        }
      }
    } catch (error) {
      end = { state: 'failed', statusCode: null, error: messageOf(error, this.deps.logger) };
    }
    await this.end(page, end, []);
    return 'ended';
  }

  /** A batch's item: its call run as a job's (its answer's JSON kept), on the unit held for it. */
  private async item(crawl: CrawlRow, page: PageRow): Promise<RunOutcome> {
    const { db, clock, config, blobs } = this.deps;
    if (page.options === null) throw new Error(`batch item ${page.id} has no call`);
    const { spec } = this.deps.sealer.open<BatchItem>(page.options);
    const caller = await this.caller(crawl);
    if (caller === null) {
      await finishCrawl(db, crawl.id, 'stopped', 'key_withdrawn', clock(), config.retentionMs);
      await this.end(page, { state: 'cancelled' }, []);
      return 'ended';
    }
    if (page.reservation_id === null) {
      const held = await this.hold(crawl, page, caller, spec.engine);
      if (held !== 'held') return held;
    }
    const started = clock().getTime();
    let body: Buffer;
    try {
      body = await withinTimeout(runCall(this.deps.calls, caller, spec), config.timeoutMs, 'the item');
    } catch (error) {
      if (error instanceof WebcapError && error.code === 'unavailable')
        return this.putBack(page, CAPACITY_WAIT_MS);
      const status = errorStatus(error);
      const message = messageOf(error, this.deps.logger);
      const ended = await this.end(page, { state: 'failed', statusCode: status, error: message }, []);
      this.log(crawl, ended, {
        status,
        started,
        target: targetOf(spec),
        error: message,
        engine: spec.engine,
      });
      return 'ended';
    }
    const key = resultKey(crawl.id, page.id);
    const expiresAt = new Date(clock().getTime() + 2 * config.retentionMs + 7 * 86_400_000);
    await blobs.put(key, body, { contentType: 'application/json', expiresAt });
    const ended = await this.end(
      page,
      { state: 'completed', statusCode: 200, finalUrl: null, resultKey: key },
      [],
    );
    this.log(crawl, ended, {
      status: 200,
      started,
      target: targetOf(spec),
      error: null,
      engine: spec.engine,
    });
    return 'ended';
  }

  private async page(crawl: CrawlRow, plan: CrawlPlan, page: PageRow): Promise<RunOutcome> {
    const { db, clock, config } = this.deps;
    if (plan.respectRobots) {
      const robots = await this.robots(crawl.id, page.url, plan);
      if (!robotsAllow(robots, page.url)) {
        await this.end(page, { state: 'skipped', error: 'disallowed by robots.txt' }, []);
        return 'ended';
      }
    }
    const caller = await this.caller(crawl);
    if (caller === null) {
      await finishCrawl(db, crawl.id, 'stopped', 'key_withdrawn', clock(), config.retentionMs);
      await this.end(page, { state: 'cancelled' }, []);
      return 'ended';
    }
    if (page.reservation_id === null) {
      const held = await this.hold(crawl, page, caller, 'crawl');
      if (held !== 'held') return held;
    }
    const started = clock().getTime();
    let rendered: Rendered;
    try {
      const params = {
        ...plan.page,
        ...ownShaping(plan, page.url),
        ...(plan.formats.includes('screenshot')
          ? { actions: withScreenshotStep(plan.page.actions, plan.fullPage) }
          : {}),
        url: page.url,
        includeHtml: plan.formats.includes('html'),
        includeMarkdown: plan.formats.includes('markdown'),
        stopAtRedirect: true as const,
      };
      await checkPage(this.deps.calls, params);
      rendered = await withinTimeout(
        content(this.deps.calls.content, params),
        this.deps.config.timeoutMs,
        'the page',
      );
    } catch (error) {
      if (error instanceof WebcapError && error.code === 'unavailable')
        return this.putBack(page, CAPACITY_WAIT_MS);
      const message = messageOf(error, this.deps.logger);
      const ended = await this.end(page, { state: 'failed', statusCode: null, error: message }, []);
      this.log(crawl, ended, { status: errorStatus(error), started, target: page.url, error: message });
      return 'ended';
    }
    return this.finish(crawl, plan, page, rendered, started);
  }

  private async finish(
    crawl: CrawlRow,
    plan: CrawlPlan,
    page: PageRow,
    { result, stepShots }: Rendered,
    started: number,
  ): Promise<RunOutcome> {
    const { clock, blobs, config } = this.deps;
    if (result.statusCode >= 300 && result.statusCode < 400) {
      // Not followed (stopAtRedirect): its target is a link like any other, in scope or not.
      const target = await this.robotsFiltered(crawl.id, plan, await candidateLinks([result.url], plan));
      const end: PageEnd = { state: 'redirected', statusCode: result.statusCode, location: result.url };
      const ended = await this.end(page, end, target);
      this.log(crawl, ended, { status: 200, started, target: page.url, error: null });
      return 'ended';
    }
    // Where a script or a meta refresh took it; the page is the crawl's whatever the address.
    const landed = siteUrl(result.url, { ignoreQueryParams: plan.ignoreQueryParams });
    const finalUrl = landed === page.url ? null : result.url;
    if (result.statusCode >= 400) {
      const error = `the page answered ${result.statusCode}`;
      const ended = await this.end(page, { state: 'failed', statusCode: result.statusCode, error }, []);
      // The unit did its work (200, billed), but the page failed: the row says why.
      this.log(crawl, ended, { status: 200, started, target: page.url, error });
      return 'ended';
    }
    const all = [...result.links.internal, ...result.links.external, ...result.links.social];
    const follow = plan.sitemap !== 'only' && page.depth + 1 <= plan.maxDepth;
    const links = follow ? await this.robotsFiltered(crawl.id, plan, await candidateLinks(all, plan)) : [];
    // Kept past the crawl's own retention only as a backstop: pruning a crawl deletes its results.
    const expiresAt = new Date(clock().getTime() + 2 * config.retentionMs + 7 * 86_400_000);
    // The format's step is the last one: the caller's own steps take no images in a crawl.
    const shot = plan.formats.includes('screenshot') ? stepShots.at(-1) : undefined;
    if (shot !== undefined) {
      await blobs.put(screenshotKey(page.id), shot.bytes, { contentType: shot.contentType, expiresAt });
    }
    const kept: PageResult = {
      ...(plan.formats.includes('markdown') ? { markdown: result.markdown ?? '' } : {}),
      ...(plan.formats.includes('html') ? { html: result.html ?? '' } : {}),
      ...(plan.formats.includes('metadata') ? { metadata: result.metadata } : {}),
      ...(plan.formats.includes('links') ? { links: all } : {}),
      ...(result.json === undefined ? {} : { json: result.json }),
      ...(shot === undefined ? {} : { screenshot: screenshotFileId(page.id) }),
      warnings: result.warnings,
    };
    const key = resultKey(crawl.id, page.id);
    await blobs.put(key, Buffer.from(JSON.stringify(kept)), { contentType: 'application/json', expiresAt });
    const ended = await this.end(
      page,
      { state: 'completed', statusCode: result.statusCode, finalUrl, resultKey: key },
      links,
    );
    this.log(crawl, ended, { status: 200, started, target: page.url, error: null });
    return 'ended';
  }

  /**
   * Holds a unit of the crawl's key for the page: 'held', or what the run does instead. A spent
   * balance stops the crawl (payment_required), keeping what it fetched; a full rate cap or key
   * quota puts the page back until it resets.
   */
  private async hold(
    crawl: CrawlRow,
    page: PageRow,
    caller: Caller,
    engine: string,
  ): Promise<'held' | RunOutcome> {
    const { db, clock, config, calls } = this.deps;
    const holdMs = config.maxAttempts * (config.timeoutMs + 2 * config.leaseMs) + 600_000;
    // The unit and the page's note of it are written together: a worker killed in between
    // leaves neither, rather than a unit held for nothing until its hold expires.
    const link = (trx: Trx, id: string) => holdUnit(trx, page.id, page.attempts, id);
    // False when the page moved on (another attempt took it) first: nothing is then reserved.
    const reserve = async () =>
      (await reserveLinkedUnit(calls.metering, caller, engine, holdMs, link)) !== null;
    let held: boolean;
    try {
      held = await reserve().catch(async (error: unknown) => {
        if (!(error instanceof WebcapError && error.code === 'insufficient_credits')) throw error;
        // Units other pages hold are not spent yet: one that fails or is cancelled gives its unit
        // back, so the crawl stops only when none is held. Asked again once none is, since one
        // may have settled between the refusal and the look.
        if (await othersHolding(db, crawl.id, page.id)) throw new HeldElsewhere();
        return reserve();
      });
    } catch (error) {
      if (error instanceof HeldElsewhere) return this.putBack(page, HELD_ELSEWHERE_WAIT_MS);
      if (error instanceof WebcapError && error.code === 'insufficient_credits') {
        await finishCrawl(db, crawl.id, 'stopped', 'payment_required', clock(), config.retentionMs);
        await this.end(page, { state: 'cancelled' }, []);
        return 'ended';
      }
      if (error instanceof WebcapError && error.code === 'rate_limited') {
        return this.putBack(page, Math.max(1, error.options.retryAfterSeconds ?? 1) * 1000);
      }
      throw error;
    }
    return held ? 'held' : 'ended';
  }

  /** The crawl's key as it stands now; null when it was revoked or its account disabled. */
  private async caller(crawl: CrawlRow): Promise<Caller | null> {
    const { db, clock } = this.deps;
    const { key, accountSlug } = await getKey(db, crawl.key_id);
    const account = await getAccountBySlug(db, accountSlug);
    const verdict = checkKey({ key, account }, clock());
    return verdict.ok ? { account, key, unitHeld: true } : null;
  }

  /** The rules of the URL's host for this crawl, read once per crawl and host and kept for every worker. */
  private async robots(crawlId: string, url: string, plan: CrawlPlan): Promise<RobotsRules> {
    const host = hostOf(url);
    const known = await findHost(this.deps.db, crawlId, host);
    if (known?.robots != null) return JSON.parse(known.robots) as RobotsRules;
    const robots = await this.fetchRobots(url, plan);
    const delayMs = Math.round((robots.crawlDelaySeconds ?? 0) * 1000);
    await saveRobots(this.deps.db, crawlId, host, JSON.stringify(robots), delayMs, this.deps.clock());
    return robots;
  }

  private async fetchRobots(url: string, plan: CrawlPlan): Promise<RobotsRules> {
    const robotsUrl = new URL('/robots.txt', url).href;
    try {
      const answer = await this.deps.calls.content.fetcher.fetch(robotsUrl, {
        headers: { 'user-agent': USER_AGENT, accept: 'text/plain, */*;q=0.5' },
        proxy: plan.page.proxy,
      });
      if (answer.status >= 200 && answer.status < 300) {
        return parseRobots(answer.body.subarray(0, ROBOTS_MAX_BYTES).toString('utf8'));
      }
      // RFC 9309 §2.3.1.3-4: a robots.txt that is missing allows all; a server error disallows all.
      return answer.status >= 500 || answer.status === 429 ? DISALLOW_ALL : ALLOW_ALL;
    } catch {
      return DISALLOW_ALL;
    }
  }

  /** The URLs robots.txt allows, for the hosts whose rules the crawl has read; the others are checked when they run. */
  private async robotsFiltered(crawlId: string, plan: CrawlPlan, urls: readonly string[]): Promise<string[]> {
    if (!plan.respectRobots) return [...urls];
    const byHost = new Map<string, RobotsRules | null>();
    const kept: string[] = [];
    for (const [at, url] of urls.entries()) {
      if (at > 0 && at % URLS_PER_TURN === 0) await nextTurn();
      const host = hostOf(url);
      if (!byHost.has(host)) {
        const row = await findHost(this.deps.db, crawlId, host);
        byHost.set(host, row?.robots == null ? null : (JSON.parse(row.robots) as RobotsRules));
      }
      const robots = byHost.get(host) ?? null;
      if (robots === null || robotsAllow(robots, url)) kept.push(url);
    }
    return kept;
  }

  private async end(page: PageRow, end: PageEnd, links: readonly string[]): Promise<PageEnded> {
    const { db, clock, config, sealer } = this.deps;
    const crawl = await findCrawl(db, page.crawl_id);
    // A batch's items have no host slots to keep apart.
    const delayMs =
      crawl === undefined || crawl.kind === 'batch' ? 0 : sealer.open<CrawlPlan>(crawl.params).delayMs;
    const ended = await endPage(db, page, end, links, clock(), delayMs, config.retentionMs);
    await this.hand(ended.promoted);
    if (ended.ended && ended.crawl !== undefined) this.deps.onPage(ended.crawl, page, ended);
    return ended;
  }

  /** Hands promoted units to the queue; one the queue refuses is found by the sweep later. */
  private async hand(promoted: readonly Promoted[]): Promise<void> {
    for (const unit of promoted) {
      await this.deps
        .enqueue(unit.id, unit.delayMs)
        .catch((error: unknown) =>
          this.deps.logger.warn({ err: error, page: unit.id }, 'handing a crawl page to the queue failed'),
        );
    }
  }

  /**
   * The request log's row for a page or item that ran: billed when it completed. A crawl's page
   * without `engine`, a batch's item with its engine.
   */
  private log(crawl: CrawlRow, ended: PageEnded, row: PageLogRow): void {
    if (!ended.ended) return;
    this.deps.requestLog.record({
      account_id: crawl.account_id,
      key_id: crawl.key_id,
      engine: row.engine ?? 'crawl',
      path: row.engine === undefined ? CRAWL_PATH : BATCH_PATH,
      status: row.status,
      duration_ms: Math.round(this.deps.clock().getTime() - row.started),
      billed: ended.billed ? 1 : 0,
      created_at: this.deps.clock().toISOString(),
      target_url: row.target,
      error: row.error,
    });
  }
}

/**
 * The caller's headers, authorization and cookies are for the start page's origin only
 * (docs/capture.md, "Request shaping"): a page of another origin (a subdomain, another site) is
 * fetched without them, the rest of the shaping kept.
 */
function ownShaping(plan: CrawlPlan, pageUrl: string): { readonly shaping?: RequestShaping } {
  const { shaping } = plan.page;
  if (shaping === undefined || new URL(pageUrl).origin === new URL(plan.url).origin) return {};
  return { shaping: { ...shaping, headers: {}, authorization: null, cookies: [] } };
}

/** What a failed page's record says: the error catalogue's message; the detail of an unexpected one is logged. */
function messageOf(error: unknown, logger: Logger): string {
  const known =
    error instanceof WebcapError ? error : new WebcapError('internal', undefined, { cause: error });
  const { status, body } = errorResponse(known);
  if (status >= 500 && !(error instanceof WebcapError)) logger.error({ err: error }, 'crawl page failed');
  return body.error;
}

function errorStatus(error: unknown): number {
  const known = error instanceof WebcapError ? error : new WebcapError('internal');
  return errorResponse(known).status;
}
