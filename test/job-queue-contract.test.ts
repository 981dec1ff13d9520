import { createHmac, randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { InjectOptions } from 'fastify';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../src/billing/accounts.js';
import { createKey, updateKey } from '../src/billing/keys.js';
import type { QueueBackend } from '../src/jobs/queue.js';
import { type DialectName, dropDatabase } from './helpers/databases.js';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import {
  ADMIN_TOKEN,
  newAccountKey,
  reservationsOf,
  startTestRuntime,
  type TestRuntime,
} from './helpers/runtime.js';
import { startTcpForwarder } from './helpers/tcp-forwarder.js';

/*
 * The job queue's contract (src/jobs/queue.ts): the same cases against each adapter, as
 * test/blobs.test.ts runs its cases against each blob store. A job is submitted, runs once and is
 * billed once; a queued one can be cancelled or withdrawn and then never runs; webhooks are
 * delivered signed; an Idempotency-Key names one job; a job whose claim the database failed is
 * delivered again; a process that stops hands its job back; a process that dies mid-job leaves
 * it to what its adapter's design says (SUBJECTS, `died`).
 * Through HTTP on in-process runtimes (app.inject), with real databases and a real Redis; the
 * pages are served by the test on 127.0.0.1. Every wait polls for an event, bounded generously;
 * the only real time waited for is BullMQ's lock and stalled check in the death cases and the 5 s
 * before a unit the database failed is delivered again (a queue's timer), which no injected clock
 * moves.
 */

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// Runtimes started and stopped within a test, and a lease to lapse, on a loaded 2-core machine.
vi.setConfig({ testTimeout: 180_000 });

// biome-ignore lint/suspicious/noExplicitAny: tests read the fields of JSON answers one by one
type Json = Record<string, any>;

/** How a job ends: its record's status and error, and how many runs fetched its page. */
interface Ending {
  readonly status: 'completed' | 'failed';
  readonly error: { status: number; error: string } | null;
  readonly runs: number;
}

interface Subject {
  readonly name: string;
  readonly dialect: DialectName;
  readonly backend: QueueBackend;
  /**
   * What becomes of a job whose process died while running it, by design (docs/jobs.md,
   * "Queues"), when JOB_MAX_ATTEMPTS leaves it another run and when it leaves none.
   */
  readonly died: { readonly runsLeft: Ending; readonly noRunLeft: Ending };
}

/** The in-process queue has one process: its restart fails the runs it finds interrupted, and never runs them again. */
const RESTART_FAILS: Subject['died'] = {
  runsLeft: {
    status: 'failed',
    error: { status: 500, error: 'Internal Error: interrupted by a restart' },
    runs: 1,
  },
  noRunLeft: {
    status: 'failed',
    error: { status: 500, error: 'Internal Error: interrupted by a restart' },
    runs: 1,
  },
};

/**
 * BullMQ redelivers the job of a worker that stopped renewing its lock to another worker, which
 * runs it again once the lease lapsed, while JOB_MAX_ATTEMPTS allows; past it, the job fails.
 */
const ANOTHER_WORKER_RUNS_IT: Subject['died'] = {
  runsLeft: { status: 'completed', error: null, runs: 2 },
  noRunLeft: {
    status: 'failed',
    error: { status: 500, error: 'Internal Error: the job stalled too often' },
    runs: 1,
  },
};

const SUBJECTS: readonly Subject[] = [
  { name: 'in-process queue on SQLite', dialect: 'sqlite', backend: 'in-process', died: RESTART_FAILS },
  { name: 'in-process queue on PostgreSQL', dialect: 'postgres', backend: 'in-process', died: RESTART_FAILS },
  {
    name: 'BullMQ on Redis with PostgreSQL',
    dialect: 'postgres',
    backend: 'bullmq',
    died: ANOTHER_WORKER_RUNS_IT,
  },
  { name: 'BullMQ on Redis with SQLite', dialect: 'sqlite', backend: 'bullmq', died: ANOTHER_WORKER_RUNS_IT },
];

const PAGE_HTML =
  '<!doctype html><html><head><title>Job page</title><meta name="description" content="A page for jobs"></head><body style="margin:0;background:#2060c0"><h1>Hello jobs</h1><p>Call us at +1 415 555 0100.</p></body></html>';

/** Each BullMQ queue of this file, removed from Redis after it. */
const queueNames: string[] = [];
const newQueueName = () => {
  const name = `contract-${randomBytes(6).toString('hex')}`;
  queueNames.push(name);
  return name;
};

let site: TestServer;
let receiver: TestServer;
/** Requests per path the site was asked. */
const hits = new Map<string, number>();
/** Answers the site holds back, each waiting for the test to let it go. */
let held: { path: string; release: () => void }[] = [];
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let receiverFailures = 0;

beforeAll(async () => {
  site = await startServer((req, res) => {
    res.sendDate = false;
    const { pathname } = new URL(req.url ?? '/', 'http://x');
    const count = (hits.get(pathname) ?? 0) + 1;
    hits.set(pathname, count);
    const answer = () => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE_HTML);
    };
    // `/…/hold/…` answers when the test lets it: a job that stays running as long as the test
    // needs. `/…/once/…` hangs the first time only: the run of a process that dies hangs, the
    // run that takes over completes.
    if (pathname.includes('/hold/') || (pathname.includes('/once/') && count === 1)) {
      held.push({ path: pathname, release: answer });
      return;
    }
    answer();
  });
  receiver = await startServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (receiverFailures > 0) {
        receiverFailures -= 1;
        return res.writeHead(500).end('try again');
      }
      res.writeHead(204).end();
    });
  });
});
afterAll(async () => {
  for (const { release } of held.splice(0)) release();
  await site?.close();
  await receiver?.close();
  const redis = new Redis(TEST_REDIS_URL);
  for (const name of queueNames) {
    const keys = await redis.keys(`bull:${name}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

/** Polls until `ok`; gives up (a stuck test, not a slow machine) after two minutes. */
async function until<T>(read: () => Promise<T> | T, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Lets every held answer of paths starting with `prefix` go. */
function release(prefix: string): void {
  const [go, keep] = [
    held.filter((h) => h.path.startsWith(prefix)),
    held.filter((h) => !h.path.startsWith(prefix)),
  ];
  held = keep;
  for (const { release: answer } of go) answer();
}

describe.each(SUBJECTS.map((subject, index) => [subject.name, subject, index] as const))(
  'job queue contract: %s',
  (_name, subject, index) => {
    /** This subject's pages: paths of its own, so that the site's counts are its alone. */
    const prefix = `/s${index}`;
    const page = (path = '/page') => `http://site.example:${site.port}${prefix}${path}`;
    const hitsOf = (path: string) => hits.get(`${prefix}${path}`) ?? 0;

    /**
     * A runtime of this subject: JOB_CONCURRENCY 1, so that a held job keeps the next ones queued.
     * For BullMQ, `queueName` and `redisUrl` say which queue and through which connection.
     */
    const start = (
      options: {
        sharing?: TestRuntime;
        clock?: () => Date;
        env?: Record<string, string>;
        queueName?: string;
        redisUrl?: string;
      } = {},
    ) =>
      startTestRuntime(subject.dialect, {
        sharing: options.sharing,
        clock: options.clock,
        env: {
          WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port},127.0.0.1/32:${receiver.port}`,
          // Held pages answer when the test says, however long that takes on a loaded machine.
          FETCH_TIMEOUT_MS: '120000',
          FETCH_HEADERS_TIMEOUT_MS: '120000',
          JOB_TIMEOUT_MS: '180000',
          JOB_CONCURRENCY: '1',
          WEBHOOK_BACKOFF_MS: '50',
          // Long enough that a loaded machine never ends the retries of the webhook cases.
          WEBHOOK_RETRY_WINDOW_MS: '120000',
          ...(subject.backend === 'bullmq'
            ? {
                REDIS_URL: options.redisUrl ?? TEST_REDIS_URL,
                JOB_QUEUE_NAME: options.queueName ?? newQueueName(),
              }
            : {}),
          ...options.env,
        },
        resolver: tableResolver({ 'site.example': ['127.0.0.1'] }),
      });

    let t: TestRuntime;
    let key: string;
    let otherKey: string;

    beforeAll(async () => {
      t = await start();
      expect(t.runtime.jobs.backend).toBe(subject.backend);
      key = await newAccountKey(t, 'jobs', 1000);
      otherKey = await newAccountKey(t, 'other', 1000);
    });
    afterAll(async () => {
      release(`${prefix}/`);
      await t?.close();
    });

    const inject = (options: InjectOptions, on = t) => on.runtime.app.inject(options);
    const submitCrawler = (
      query: Record<string, string>,
      headers: Record<string, string> = {},
      as = key,
      on = t,
    ) =>
      inject(
        {
          url: '/v1/website/crawler',
          query: { is_async: 'true', ...query },
          headers: { 'x-api-key': as, ...headers },
        },
        on,
      );
    const ended = (r: Json) => r.status === 'completed' || r.status === 'failed';

    async function poll(id: string, done = ended, as = key, on = t) {
      try {
        return await until(async () => {
          const res = await inject({ url: `/jobs/${id}`, headers: { 'x-api-key': as } }, on);
          expect(res.statusCode).toBe(200);
          return res.json() as Json;
        }, done);
      } catch (error) {
        // Why a job never ended is in the runtime's warnings, which a CI log shows only here.
        const warnings = on.logs.filter((line) => /"level":(40|50|60)/.test(line)).slice(-10);
        throw new Error(`${(error as Error).message}\nlast warnings:\n${warnings.join('')}`);
      }
    }

    async function logRows(path: string) {
      const { db } = t.runtime.store;
      return db
        .selectFrom('request_log')
        .select(['status', 'billed', 'path'])
        .where('path', '=', path)
        .execute();
    }

    /** Holds the one job slot with a job on a held page until the returned function is called. */
    async function occupy(): Promise<{ id: string; release: () => Promise<Json> }> {
      const path = `/hold/${randomBytes(4).toString('hex')}`;
      const res = await submitCrawler({ query: page(path) });
      expect(res.statusCode, res.body).toBe(202);
      const id = res.json().job_id as string;
      await until(
        () => hitsOf(path),
        (n) => n === 1,
      );
      return {
        id,
        release: async () => {
          release(`${prefix}${path}`);
          return poll(id);
        },
      };
    }

    /**
     * Waits until the worker has been handed every job submitted before now: a job submitted
     * after them completes (one slot, handed over in submission order on both queues).
     */
    async function drained(): Promise<void> {
      const res = await submitCrawler({ query: page(`/marker/${randomBytes(4).toString('hex')}`) });
      expect((await poll(res.json().job_id)).status).toBe('completed');
    }

    describe('submit and run once', () => {
      it('a crawler job answers 202, runs, and its result is the synchronous body; billed once, at completion', async () => {
        const before = await reservationsOf(t, 'jobs');
        const sync = await inject({
          url: '/v1/website/crawler',
          query: { query: page() },
          headers: { 'x-api-key': key },
        });
        expect(sync.statusCode).toBe(200);
        const holder = await occupy();
        const res = await submitCrawler({ query: page() });
        expect(res.statusCode, res.body).toBe(202);
        const accepted = res.json();
        expect(accepted).toEqual({
          success: true,
          job_id: expect.stringMatching(/^job_[A-Za-z0-9_-]+$/),
          status: 'queued',
          status_url: `/jobs/${accepted.job_id}`,
        });
        expect(res.headers.location).toBe(`/jobs/${accepted.job_id}`);
        // Queued behind the holder: reserved, not billed.
        const queued = await poll(accepted.job_id, (r) => r.status === 'queued');
        expect(queued).toMatchObject({
          status: 'queued',
          endpoint: '/v1/website/crawler',
          result: null,
          error: null,
          started_at: null,
        });
        const during = await reservationsOf(t, 'jobs');
        expect(during.committed - before.committed).toBe(1); // the synchronous call only
        expect(during.reserved - before.reserved).toBe(2); // the holder and the queued job
        await holder.release();
        const done = await poll(accepted.job_id);
        expect(done.status).toBe('completed');
        expect(done.result).toEqual(sync.json());
        expect(done.error).toBeNull();
        expect(Date.parse(done.finished_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));
        const after = await reservationsOf(t, 'jobs');
        expect(after.committed - before.committed).toBe(3);
        expect(after.reserved - before.reserved).toBe(0);
        // The synchronous call and the job each fetched the page once.
        expect(hitsOf('/page')).toBe(2);
        // The request log records the submission as 202 (free) and the completion as 201 (billed).
        const rows = await until(
          () => logRows('/v1/website/crawler'),
          (r) => r.filter((row) => row.status === 201).length >= 2,
        );
        expect(rows.filter((row) => row.status === 202).every((row) => row.billed === 0)).toBe(true);
        expect(rows.filter((row) => row.status === 201).every((row) => row.billed === 1)).toBe(true);
      });

      it('twenty jobs submitted at once each run exactly once and are billed once each', async () => {
        const before = await reservationsOf(t, 'jobs');
        const submitted = await Promise.all(
          Array.from({ length: 20 }, (_, i) => submitCrawler({ query: page(`/many/${i}`) })),
        );
        expect(submitted.map((res) => res.statusCode)).toEqual(Array(20).fill(202));
        const ids = submitted.map((res) => res.json().job_id as string);
        expect(new Set(ids).size).toBe(20);
        for (const id of ids) expect((await poll(id)).status).toBe('completed');
        for (let i = 0; i < 20; i++) expect(hitsOf(`/many/${i}`), `/many/${i}`).toBe(1);
        const rows = await t.runtime.store.db
          .selectFrom('jobs')
          .select('attempts')
          .where('id', 'in', ids)
          .execute();
        expect(rows.map((row) => row.attempts)).toEqual(Array(20).fill(1));
        const after = await reservationsOf(t, 'jobs');
        expect(after.committed - before.committed).toBe(20);
        expect(after.reserved - before.reserved).toBe(0);
      });
    });

    describe('cancel', () => {
      it('DELETE cancels a queued job and releases its unit; a finished job cannot be cancelled', async () => {
        const holder = await occupy();
        const res = await submitCrawler({ query: page('/cancelled') });
        const id = res.json().job_id;
        const before = await reservationsOf(t, 'jobs');
        const cancelled = await inject({
          method: 'DELETE',
          url: `/jobs/${id}`,
          headers: { 'x-api-key': key },
        });
        expect(cancelled.statusCode).toBe(200);
        expect(cancelled.json()).toMatchObject({
          status: 'failed',
          error: { status: 409, error: 'Cancelled: the job was cancelled before it ran' },
        });
        const after = await reservationsOf(t, 'jobs');
        expect(after.released - before.released).toBe(1);
        expect(after.reserved - before.reserved).toBe(-1);
        await holder.release();
        const again = await inject({ method: 'DELETE', url: `/jobs/${id}`, headers: { 'x-api-key': key } });
        expect(again.statusCode).toBe(409);
        expect(again.json()).toEqual({ error: 'Conflict: the job is failed and can no longer be cancelled' });
        const finished = await inject({
          method: 'DELETE',
          url: `/jobs/${holder.id}`,
          headers: { 'x-api-key': key },
        });
        expect(finished.statusCode).toBe(409);
        expect(finished.json().error).toMatch(/completed/);
        // The cancelled job never ran, though the queue has handed its id to the worker by now.
        await drained();
        expect((await poll(id)).started_at).toBeNull();
        expect(hitsOf('/cancelled')).toBe(0);
        expect(await reservationsOf(t, 'jobs')).toMatchObject({ released: after.released, reserved: 0 });
      });
    });

    describe("withdraw: a job runs on its submitter's authority", () => {
      const admin = (method: 'PATCH' | 'POST', url: string, payload?: Json) =>
        inject({ method, url, payload, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

      /** A new account with two keys; returns the keys' plaintexts and ids. */
      async function twoKeys(slug: string) {
        const { db } = t.runtime.store;
        await createAccount(db, { name: slug, slug, monthlyQuota: 100 }, new Date());
        const first = await createKey(db, { accountSlug: slug }, new Date());
        const second = await createKey(db, { accountSlug: slug }, new Date());
        return { first: first.plaintext, firstId: first.key.id, second: second.plaintext };
      }

      const submitAs = async (as: string, path = '/page') => {
        const res = await submitCrawler({ query: page(path) }, {}, as);
        expect(res.statusCode, res.body).toBe(202);
        return res.json().job_id as string;
      };

      it("revoking a key cancels its queued jobs and releases their units; a running one finishes, billed; the account's other key polls them", async () => {
        const { first, firstId, second } = await twoKeys('revoked');
        const running = await submitAs(first, '/hold/revoked');
        await until(
          () => hitsOf('/hold/revoked'),
          (n) => n === 1,
        );
        const queued = await submitAs(first, '/of-revoked');
        expect(await reservationsOf(t, 'revoked')).toEqual({ reserved: 2, committed: 0, released: 0 });

        expect((await admin('POST', `/admin/v1/keys/${firstId}/revoke`)).statusCode).toBe(200);
        // Cancelled by the revocation itself, before any worker looks at it.
        const record = await poll(queued, undefined, second);
        expect(record).toMatchObject({
          status: 'failed',
          started_at: null,
          error: {
            status: 401,
            error:
              'Invalid API Key: the key that submitted the job was revoked or deactivated; the job did not run',
          },
        });
        expect(await reservationsOf(t, 'revoked')).toEqual({ reserved: 1, committed: 0, released: 1 });
        // The revoked key itself can poll nothing.
        const refused = await inject({ url: `/jobs/${queued}`, headers: { 'x-api-key': first } });
        expect(refused.statusCode).toBe(401);
        expect(refused.json()).toEqual({ error: 'Invalid API Key: key is inactive' });

        release(`${prefix}/hold/revoked`);
        expect((await poll(running, undefined, second)).status).toBe('completed');
        expect(await reservationsOf(t, 'revoked')).toEqual({ reserved: 0, committed: 1, released: 1 });
        await drained();
        expect(hitsOf('/of-revoked')).toBe(0);
      });

      it('deactivating an account cancels its queued jobs; reactivated, it sees why they failed', async () => {
        const { first } = await twoKeys('deactivated');
        const holder = await occupy();
        const queued = await submitAs(first, '/of-deactivated');
        expect((await admin('PATCH', '/admin/v1/accounts/deactivated', { active: false })).statusCode).toBe(
          200,
        );
        expect(await reservationsOf(t, 'deactivated')).toEqual({ reserved: 0, committed: 0, released: 1 });
        const refused = await inject({ url: `/jobs/${queued}`, headers: { 'x-api-key': first } });
        expect(refused.statusCode).toBe(403);
        expect(refused.json()).toEqual({ error: 'Forbidden: account deactivated' });

        await holder.release();
        expect((await admin('PATCH', '/admin/v1/accounts/deactivated', { active: true })).statusCode).toBe(
          200,
        );
        expect(await poll(queued, undefined, first)).toMatchObject({
          status: 'failed',
          started_at: null,
          error: { status: 403, error: 'Forbidden: the account was deactivated; the job did not run' },
        });
        expect(await reservationsOf(t, 'deactivated')).toEqual({ reserved: 0, committed: 0, released: 1 });
        await drained();
        expect(hitsOf('/of-deactivated')).toBe(0);
      });

      it('a key withdrawn without the admin API (deactivated in the database) is checked when the job starts', async () => {
        const { first, firstId, second } = await twoKeys('checked');
        const holder = await occupy();
        const queued = await submitAs(first, '/of-checked');
        await updateKey(t.runtime.store.db, firstId, { active: false }, new Date());
        await holder.release();
        expect(await poll(queued, undefined, second)).toMatchObject({
          status: 'failed',
          error: {
            status: 401,
            error:
              'Invalid API Key: the key that submitted the job was revoked or deactivated; the job did not run',
          },
        });
        expect(await reservationsOf(t, 'checked')).toEqual({ reserved: 0, committed: 0, released: 1 });
        expect(hitsOf('/of-checked')).toBe(0);
        // The request log (written in batches) records the job's end as its 401, unbilled.
        await until(
          () => logRows('/v1/website/crawler'),
          (rows) => rows.some((row) => row.status === 401 && row.billed === 0),
        );
      });
    });

    describe('webhooks', () => {
      it('delivers the signed job record, retrying a failing receiver, and records each attempt', async () => {
        const admin = await inject({
          url: '/admin/v1/accounts/jobs/webhook-secret',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        expect(admin.statusCode).toBe(200);
        const secret = admin.json().webhook_secret as string;
        expect(secret).toMatch(/^whsec_/);
        received.length = 0;
        receiverFailures = 2;
        const res = await submitCrawler({
          query: page(),
          webhook_url: `http://127.0.0.1:${receiver.port}/hook`,
        });
        expect(res.statusCode, res.body).toBe(202);
        const id = res.json().job_id;
        const record = await poll(id, (r) => r.webhook?.state === 'delivered');
        expect(record.webhook.attempts.map((a: Json) => a.status)).toEqual([500, 500, 204]);
        expect(received).toHaveLength(3);
        const last = received[2];
        const signature = String(last?.headers['webcap-signature']);
        const [, timestamp, mac] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
        const expected = createHmac('sha256', secret).update(`${timestamp}.${last?.body}`).digest('hex');
        expect(mac).toBe(expected);
        expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
        const delivered = JSON.parse(last?.body ?? '{}');
        expect(delivered).toMatchObject({ job_id: id, status: 'completed', result: { success: true } });
        expect(last?.headers['webcap-job-id']).toBe(id);
      });

      it('a rotated secret signs the next deliveries', async () => {
        const rotated = await inject({
          method: 'POST',
          url: '/admin/v1/accounts/jobs/webhook-secret/rotate',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        expect(rotated.statusCode).toBe(200);
        const secret = rotated.json().webhook_secret as string;
        received.length = 0;
        const res = await submitCrawler({
          query: page(),
          webhook_url: `http://127.0.0.1:${receiver.port}/hook`,
        });
        await poll(res.json().job_id, (r) => r.webhook?.state === 'delivered');
        const hit = received[0];
        const [, timestamp, mac] =
          /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hit?.headers['webcap-signature'])) ?? [];
        expect(mac).toBe(createHmac('sha256', secret).update(`${timestamp}.${hit?.body}`).digest('hex'));
      });

      it('a cancelled job is delivered too, failed, once', async () => {
        const holder = await occupy();
        received.length = 0;
        const res = await submitCrawler({
          query: page('/cancelled-hooked'),
          webhook_url: `http://127.0.0.1:${receiver.port}/hook`,
        });
        const id = res.json().job_id;
        expect(
          (await inject({ method: 'DELETE', url: `/jobs/${id}`, headers: { 'x-api-key': key } })).statusCode,
        ).toBe(200);
        const record = await poll(id, (r) => r.webhook?.state === 'delivered');
        expect(record.webhook.attempts.map((a: Json) => a.status)).toEqual([204]);
        await holder.release();
        await drained();
        expect(received.filter((hit) => hit.headers['webcap-job-id'] === id)).toHaveLength(1);
        expect(JSON.parse(received[0]?.body ?? '{}')).toMatchObject({
          job_id: id,
          status: 'failed',
          error: { status: 409 },
        });
        expect(hitsOf('/cancelled-hooked')).toBe(0);
      });
    });

    describe('Idempotency-Key', () => {
      it('the same submission returns the same job, billed once; other parameters are a 400', async () => {
        const before = await reservationsOf(t, 'jobs');
        const headers = { 'idempotency-key': 'order-42' };
        const first = await submitCrawler({ query: page() }, headers);
        const second = await submitCrawler({ query: page() }, headers);
        expect(first.statusCode).toBe(202);
        expect(second.statusCode).toBe(202);
        expect(second.json().job_id).toBe(first.json().job_id);
        expect(second.headers['idempotent-replayed']).toBe('true');
        const different = await submitCrawler({ query: page('/other') }, headers);
        expect(different.statusCode).toBe(400);
        expect(different.json().error).toMatch(/Idempotency-Key/);
        await poll(first.json().job_id);
        const third = await submitCrawler({ query: page() }, headers);
        expect(third.json()).toMatchObject({ job_id: first.json().job_id, status: 'completed' });
        const after = await reservationsOf(t, 'jobs');
        expect(after.committed - before.committed).toBe(1);
        // Another account may use the same key for its own job.
        const other = await submitCrawler({ query: page() }, headers, otherKey);
        expect(other.statusCode).toBe(202);
        expect(other.json().job_id).not.toBe(first.json().job_id);
        expect((await poll(other.json().job_id, undefined, otherKey)).status).toBe('completed');
      });

      it('concurrent submissions with one Idempotency-Key make one job, run once', async () => {
        const before = await reservationsOf(t, 'jobs');
        const all = await Promise.all(
          Array.from({ length: 8 }, () =>
            submitCrawler({ query: page('/burst') }, { 'idempotency-key': 'burst-1' }),
          ),
        );
        const ids = new Set(all.map((res) => res.json().job_id));
        expect(all.map((res) => res.statusCode)).toEqual(Array(8).fill(202));
        expect(ids.size).toBe(1);
        await poll([...ids][0] as string);
        const after = await reservationsOf(t, 'jobs');
        expect(after.committed - before.committed).toBe(1);
        expect(after.reserved).toBe(0);
        await drained();
        expect(hitsOf('/burst')).toBe(1);
      });
    });

    describe('a run the database fails', () => {
      /** Makes the database refuse every claim of a queued job (a trigger), or stops it. */
      async function refuseClaims(refuse: boolean): Promise<void> {
        const { db } = t.runtime.store;
        if (!refuse) {
          await sql`drop trigger refuse_claims${sql.raw(subject.dialect === 'postgres' ? ' on jobs' : '')}`.execute(
            db,
          );
          return;
        }
        if (subject.dialect === 'sqlite') {
          await sql`create trigger refuse_claims before update of status on jobs
            when new.status = 'running' and old.status = 'queued'
            begin select raise(abort, 'claims refused by the test'); end`.execute(db);
          return;
        }
        await sql`create or replace function refuse_claims() returns trigger language plpgsql as
          $$ begin raise exception 'claims refused by the test'; end $$`.execute(db);
        await sql`create trigger refuse_claims before update on jobs for each row
          when (new.status = 'running' and old.status = 'queued') execute function refuse_claims()`.execute(
          db,
        );
      }

      it('a job whose claim failed is delivered again, and runs once the database answers, billed once', async () => {
        const as = await newAccountKey(t, 'claim-fails', 10);
        await refuseClaims(true);
        let refusing = true;
        try {
          const res = await submitCrawler({ query: page('/claim-fails') }, {}, as);
          expect(res.statusCode, res.body).toBe(202);
          const id = res.json().job_id as string;
          await until(
            () => t.logs.some((line) => line.includes('a run failed on the database') && line.includes(id)),
            (failed) => failed,
          );
          expect((await poll(id, () => true, as)).status).toBe('queued');
          await refuseClaims(false);
          refusing = false;
          expect(await poll(id, ended, as)).toMatchObject({ status: 'completed', error: null });
          expect(hitsOf('/claim-fails')).toBe(1);
          expect(await reservationsOf(t, 'claim-fails')).toEqual({ reserved: 0, committed: 1, released: 0 });
        } finally {
          if (refusing) await refuseClaims(false);
        }
      });
    });

    describe('a process that stops, and one that dies, mid-job', () => {
      it('a stopping process hands its running job back; the next process runs it, billed once, the run not counted', async () => {
        const queueName = newQueueName();
        const first = await start({ queueName, env: { JOB_SHUTDOWN_GRACE_MS: '0' } });
        let firstOpen = true;
        let next: TestRuntime | undefined;
        try {
          const as = await newAccountKey(first, 'stops', 10);
          const res = await submitCrawler({ query: page('/once/handed-back') }, {}, as, first);
          expect(res.statusCode, res.body).toBe(202);
          const id = res.json().job_id as string;
          await until(
            () => hitsOf('/once/handed-back'),
            (n) => n === 1,
          );
          firstOpen = false;
          await first.runtime.close();
          next = await start({ sharing: first, queueName });
          const done = await poll(id, ended, as, next);
          expect(done).toMatchObject({ status: 'completed', error: null });
          expect(hitsOf('/once/handed-back')).toBe(2);
          const job = await next.runtime.store.db
            .selectFrom('jobs')
            .select('attempts')
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          expect(job.attempts).toBe(1);
          expect(await reservationsOf(next, 'stops')).toEqual({ reserved: 0, committed: 1, released: 0 });
        } finally {
          await next?.close();
          if (firstOpen) await first.runtime.close();
          await dropDatabase(first.config.database);
        }
      });

      it.each([
        ['with runs left', 'runsLeft', '2'],
        ['with no run left (JOB_MAX_ATTEMPTS=1)', 'noRunLeft', '1'],
      ] as const)(
        'a process that dies mid-job %s: the job ends as the adapter says, billed at most once',
        async (_label, which, maxAttempts) => {
          const queueName = newQueueName();
          const { hostname, port } = new URL(TEST_REDIS_URL);
          const redis = await startTcpForwarder(hostname, Number(port || 6379));
          // The dying process's clock: real until it dies, then stopped a lease back, so that the
          // lease its timers go on writing has lapsed for every other process, as a dead one's has.
          let diedAt: Date | null = null;
          const dyingClock = () => diedAt ?? new Date();
          const leaseMs = 3000;
          const env = {
            JOB_MAX_ATTEMPTS: maxAttempts,
            JOB_LEASE_MS: String(leaseMs),
            JOB_SHUTDOWN_GRACE_MS: '0',
          };
          const dying = await start({
            queueName,
            clock: dyingClock,
            redisUrl: redis.via(TEST_REDIS_URL),
            env,
          });
          let survivor: TestRuntime | undefined;
          const slug = `dies-${maxAttempts}`;
          const path = `/once/died-${maxAttempts}`;
          try {
            const as = await newAccountKey(dying, slug, 10);
            const submit = async (p: string) => {
              const res = await submitCrawler({ query: page(p) }, {}, as, dying);
              expect(res.statusCode, res.body).toBe(202);
              return res.json().job_id as string;
            };
            const running = await submit(path);
            await until(
              () => hitsOf(path),
              (n) => n === 1,
            );
            const queued = await submit(`/after-death-${maxAttempts}`);
            expect((await poll(queued, (r) => r.status === 'queued', as, dying)).status).toBe('queued');

            // It dies: its lease stops moving and its Redis connections are cut (BullMQ's lock on
            // the job lapses). Then another process starts on the same database and queue: the
            // in-process queue's restart, or another BullMQ worker.
            diedAt = new Date(Date.now() - 2 * leaseMs);
            const stderr = vi.spyOn(console, 'error');
            redis.cut();
            survivor = await start({ sharing: dying, queueName, env });

            const expected = subject.died[which];
            const done = await poll(running, ended, as, survivor);
            expect({ status: done.status, error: done.error }).toEqual({
              status: expected.status,
              error: expected.error,
            });
            expect(hitsOf(path)).toBe(expected.runs);
            // What was queued behind it runs once, on the process that took over.
            expect((await poll(queued, ended, as, survivor)).status).toBe('completed');
            expect(hitsOf(`/after-death-${maxAttempts}`)).toBe(1);
            const completed = expected.status === 'completed' ? 2 : 1;
            expect(await reservationsOf(survivor, slug)).toEqual({
              reserved: 0,
              committed: completed,
              released: 2 - completed,
            });
            // Losing Redis is logged through the service's logger (JSON lines), never raw on stderr.
            expect(stderr).not.toHaveBeenCalled();
            if (subject.backend === 'bullmq') {
              expect(dying.logs.some((line) => line.includes('Redis connection error'))).toBe(true);
            }
          } finally {
            vi.restoreAllMocks();
            release(`${prefix}${path}`);
            redis.restore();
            await survivor?.close();
            await dying.runtime.close();
            await redis.close();
            await dropDatabase(dying.config.database);
          }
        },
      );
    });
  },
);
