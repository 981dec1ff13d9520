import type { ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSize } from './helpers/chromium.js';
import {
  processSetup,
  type ServerProcess,
  startServer,
  startWorker,
  type WorkerProcess,
} from './helpers/cli.js';
import { dropDatabase } from './helpers/databases.js';
import { startServer as startSite, type TestServer } from './helpers/net-fixtures.js';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from './helpers/s3rver.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * The scale-out proof (docs/scale-out.md): two `webcap serve` API nodes and two `webcap worker`
 * processes on one PostgreSQL schema, one Redis (a queue name of its own; the caps' keys are
 * account ids, which are random) and one S3-protocol store (s3rver), with one signing secret. A
 * mixed load goes through both API nodes, then nodes are killed and restarted under load. The
 * site on 127.0.0.1 counts what each path was asked, so a call or job that ran twice shows.
 */
const ADMIN = 'scale-out-admin-token-0000';
const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BUCKET = 'scale-out';
const METRICS = 'scale-out-metrics-token-0000';

let site: TestServer;
const hits = new Map<string, number>();
/** Paths of requests the site never answers (/hang/*): calls in flight until their node dies. */
const hanging: string[] = [];
/** Requests to /hold/* held on their first ask, answered when the test says so. */
const held = new Map<string, ServerResponse>();

function answer(res: ServerResponse, path: string): void {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(`<html><body style="background:#3a6">page ${path}</body></html>`);
}

beforeAll(async () => {
  site = await startSite((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path.startsWith('/hang/')) {
      hanging.push(path);
      return;
    }
    if (path.startsWith('/slow/')) {
      // Long enough to be in flight when its node is told to stop.
      setTimeout(() => answer(res, path), 1500);
      return;
    }
    if (path.startsWith('/hold/') && hits.get(path) === 1) {
      held.set(path, res);
      return;
    }
    answer(res, path);
  });
});
afterAll(() => site?.close());

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = HANG_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value).slice(0, 800)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One answer of an API node, read whole. */
interface Answer {
  readonly node: number;
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
}

/** A job submitted through one node: where, for what page, and how it ended. */
interface Job {
  readonly id: string;
  readonly node: number;
  readonly path: string;
  record?: JobRecord;
}

interface JobRecord {
  readonly status: string;
  readonly result: Record<string, unknown> | null;
  readonly error: unknown;
}

interface Totals {
  readonly committed: Record<string, number>;
  readonly reserved: number;
  readonly released: number;
}

describe('2 API nodes and 2 workers on PostgreSQL, Redis and S3', () => {
  const queueName = `scale-out-${Date.now().toString(36)}`;
  const base = processSetup('postgres', ADMIN, {
    REDIS_URL: TEST_REDIS_URL,
    JOB_QUEUE_NAME: queueName,
    METRICS_TOKEN: METRICS,
    WEBCAP_SIGNING_SECRET: 'scale-out-signing-secret-0123456789abcdef',
    BLOB_S3_BUCKET: BUCKET,
    BLOB_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    BLOB_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    FETCH_TIMEOUT_MS: '60000',
    FETCH_HEADERS_TIMEOUT_MS: '60000',
    // A dead worker's job is taken over soon after its lease lapses.
    JOB_LEASE_MS: '2000',
    // A dead API node's reservations are released this long after its last renewal, by any other
    // process's sweep; a live node renews its calls' holds every third of it, however long they run.
    RESERVATION_HOLD_MS: '8000',
    RESERVATION_SWEEP_INTERVAL_MS: '500',
  });
  const { database } = base;
  if (database.kind !== 'postgres') throw new Error('the proof runs on PostgreSQL');
  const table = (name: string) => `"${database.schema}".${name}`;
  let s3: TestS3;
  let env: Record<string, string>;
  /** The API nodes by index; a restarted node takes its index (and port) back. */
  const api: ServerProcess[] = [];
  const workers: WorkerProcess[] = [];
  const redis = new Redis(TEST_REDIS_URL);
  let db: pg.Client;

  // API nodes only submit jobs; one job at a time per worker, so that two held jobs are on two workers.
  const apiEnv = (port = '0') => ({ ...env, JOB_CONCURRENCY: '0', PORT: port });
  const workerEnv = () => ({ ...env, JOB_CONCURRENCY: '1' });

  beforeAll(async () => {
    s3 = await startS3rver([BUCKET]);
    env = { ...base.env, BLOB_S3_ENDPOINT: s3.endpoint };
    // The first start migrates the schema; the others find it done.
    api.push(await startServer(apiEnv()));
    const started = await Promise.all([
      startServer(apiEnv()),
      startWorker(workerEnv()),
      startWorker(workerEnv()),
    ]);
    api.push(started[0]);
    workers.push(started[1], started[2]);
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
  });

  afterAll(async () => {
    for (const [path, res] of held) {
      held.delete(path);
      res.destroy();
    }
    await Promise.all([...workers.map((w) => w.stop('SIGKILL')), ...api.map((s) => s.stop())]);
    const keys = await redis.keys(`bull:${queueName}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await db?.end();
    await s3?.close();
    await dropDatabase(database);
  });

  function node(index: number): ServerProcess {
    const server = api[index];
    if (server === undefined) throw new Error(`no API node ${index}`);
    return server;
  }

  /** Whichever node is up: the other one may be dead or restarting. */
  async function toLiveNode(path: string, init: RequestInit = {}): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fetch(`${node(attempt % 2).url}${path}`, init);
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  }

  async function admin(method: string, path: string, body?: object): Promise<unknown> {
    const res = await toLiveNode(`/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  /** An account with these limits and balances, and a key on it. */
  async function account(
    slug: string,
    limits: { monthly_quota: number; per_second?: number; per_minute?: number },
    balances: { pack?: number; credits?: number } = {},
  ): Promise<string> {
    await admin('POST', '/accounts', { name: slug, slug, ...limits });
    if (balances.pack !== undefined) await admin('POST', `/accounts/${slug}/packs`, { total: balances.pack });
    if (balances.credits !== undefined) {
      await admin('POST', `/accounts/${slug}/credits`, { amount: balances.credits });
    }
    return ((await admin('POST', '/keys', { account: slug })) as { key: string }).key;
  }

  async function ledger(slug: string): Promise<Totals> {
    return ((await admin('GET', `/accounts/${slug}/ledger?limit=1000`)) as { totals: Totals }).totals;
  }

  const committed = (totals: Totals) => Object.values(totals.committed).reduce((sum, n) => sum + n, 0);

  async function call(
    index: number,
    key: string,
    route: string,
    query: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const res = await fetch(`${node(index).url}${route}?${new URLSearchParams(query)}`, {
      headers: { 'x-api-key': key, ...headers },
    });
    return {
      node: index,
      status: res.status,
      headers: res.headers,
      body: Buffer.from(await res.arrayBuffer()),
    };
  }

  const pageUrl = (path: string) => `http://127.0.0.1:${site.port}${path}`;
  const callCrawler = (index: number, key: string, path: string) =>
    call(index, key, '/v1/website/crawler', { query: pageUrl(path) });

  /** Submits a crawler job for the page; the job, or the refusal's answer. */
  async function submit(index: number, key: string, path: string): Promise<Job | Answer> {
    const res = await call(index, key, '/v1/website/crawler', { query: pageUrl(path), is_async: 'true' });
    if (res.status !== 202) return res;
    return { id: (JSON.parse(res.body.toString()) as { job_id: string }).job_id, node: index, path };
  }

  /** The job a submission made; throws the refusal otherwise. */
  async function submitted(index: number, key: string, path: string): Promise<Job> {
    const outcome = await submit(index, key, path);
    if ('id' in outcome) return outcome;
    throw new Error(`submission refused: ${outcome.status} ${outcome.body}`);
  }

  async function jobRecord(index: number, key: string, id: string): Promise<JobRecord> {
    const res = await fetch(`${node(index).url}/jobs/${id}`, { headers: { 'x-api-key': key } });
    if (res.status !== 200) throw new Error(`GET /jobs/${id}: ${res.status}`);
    return (await res.json()) as JobRecord;
  }

  /** Polls the job through the node that did not take it, until it ends. */
  async function settle(key: string, job: Job): Promise<Job> {
    job.record = await until(
      () => jobRecord(1 - job.node, key, job.id),
      (r) => r.status === 'completed' || r.status === 'failed',
    );
    return job;
  }

  async function jobRows(ids: readonly string[]) {
    const { rows } = await db.query<{ id: string; status: string; attempts: number; reservation_id: string }>(
      `SELECT id, status, attempts, reservation_id FROM ${table('jobs')} WHERE id = ANY($1)`,
      [ids],
    );
    return rows;
  }

  async function usage(key: string) {
    const res = await toLiveNode('/v1/usage', { headers: { 'x-api-key': key } });
    return (await res.json()) as { total_used: number; remaining: number };
  }

  describe('under a mixed load through both API nodes', () => {
    /** What each account was answered: synchronous calls and jobs (accepted ones, settled). */
    const load = new Map<
      string,
      { key: string; balance: number; sync: Answer[]; jobs: Job[]; refused: Answer[] }
    >();
    let capped: { burst: Answer[]; burstMs: number; rounds: Answer[][] };
    let cache: { miss: Answer; hit: Answer };
    let hosted: { job: Job; file: Answer };
    let once: { answers: Answer[]; job: Job };

    /** `n` calls at once, alternating nodes, every third a job; jobs are then waited for. */
    async function mixed(slug: string, key: string, balance: number, n: number) {
      const answers = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          i % 3 === 2
            ? submit(i % 2, key, `/page/${slug}/job-${i}`)
            : callCrawler(i % 2, key, `/page/${slug}/sync-${i}`),
        ),
      );
      const jobs = answers.filter((a): a is Job => 'id' in a);
      const sync = answers.filter((a): a is Answer => 'status' in a);
      await Promise.all(jobs.map((job) => settle(key, job)));
      load.set(slug, { key, balance, sync, jobs, refused: sync.filter((a) => a.status !== 200) });
    }

    /**
     * Per-second 2 and per-minute 5: a burst of twelve calls split over both nodes, then rounds of
     * one call per node, each in a new second, until a round is refused by the minute's cap.
     */
    async function capLoad(key: string) {
      const started = Date.now();
      const burst = await Promise.all(
        Array.from({ length: 12 }, (_, i) => callCrawler(i % 2, key, `/page/capped/b${i}`)),
      );
      const burstMs = Date.now() - started;
      const rounds: Answer[][] = [];
      for (let round = 0; round < 10; round++) {
        await sleep(1100);
        const answers = await Promise.all(
          [0, 1].map((i) => callCrawler(i, key, `/page/capped/r${round}-${i}`)),
        );
        rounds.push(answers);
        if (answers.every((a) => a.status === 401 && a.body.toString().includes('per_minute'))) break;
      }
      capped = { burst, burstMs, rounds };
      const all = [...burst, ...rounds.flat()];
      load.set('capped', {
        key,
        balance: 1000,
        sync: all,
        jobs: [],
        refused: all.filter((a) => a.status !== 200),
      });
    }

    /** A capture cached through node 0, asked again through node 1. */
    async function cacheLoad(key: string) {
      const query = {
        url: pageUrl('/shot/cached'),
        cache: 'true',
        viewport_width: '640',
        viewport_height: '400',
      };
      const miss = await call(0, key, '/v1/capture', query);
      const hit = await call(1, key, '/v1/capture', query);
      cache = { miss, hit };
      load.set('cacher', { key, balance: 1000, sync: [miss, hit], jobs: [], refused: [] });
    }

    /** A capture job submitted through node 0: its hosted file is read through node 1. */
    async function hostedLoad(key: string) {
      const query = {
        url: pageUrl('/shot/hosted'),
        is_async: 'true',
        viewport_width: '500',
        viewport_height: '300',
      };
      const res = await call(0, key, '/v1/capture', query);
      const job: Job = {
        id: (JSON.parse(res.body.toString()) as { job_id: string }).job_id,
        node: 0,
        path: '/shot/hosted',
      };
      await settle(key, job);
      const link = new URL(String(job.record?.result?.screenshot_url));
      const file = await fetch(`${node(1).url}${link.pathname}${link.search}`);
      hosted = {
        job,
        file: {
          node: 1,
          status: file.status,
          headers: file.headers,
          body: Buffer.from(await file.arrayBuffer()),
        },
      };
      load.set('hosting', { key, balance: 1000, sync: [], jobs: [job], refused: [] });
    }

    /**
     * One submission sent six times at once with one Idempotency-Key, three times through each
     * node, as a client that retries on another node (not knowing whether the first got there) would.
     */
    async function idempotentLoad(key: string) {
      const query = { query: pageUrl('/page/once'), is_async: 'true' };
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          call(i % 2, key, '/v1/website/crawler', query, { 'idempotency-key': 'scale-out-once' }),
        ),
      );
      const first = answers.find((a) => a.status === 202 && a.headers.get('idempotent-replayed') === null);
      if (first === undefined) throw new Error(`no first submission: ${answers.map((a) => a.status)}`);
      const id = (JSON.parse(first.body.toString()) as { job_id: string }).job_id;
      const job = await settle(key, { id, node: first.node, path: '/page/once' });
      once = { answers, job };
      load.set('once', {
        key,
        balance: 1000,
        sync: [],
        jobs: [job],
        refused: answers.filter((a) => a.status !== 202),
      });
    }

    beforeAll(async () => {
      const keys = {
        steady: await account('steady', { monthly_quota: 1000 }),
        // 3 + 2 + 2 = 7 units, drawn from the subscription, then the pack, then credits.
        shortA: await account('short-a', { monthly_quota: 3 }, { pack: 2, credits: 2 }),
        shortB: await account('short-b', { monthly_quota: 0 }, { credits: 5 }),
        capped: await account('capped', { monthly_quota: 1000, per_second: 2, per_minute: 5 }),
        cacher: await account('cacher', { monthly_quota: 1000 }),
        hosting: await account('hosting', { monthly_quota: 1000 }),
        once: await account('once', { monthly_quota: 1000 }),
      };
      await Promise.all([
        mixed('steady', keys.steady, 1000, 30),
        mixed('short-a', keys.shortA, 7, 24),
        mixed('short-b', keys.shortB, 5, 18),
        capLoad(keys.capped),
        cacheLoad(keys.cacher),
        hostedLoad(keys.hosting),
        idempotentLoad(keys.once),
      ]);
    });

    it('no overdraw and no double billing: per account, ledger units = sync 200s + completed jobs, within the balance', async () => {
      for (const [slug, { key, balance, sync, jobs, refused }] of load) {
        const successes =
          sync.filter((a) => a.status === 200).length +
          jobs.filter((j) => j.record?.status === 'completed').length;
        const totals = await ledger(slug);
        expect(totals.reserved, slug).toBe(0);
        expect(committed(totals), slug).toBe(successes);
        expect(successes, slug).toBeLessThanOrEqual(balance);
        expect((await usage(key)).total_used, slug).toBe(successes);
        // Every job accepted ran to completion; every refusal is the limit's own.
        expect(
          jobs.map((j) => j.record?.status),
          slug,
        ).toEqual(jobs.map(() => 'completed'));
        for (const answer of refused) expect([401, 402], `${slug}: ${answer.body}`).toContain(answer.status);
      }
      // The small balances were spent to the unit, across both nodes and both kinds of call.
      expect(await ledger('short-a')).toMatchObject({ committed: { subscription: 3, pack: 2, credit: 2 } });
      expect(await ledger('short-b')).toMatchObject({ committed: { subscription: 0, pack: 0, credit: 5 } });
      for (const slug of ['short-a', 'short-b']) {
        const { refused } = load.get(slug) ?? { refused: [] };
        expect(refused.length, slug).toBeGreaterThan(0);
        expect(new Set(refused.map((a) => a.node)).size, slug).toBe(2);
        for (const answer of refused) {
          expect(answer.status).toBe(402);
          expect(answer.body.toString()).toMatch(/"Insufficient credits: /);
        }
      }
    });

    it('per-second and per-minute caps hold across nodes', () => {
      const accepted = (answers: readonly Answer[]) => answers.filter((a) => a.status === 200).length;
      const statuses = (answers: readonly Answer[]) => answers.map((a) => `${a.node}:${a.status}`).join(' ');
      // The burst's calls were taken within burstMs: at most 2 in each second window it touched
      // (a window starts at its first call), whatever the machine's speed.
      const windows = Math.floor(capped.burstMs / 1000) + 1;
      expect(accepted(capped.burst), statuses(capped.burst)).toBeGreaterThanOrEqual(1);
      expect(accepted(capped.burst), `${statuses(capped.burst)} in ${capped.burstMs} ms`).toBeLessThanOrEqual(
        2 * windows,
      );
      for (const refusal of capped.burst.filter((a) => a.status !== 200)) {
        expect(refusal.status).toBe(401);
        expect(JSON.parse(refusal.body.toString())).toEqual({
          error: 'Rate limit exceeded for the API key: quota per_second',
        });
      }
      // All of it within one minute's window: exactly 5 accepted, then both nodes refuse.
      const all = [...capped.burst, ...capped.rounds.flat()];
      expect(accepted(all), statuses(all)).toBe(5);
      const last = capped.rounds.at(-1) ?? [];
      expect(last.map((a) => [a.node, a.status, a.headers.get('x-ratelimit-limit')])).toEqual([
        [0, 401, '5'],
        [1, 401, '5'],
      ]);
      for (const refusal of last) {
        expect(JSON.parse(refusal.body.toString())).toEqual({
          error: 'Rate limit exceeded for the API key: quota per_minute',
        });
      }
    });

    it('each job runs once: one fetch of its page, one run, one committed unit, one completion in the request log, one job for one Idempotency-Key', async () => {
      const jobs = [...load.values()].flatMap(({ jobs }) => jobs);
      expect(jobs.length).toBeGreaterThanOrEqual(10);
      expect(new Set(jobs.map((j) => j.node)).size).toBe(2);
      for (const job of jobs) expect(hits.get(job.path), job.path).toBe(1);
      const rows = await jobRows(jobs.map((j) => j.id));
      expect(rows).toHaveLength(jobs.length);
      for (const row of rows) expect([row.status, row.attempts], row.id).toEqual(['completed', 1]);
      const { rows: units } = await db.query<{ id: string; status: string }>(
        `SELECT id, status FROM ${table('reservations')} WHERE id = ANY($1)`,
        [rows.map((r) => r.reservation_id)],
      );
      expect(units.map((u) => u.status)).toEqual(rows.map(() => 'committed'));
      // Either node answers the same record, its result read from the shared store.
      for (const job of jobs) {
        const slug = [...load].find(([, l]) => l.jobs.includes(job))?.[0] ?? '';
        const key = load.get(slug)?.key ?? '';
        expect(await jobRecord(job.node, key, job.id)).toEqual(job.record);
      }
      // Six submissions through both nodes with one Idempotency-Key are one job, queued once.
      expect(once.answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202, 202]);
      expect(new Set(once.answers.map((a) => JSON.parse(a.body.toString()).job_id))).toEqual(
        new Set([once.job.id]),
      );
      expect(once.answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
      // The workers log each job's end once, as 201; the API nodes log each submission, as 202
      // (the five replays included).
      await until(
        async () =>
          (
            await db.query<{ status: number; n: string }>(
              `SELECT status, count(*) AS n FROM ${table('request_log')} WHERE status IN (201, 202) GROUP BY status ORDER BY status`,
            )
          ).rows.map((r) => [r.status, Number(r.n)]),
        (counts) =>
          JSON.stringify(counts) ===
          JSON.stringify([
            [201, jobs.length],
            [202, jobs.length + 5],
          ]),
      );
    });

    it('a result cached through one node is a hit on the other, billed like any call (docs/capture.md)', async () => {
      expect([cache.miss.status, cache.miss.headers.get('x-webcap-cache')]).toEqual([200, 'miss']);
      expect([cache.hit.status, cache.hit.headers.get('x-webcap-cache')]).toEqual([200, 'hit']);
      expect(cache.hit.body.equals(cache.miss.body)).toBe(true);
      expect(pngSize(cache.hit.body)).toEqual({ width: 640, height: 400 });
      expect(hits.get('/shot/cached')).toBe(1);
      // One unit each: the miss through its reservation, the hit drawn and committed in one step.
      expect(await ledger('cacher')).toEqual({
        committed: { subscription: 2, pack: 0, credit: 0 },
        reserved: 0,
        released: 0,
      });
      // A job's hosted file, rendered by a worker, is served by the node that did not take it.
      expect(hosted.job.record?.status).toBe('completed');
      expect(hosted.file.status).toBe(200);
      expect(pngSize(hosted.file.body)).toEqual({ width: 500, height: 300 });
    });
  });

  it('a call running longer than the hold is billed once: its node renews the hold through every sweep', async () => {
    const key = await account('lease', { monthly_quota: 10 });
    const slow = callCrawler(0, key, '/hold/lease');
    await until(
      async () => held.has('/hold/lease'),
      (arrived) => arrived,
    );
    const unit = async () =>
      (
        await db.query<{ id: string; status: string; expires_at: string }>(
          `SELECT r.id, r.status, r.expires_at FROM ${table('reservations')} r
           JOIN ${table('accounts')} a ON a.id = r.account_id WHERE a.slug = 'lease'`,
        )
      ).rows;
    const [reserved] = await unit();
    const firstExpiry = new Date(reserved?.expires_at ?? 0).getTime();
    // Past the hold it was reserved with, by more than a sweep of every process (each 500 ms).
    await sleep(firstExpiry - Date.now() + 2000);
    const during = await unit();
    expect(during).toEqual([expect.objectContaining({ id: reserved?.id, status: 'reserved' })]);
    expect(new Date(during[0]?.expires_at ?? 0).getTime()).toBeGreaterThan(Date.now());

    const res = held.get('/hold/lease');
    held.delete('/hold/lease');
    if (res !== undefined) answer(res, '/hold/lease');
    expect((await slow).status).toBe(200);
    expect(await ledger('lease')).toEqual({
      committed: { subscription: 1, pack: 0, credit: 0 },
      reserved: 0,
      released: 0,
    });
  });

  /** SIGKILL, resolved once the process is gone (its port free again). */
  function kill(child: ChildProcess): Promise<void> {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    return child.exitCode === null && child.signalCode === null ? exited : Promise.resolve();
  }

  it("a killed API node's in-flight synchronous calls are never billed: usage after = before + completed", async () => {
    const key = await account('inflight', { monthly_quota: 10 });
    const before = hanging.length;
    const inFlight = [0, 1, 2].map((i) => callCrawler(0, key, `/hang/${i}`).catch((error: unknown) => error));
    await until(
      async () => hanging.length,
      (n) => n === before + 3,
    );
    const done = await Promise.all([
      callCrawler(1, key, '/page/inflight/1'),
      callCrawler(0, key, '/page/inflight/2'),
    ]);
    expect(done.map((a) => a.status)).toEqual([200, 200]);
    // Three units held by the calls on node 0, two committed.
    expect(await ledger('inflight')).toEqual({
      committed: { subscription: 2, pack: 0, credit: 0 },
      reserved: 3,
      released: 0,
    });
    const port = new URL(node(0).url).port;
    await kill(node(0).child);
    try {
      for (const outcome of await Promise.all(inFlight)) expect(outcome).toBeInstanceOf(TypeError);
      // Node 1's and the workers' sweeps release them once their hold has passed.
      expect(
        await until(
          () => ledger('inflight'),
          (totals) => totals.reserved === 0,
        ),
      ).toEqual({ committed: { subscription: 2, pack: 0, credit: 0 }, reserved: 0, released: 3 });
      expect(await usage(key)).toMatchObject({ total_used: 2, remaining: 8 });
    } finally {
      // Restarted whatever happened: the proofs after this one need both nodes.
      api[0] = await startServer(apiEnv(port));
    }
    expect((await callCrawler(0, key, '/page/inflight/3')).status).toBe(200);
    expect(await usage(key)).toMatchObject({ total_used: 3, remaining: 7 });
  });

  it("a killed worker's job is taken over by the other worker and completed once, billed once", async () => {
    const key = await account('takeover', { monthly_quota: 10 });
    const completedBy = async (worker: WorkerProcess) => {
      const res = await fetch(`${worker.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
      const line = (await res.text())
        .split('\n')
        .find((l) => l.startsWith('webcap_jobs_total{engine="website-crawler",outcome="completed"}'));
      return Number(line?.split(' ')[1] ?? 0);
    };
    const [dying, surviving] = workers as [WorkerProcess, WorkerProcess];
    const survivorBefore = await completedBy(surviving);
    const answerHeld = () => {
      for (const [path, res] of held) {
        held.delete(path);
        if (!res.destroyed) answer(res, path);
      }
    };
    try {
      // One job at a time per worker: the two held jobs are on the two workers.
      const jobs = [await submitted(0, key, '/hold/a'), await submitted(1, key, '/hold/b')];
      await until(
        async () => held.size,
        (n) => n === 2,
      );
      expect((await jobRows(jobs.map((j) => j.id))).map((r) => r.status)).toEqual(['running', 'running']);
      await kill(dying.child);
      // The survivor's page answers; the dead worker's connection is gone with it.
      answerHeld();
      await Promise.all(jobs.map((job) => settle(key, job)));
      for (const job of jobs) {
        expect(job.record?.status).toBe('completed');
        expect(job.record?.result).toMatchObject({ success: true, data: { statusCode: 200 } });
      }
      // The dead worker's job ran twice (its page asked twice) and completed once, on the survivor.
      const rows = await jobRows(jobs.map((j) => j.id));
      expect(rows.map((r) => r.attempts).sort()).toEqual([1, 2]);
      for (const job of jobs) {
        expect(hits.get(job.path), job.path).toBe(rows.find((r) => r.id === job.id)?.attempts);
      }
      expect((await completedBy(surviving)) - survivorBefore).toBe(2);
      expect(await ledger('takeover')).toEqual({
        committed: { subscription: 2, pack: 0, credit: 0 },
        reserved: 0,
        released: 0,
      });
    } finally {
      // Whatever happened, no page stays held and two workers run for the proof after this one.
      answerHeld();
      if (dying.child.exitCode === null && dying.child.signalCode === null) await kill(dying.child);
      workers[0] = await startWorker(workerEnv());
    }
  });

  describe('a rolling restart of the API nodes under load', () => {
    /** One call as a load balancer makes it: every answer and connection failure on the way, then the last answer. */
    interface Balanced {
      readonly path: string;
      readonly tries: readonly string[];
      /** The 503s it was answered on the way. */
      readonly refusals: readonly Answer[];
      readonly final: Answer | null;
    }

    /** How a try ended: its status, or the connection error's code. */
    function failure(error: unknown): string {
      const cause = (error as { cause?: { code?: string } }).cause;
      return cause?.code ?? String(error);
    }

    /**
     * Tries the nodes in turn from `start`, on to the other one after a 503 or a connection that
     * failed, as a load balancer retries a request no node took; at most 40 tries.
     */
    async function balanced(start: number, key: string, path: string, isAsync: boolean): Promise<Balanced> {
      const tries: string[] = [];
      const refusals: Answer[] = [];
      const query: Record<string, string> = {
        query: pageUrl(path),
        ...(isAsync ? { is_async: 'true' } : {}),
      };
      for (let attempt = 0; attempt < 40; attempt++) {
        try {
          const answer = await call((start + attempt) % 2, key, '/v1/website/crawler', query);
          tries.push(String(answer.status));
          if (answer.status !== 503) return { path, tries, refusals, final: answer };
          refusals.push(answer);
        } catch (error) {
          tries.push(failure(error));
        }
        await sleep(50);
      }
      return { path, tries, refusals, final: null };
    }

    it('fails no call beyond 503s and refused connections, which a client retrying on the other node never sees fail', async () => {
      const key = await account('rolling', { monthly_quota: 10_000 });
      const done: Balanced[] = [];
      let next = 0;
      let stopping = false;
      const lane = async () => {
        while (!stopping) {
          const n = next++;
          done.push(await balanced(n % 2, key, `/page/rolling/${n}`, n % 4 === 3));
        }
      };
      const lanes = [lane(), lane(), lane(), lane()];
      const answeredBy = (index: number, from: number) =>
        until(
          async () =>
            done.slice(from).filter((c) => c.final?.node === index && c.final.status === 200).length,
          (n) => n >= 8,
        );
      // Caught at once: a failure before they are awaited must not leave a rejection unhandled.
      const inFlight: Promise<Answer | unknown>[] = [];
      const exits: (number | null)[] = [];
      await answeredBy(0, 0);
      for (const index of [0, 1]) {
        // A call the site holds for a while is in flight on the node when it is told to stop.
        const slow = `/slow/${index}`;
        inFlight.push(callCrawler(index, key, slow).catch((error: unknown) => error));
        await until(
          async () => hits.get(slow) ?? 0,
          (n) => n === 1,
        );
        const port = new URL(node(index).url).port;
        exits.push(await node(index).stop());
        const from = done.length;
        api[index] = await startServer(apiEnv(port));
        await answeredBy(index, from);
      }
      stopping = true;
      await Promise.all(lanes);

      const tries = done.flatMap((c) => c.tries);
      const kinds = Object.fromEntries(
        [...new Set(tries)].map((kind) => [kind, tries.filter((t) => t === kind).length]),
      );
      expect(exits).toEqual([0, 0]);
      // While a node restarted, the calls sent to it were refused and retried on the other one.
      expect(kinds.ECONNREFUSED, JSON.stringify(kinds)).toBeGreaterThan(0);
      for (const kind of Object.keys(kinds)) {
        expect(['200', '202', '503', 'ECONNREFUSED'], JSON.stringify(kinds)).toContain(kind);
      }
      // The calls in flight at each SIGTERM were answered by the node that was stopping.
      // Only the 503s of docs/drain.md, each saying when to come back: a submission in flight
      // while the node drains is still queued (the queue takes submissions until the HTTP side
      // has drained), not refused with "the job queue is unavailable".
      const refusals = done.flatMap((c) => c.refusals);
      for (const refusal of refusals) {
        expect([
          '{"error":"Service Unavailable: draining"}',
          '{"error":"Service Unavailable: the server is shutting down"}',
        ]).toContain(refusal.body.toString());
        expect(Number(refusal.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      expect((await Promise.all(inFlight)).map((a) => [(a as Answer).node, (a as Answer).status])).toEqual([
        [0, 200],
        [1, 200],
      ]);
      // Every call succeeded, and ran once: a 503 or a refused connection never reached the engine.
      expect(done.filter((c) => c.final === null || ![200, 202].includes(c.final.status))).toEqual([]);
      for (const c of done.filter((c) => c.final?.status === 200)) expect(hits.get(c.path), c.path).toBe(1);
      const jobs = done
        .filter((c) => c.final?.status === 202)
        .map((c, i) => ({
          id: (JSON.parse(c.final?.body.toString() ?? '{}') as { job_id: string }).job_id,
          node: i % 2,
          path: c.path,
        }));
      await Promise.all(jobs.map((job) => settle(key, job)));
      expect(jobs.map((j: Job) => j.record?.status)).toEqual(jobs.map(() => 'completed'));
      for (const job of jobs) expect(hits.get(job.path), job.path).toBe(1);
      const sync = done.filter((c) => c.final?.status === 200).length + inFlight.length;
      const totals = await ledger('rolling');
      expect(totals).toMatchObject({
        committed: { subscription: sync + jobs.length, pack: 0, credit: 0 },
        reserved: 0,
      });
      expect(totals.released).toBeLessThanOrEqual(refusals.length);
    });
  });
});
