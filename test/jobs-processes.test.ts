import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliAccountKey,
  processSetup,
  type ServerProcess,
  startServer,
  startWorker,
  type WorkerProcess,
} from './helpers/cli.js';
import { dropDatabase } from './helpers/databases.js';
import { startServer as startSite, type TestServer } from './helpers/net-fixtures.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * Async jobs across real processes: `webcap serve` killed with SIGKILL and restarted on the
 * in-process queue (SQLite), and `webcap worker` processes sharing one BullMQ queue on Redis and
 * one PostgreSQL database, one of them killed in the middle of a job. A fixture site on
 * 127.0.0.1 counts what each path was asked, so that a job that ran twice would show.
 */
const ADMIN = 'jobs-processes-admin-0000';
const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let site: TestServer;
const hits = new Map<string, number>();
/** Requests to /hold/* that the site keeps open, each waiting for the test. */
const held: string[] = [];

beforeAll(async () => {
  site = await startSite((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    // A held path hangs the first time it is asked and answers afterwards: the run of a killed
    // worker hangs, the one that takes over completes.
    if (path.startsWith('/hold/') && hits.get(path) === 1) {
      held.push(path);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body>page ${path}</body></html>`);
  });
});
afterAll(() => site?.close());

type Json = Record<string, unknown> & { status?: string; attempts?: number };

const setup = (kind: 'sqlite' | 'postgres', extra: Record<string, string> = {}) =>
  processSetup(kind, ADMIN, { FETCH_TIMEOUT_MS: '60000', FETCH_HEADERS_TIMEOUT_MS: '60000', ...extra });
const account = (env: Record<string, string>, slug: string) =>
  cliAccountKey(env, slug, ['--monthly-quota', '1000']);

async function submit(server: ServerProcess, key: string, path: string): Promise<string> {
  const query = new URLSearchParams({ query: `http://127.0.0.1:${site.port}${path}`, is_async: 'true' });
  const res = await fetch(`${server.url}/v1/website/crawler?${query}`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(202);
  return ((await res.json()) as { job_id: string }).job_id;
}

async function record(server: ServerProcess, key: string, id: string): Promise<Json> {
  const res = await fetch(`${server.url}/jobs/${id}`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = HANG_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function ledger(server: ServerProcess, slug: string) {
  const res = await fetch(`${server.url}/admin/v1/accounts/${slug}/ledger?limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  return (
    (await res.json()) as {
      totals: { committed: Record<string, number>; reserved: number; released: number };
    }
  ).totals;
}

describe('the in-process queue across a crash', () => {
  const { env } = setup('sqlite', { JOB_CONCURRENCY: '1' });
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('a restart fails the interrupted job unbilled and runs the queued ones, billed once each', async () => {
    server = await startServer(env);
    const key = await account(env, 'crash');
    const running = await submit(server, key, '/hold/restart');
    await until(async () => held.includes('/hold/restart'), Boolean);
    const queued = [await submit(server, key, '/queued/1'), await submit(server, key, '/queued/2')];
    expect((await record(server, key, queued[0] as string)).status).toBe('queued');
    server.child.kill('SIGKILL');
    await new Promise((resolve) => server?.child.once('exit', resolve));

    server = await startServer(env);
    const interrupted = await until(
      () => record(server as ServerProcess, key, running),
      (r) => r.status === 'failed',
    );
    expect(interrupted.error).toEqual({ status: 500, error: 'Internal Error: interrupted by a restart' });
    for (const id of queued) {
      const done = await until(
        () => record(server as ServerProcess, key, id),
        (r) => r.status === 'completed',
      );
      expect(done.result).toMatchObject({ success: true, data: { statusCode: 200 } });
    }
    expect(hits.get('/queued/1')).toBe(1);
    expect(hits.get('/queued/2')).toBe(1);
    const totals = await ledger(server, 'crash');
    expect(totals.committed).toEqual({ subscription: 2, pack: 0, credit: 0 });
    expect(totals.reserved).toBe(0);
    expect(totals.released).toBe(1);
  });
});

describe('webhook retries across a crash', () => {
  const { env } = setup('sqlite', { WEBHOOK_BACKOFF_MS: '3000' });
  let server: ServerProcess | undefined;
  let receiver: TestServer | undefined;
  let failures = 1;
  const deliveries: number[] = [];
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it('a retry that was due in a process killed meanwhile is made by the next one', async () => {
    receiver = await startSite((req, res) => {
      req.resume();
      req.on('end', () => {
        const status = failures > 0 ? 500 : 204;
        failures -= 1;
        deliveries.push(status);
        res.writeHead(status).end();
      });
    });
    server = await startServer(env);
    const key = await account(env, 'hooks');
    const query = new URLSearchParams({
      query: `http://127.0.0.1:${site.port}/hooked`,
      is_async: 'true',
      webhook_url: `http://127.0.0.1:${receiver.port}/hook`,
    });
    const res = await fetch(`${server.url}/v1/website/crawler?${query}`, { headers: { 'x-api-key': key } });
    const id = ((await res.json()) as { job_id: string }).job_id;
    // The first attempt fails and is recorded with its retry due 3 s later; the process dies
    // before then. (Killed as soon as the receiver answers, it could die before recording the
    // attempt: the delivery would be made again, at least once, but the test is about the retry.)
    await until(
      () => record(server as ServerProcess, key, id),
      (r) => (r.webhook as { attempts: unknown[] } | undefined)?.attempts.length === 1,
    );
    expect(deliveries).toEqual([500]);
    server.child.kill('SIGKILL');
    await new Promise((resolve) => server?.child.once('exit', resolve));
    server = await startServer(env);
    const done = await until(
      () => record(server as ServerProcess, key, id),
      (r) => (r.webhook as { state: string } | undefined)?.state === 'delivered',
    );
    expect((done.webhook as { attempts: { status: number }[] }).attempts.map((a) => a.status)).toEqual([
      500, 204,
    ]);
    expect(deliveries).toEqual([500, 204]);
  });
});

describe('webcap worker processes on one BullMQ queue', () => {
  const queueName = `jobs-test-${Date.now().toString(36)}`;
  const { database, env } = setup('postgres', {
    REDIS_URL: TEST_REDIS_URL,
    JOB_QUEUE_NAME: queueName,
    JOB_LEASE_MS: '2000',
    WEBCAP_SIGNING_SECRET: 'jobs-processes-signing-secret-0123456789',
    METRICS_TOKEN: 'jobs-processes-metrics-0000',
  });
  // The API process only submits; the workers run the jobs.
  const apiEnv = { ...env, JOB_CONCURRENCY: '0' };
  const workerEnv = { ...env, JOB_CONCURRENCY: '4' };
  let api: ServerProcess;
  const workers: WorkerProcess[] = [];
  let key: string;
  const redis = new Redis(TEST_REDIS_URL);

  beforeAll(async () => {
    api = await startServer(apiEnv);
    key = await account(env, 'scale');
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await api?.stop();
    const keys = await redis.keys(`bull:${queueName}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await dropDatabase(database);
  });

  it('readiness names the BullMQ backend', async () => {
    const res = await fetch(`${api.url}/readyz`);
    expect(await res.json()).toMatchObject({ status: 'ready', queue: 'bullmq' });
  });

  it('two workers run 100 jobs, each exactly once and billed once', async () => {
    workers.push(await startWorker(workerEnv), await startWorker(workerEnv));
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => submit(api, key, `/many/${i}`)));
    expect(new Set(ids).size).toBe(100);
    const records = await until(
      () => Promise.all(ids.map((id) => record(api, key, id))),
      (all) => all.every((r) => r.status === 'completed'),
    );
    expect(records.every((r) => r.status === 'completed')).toBe(true);
    for (let i = 0; i < 100; i++) expect(hits.get(`/many/${i}`), `/many/${i}`).toBe(1);
    // Each worker serves its own metrics: together they ran the 100 jobs.
    let completed = 0;
    for (const worker of workers) {
      const res = await fetch(`${worker.url}/metrics`, {
        headers: { authorization: 'Bearer jobs-processes-metrics-0000' },
      });
      const line = (await res.text())
        .split('\n')
        .find((l) => l.startsWith('webcap_jobs_total{engine="website-crawler",outcome="completed"}'));
      completed += Number(line?.split(' ')[1] ?? 0);
      expect(await (await fetch(`${worker.url}/readyz`)).json()).toMatchObject({ queue: 'bullmq' });
      expect((await fetch(`${worker.url}/v1/usage`)).status).toBe(404);
    }
    expect(completed).toBe(100);
    const totals = await ledger(api, 'scale');
    expect(totals.committed).toEqual({ subscription: 100, pack: 0, credit: 0 });
    expect(totals.reserved).toBe(0);
  });

  it('a worker killed mid-job: another one takes the job over, and it is billed once', async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    const first = await startWorker(workerEnv);
    workers.push(first);
    const id = await submit(api, key, '/hold/killed');
    await until(async () => held.includes('/hold/killed'), Boolean);
    expect((await record(api, key, id)).status).toBe('running');
    await first.stop('SIGKILL');
    workers.splice(0);
    workers.push(await startWorker(workerEnv));
    const done = await until(
      () => record(api, key, id),
      (r) => r.status === 'completed' || r.status === 'failed',
    );
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({ success: true, data: { statusCode: 200 } });
    expect(hits.get('/hold/killed')).toBe(2);
    const totals = await ledger(api, 'scale');
    expect(totals.committed).toEqual({ subscription: 101, pack: 0, credit: 0 });
    expect(totals.reserved).toBe(0);
  });

  it("Redis holds job ids only: never a caller's S3 secret key or proxy password", async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    // No worker runs: the job stays in the queue while Redis is read.
    const query = new URLSearchParams({
      url: `http://127.0.0.1:${site.port}/secret`,
      is_async: 'true',
      response_type: 'json',
      proxy: `http://user:Proxy-Pass-9f3k@127.0.0.1:${site.port}`,
      s3_url: 'true',
      s3_access_key_id: 'AKIAEXAMPLE',
      s3_secret_key: 'S3-Secret-Value-77x',
      s3_bucket: 'bucket',
      storage_endpoint: `http://127.0.0.1:${site.port}`,
    });
    const res = await fetch(`${api.url}/v1/capture?${query}`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(202);
    const keys = await redis.keys(`bull:${queueName}:*`);
    expect(keys.length).toBeGreaterThan(0);
    let dump = '';
    for (const name of keys) {
      const type = await redis.type(name);
      if (type === 'hash') dump += JSON.stringify(await redis.hgetall(name));
      else if (type === 'list') dump += JSON.stringify(await redis.lrange(name, 0, -1));
      else if (type === 'zset') dump += JSON.stringify(await redis.zrange(name, 0, -1));
      else if (type === 'string') dump += await redis.get(name);
    }
    expect(dump).toContain(((await res.json()) as { job_id: string }).job_id);
    for (const secret of ['S3-Secret-Value-77x', 'Proxy-Pass-9f3k', 'AKIAEXAMPLE', '/secret']) {
      expect(dump).not.toContain(secret);
    }
  });
});
