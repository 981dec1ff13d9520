import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  processSetup,
  type ServerProcess,
  startServer,
  startWorker,
  type WorkerProcess,
} from './helpers/cli.js';
import { type CrawlSite, isPage, startCrawlSite } from './helpers/crawl-site.js';
import { dropDatabase } from './helpers/databases.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * A crawl spread over workers (docs/crawl.md): one `webcap serve` that only submits, two
 * `webcap worker` processes on PostgreSQL and BullMQ on Redis, the fixture site on 127.0.0.1. One
 * worker is SIGKILLed mid-crawl with pages in flight; the crawl completes on the other, each page
 * billed once, and the only pages fetched twice are those the dead worker had in flight.
 */
const ADMIN = 'crawl-processes-admin-token-00';
const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Record {
  status: string;
  counts: {
    discovered: number;
    completed: number;
    failed: number;
    skipped: number;
    credits_used: number;
    running: number;
  };
  pages: { url: string; status: string }[];
  next: string | null;
  cursor: string | null;
}

describe('crawl: two workers on PostgreSQL and BullMQ, one killed mid-crawl', () => {
  const queueName = `crawl-${Date.now().toString(36)}`;
  const base = processSetup('postgres', ADMIN, {
    REDIS_URL: TEST_REDIS_URL,
    JOB_QUEUE_NAME: queueName,
    // A dead worker's pages are taken over soon after their lease lapses.
    JOB_LEASE_MS: '2000',
    NAVIGATION_TIMEOUT_MS: '20000',
  });
  const { database } = base;
  let site: CrawlSite;
  let api: ServerProcess;
  const workers: WorkerProcess[] = [];
  const redis = new Redis(TEST_REDIS_URL);
  let db: pg.Client;
  let key: string;

  beforeAll(async () => {
    site = await startCrawlSite();
    api = await startServer({ ...base.env, JOB_CONCURRENCY: '0' });
    workers.push(
      ...(await Promise.all([0, 1].map(() => startWorker({ ...base.env, JOB_CONCURRENCY: '2' })))),
    );
    db = new pg.Client({ connectionString: database.kind === 'postgres' ? database.url : '' });
    await db.connect();
    const admin = async (path: string, body: object) => {
      const res = await fetch(`${api.url}/admin/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBeLessThan(300);
      return res.json() as Promise<{ key: string }>;
    };
    await admin('/accounts', { name: 'crawler', slug: 'crawler', monthly_quota: 10_000 });
    key = (await admin('/keys', { account: 'crawler' })).key;
  });

  afterAll(async () => {
    await Promise.all([...workers.map((w) => w.stop('SIGKILL')), api?.stop()]);
    const keys = await redis.keys(`bull:${queueName}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await db?.end();
    await site?.close();
    await dropDatabase(database);
  });

  async function read(id: string, cursor?: string): Promise<Record> {
    const query = cursor === undefined ? 'limit=100' : `limit=100&cursor=${cursor}`;
    const res = await fetch(`${api.url}/v1/crawl/${id}?${query}`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    return (await res.json()) as Record;
  }

  async function until(id: string, ok: (record: Record) => boolean): Promise<Record> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const record = await read(id);
      if (ok(record)) return record;
      if (Date.now() > deadline)
        throw new Error(`crawl ${id}: ${JSON.stringify(record.counts)} ${record.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('completes on the worker left, each page billed once', async () => {
    site.slowMs = 400;
    const from = site.log.length;
    const res = await fetch(`${api.url}/v1/crawl`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${site.origin('127.0.0.1')}/docs/0`,
        limit: 60,
        max_concurrency: 4,
        sitemap: 'skip',
        include_paths: ['/docs/*'],
      }),
    });
    expect(res.status).toBe(202);
    const { crawl_id: id } = (await res.json()) as { crawl_id: string };
    // Both workers busy, then one dies with its pages in flight.
    await until(id, (record) => record.counts.completed >= 10 && record.counts.running >= 2);
    await workers[0]?.stop('SIGKILL');
    const record = await until(id, (r) => r.status === 'completed' && r.counts.running === 0);
    site.slowMs = 0;

    const pages: Record['pages'] = [];
    for (let cursor: string | undefined; ; ) {
      const page = await read(id, cursor);
      pages.push(...page.pages);
      if (page.next === null || page.pages.length === 0) break;
      cursor = page.cursor ?? undefined;
    }
    expect(pages.length).toBe(60);
    expect(new Set(pages.map((page) => page.url)).size).toBe(60);
    expect(record.counts.completed).toBe(60);
    expect(record.counts.credits_used).toBe(60);

    // The ledger agrees: 60 units committed, none held, whatever the dead worker held given back or used.
    const ledger = await db.query(
      `select status, count(*)::int as n from "${database.kind === 'postgres' ? database.schema : ''}".reservations group by status`,
    );
    const by = Object.fromEntries(
      ledger.rows.map((row: { status: string; n: number }) => [row.status, row.n]),
    );
    expect(by.committed).toBe(60);
    expect(by.reserved ?? 0).toBe(0);

    // Fetched twice: only what the dead worker had in flight (its two runs at most).
    const counts = new Map<string, number>();
    for (const hit of site.log.slice(from))
      if (isPage(hit.key)) counts.set(hit.key, (counts.get(hit.key) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1);
    expect(twice.length).toBeLessThanOrEqual(2);
    for (const [, n] of twice) expect(n).toBe(2);
  });

  it('a cancel stops both workers: no page starts after it, those running are billed', async () => {
    workers.push(await startWorker({ ...base.env, JOB_CONCURRENCY: '2' }));
    site.slowMs = 400;
    const res = await fetch(`${api.url}/v1/crawl`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${site.origin('127.0.0.1')}/docs/100`,
        limit: 100,
        max_concurrency: 4,
        sitemap: 'skip',
        include_paths: ['/docs/*'],
      }),
    });
    expect(res.status).toBe(202);
    const { crawl_id: id } = (await res.json()) as { crawl_id: string };
    await until(id, (record) => record.counts.completed >= 4 && record.counts.running >= 2);
    const cancel = await fetch(`${api.url}/v1/crawl/${id}`, {
      method: 'DELETE',
      headers: { 'x-api-key': key },
    });
    expect(cancel.status).toBe(200);
    const cancelled = (await cancel.json()) as Record;
    expect(cancelled.status).toBe('cancelled');
    const after = site.log.length;
    const record = await until(id, (r) => r.counts.running === 0);
    site.slowMs = 0;
    expect(record.status).toBe('cancelled');
    // Only the pages running when it was cancelled may still fetch; no other page starts.
    const fetchedAfter = site.log.slice(after).filter((hit) => isPage(hit.key)).length;
    expect(fetchedAfter).toBeLessThanOrEqual(cancelled.counts.running);
    expect(record.counts.completed).toBeLessThan(100);
    expect(record.counts.credits_used).toBe(record.counts.completed);
    const ledger = await db.query(
      `select count(*)::int as n from "${database.kind === 'postgres' ? database.schema : ''}".reservations where status = 'reserved'`,
    );
    expect(ledger.rows[0].n).toBe(0);
  });
});
