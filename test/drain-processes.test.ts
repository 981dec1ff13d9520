import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliAccountKey,
  cliJson,
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
 * SIGTERM on real `webcap serve` and `webcap worker` processes (docs/drain.md): readiness fails
 * at once, the listener keeps serving for the drain delay, calls in flight finish and are billed
 * once, calls past the grace are ended unbilled, jobs past the jobs' grace are handed back and
 * run once elsewhere. A site on 127.0.0.1 holds the pages under /hold/ until the test releases
 * them, so that a capture or a job is in flight for as long as the test needs.
 */
const ADMIN = 'drain-processes-admin-0000';
const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let site: TestServer;
const hits = new Map<string, number>();
const held = new Map<string, ServerResponse[]>();
/** Paths that answer at once even under /hold/: a released page, or a job's second run. */
const released = new Set<string>();

const page = (path: string) => `<html><body style="background:#0a0">page ${path}</body></html>`;

function release(path: string): void {
  released.add(path);
  for (const res of held.get(path)?.splice(0) ?? []) {
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(path));
  }
}

beforeAll(async () => {
  site = await startSite((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path.startsWith('/hold/') && !released.has(path)) {
      held.set(path, [...(held.get(path) ?? []), res]);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(path));
  });
});
afterAll(() => site?.close());

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = HANG_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const heldCount = (path: string) => held.get(path)?.length ?? 0;

/** The exit code the process ends with. */
const exitOf = (child: ServerProcess['child']) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

/** A GET on a connection of its own (no pool: a refused connection must show). */
function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** A raw kept-alive connection after one answered request, and what it receives next. */
interface KeptAlive {
  readonly closed: boolean;
  /** What arrived after the first answer. */
  readonly received: string;
  /** Writes a request and resolves with everything received until the server closes the connection. */
  send(request: string): Promise<string>;
}

async function keptAlive(url: string): Promise<KeptAlive> {
  const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = '';
  let closed = false;
  const ended = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  const first = new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const head = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(received.slice(0, head));
      if (head >= 0 && length !== null && received.length >= head + 4 + Number(length[1])) {
        socket.off('data', onData);
        received = '';
        socket.on('data', (more: Buffer) => {
          received += more.toString('latin1');
        });
        resolve();
      }
    };
    socket.on('data', onData);
  });
  socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await first;
  return {
    get closed() {
      return closed;
    },
    get received() {
      return received;
    },
    async send(request: string) {
      socket.write(request);
      await ended;
      return received;
    },
  };
}

/** Whether a new TCP connection to the URL's port is refused. */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Width and height from a PNG's IHDR. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

type Totals = { committed: Record<string, number>; reserved: number; released: number };
const ledger = async (env: Record<string, string>, slug: string) =>
  (await cliJson<{ totals: Totals }>(['admin', 'ledger', slug], env)).totals;

const captureUrl = (server: ServerProcess, key: string, path: string) =>
  `${server.url}/v1/capture?${new URLSearchParams({
    url: `http://127.0.0.1:${site.port}${path}`,
    viewport_width: '640',
    viewport_height: '480',
    x_api_key: key,
  })}`;

// Long enough that nothing ends a held page or job by itself while a test holds it.
const patient = {
  RENDER_TIMEOUT_MS: '120000',
  NAVIGATION_TIMEOUT_MS: '110000',
  FETCH_TIMEOUT_MS: '120000',
  FETCH_HEADERS_TIMEOUT_MS: '120000',
  HEADERS_TIMEOUT_MS: '120000',
  REQUEST_TIMEOUT_MS: '120000',
  JOB_TIMEOUT_MS: '120000',
};

describe('webcap serve on SIGTERM', () => {
  it('drains: /readyz 503 at once, served through the delay, the call in flight answers 200 billed once, a request on an open connection gets 503 with Retry-After, exit 0', async () => {
    const { env } = processSetup('sqlite', ADMIN, { ...patient, SHUTDOWN_DRAIN_DELAY_MS: '2000' });
    const server = await startServer(env);
    const exited = exitOf(server.child);
    try {
      const key = await cliAccountKey(env, 'drain', ['--monthly-quota', '100']);
      expect((await get(`${server.url}/readyz`)).status).toBe(200);
      const inFlight = get(captureUrl(server, key, '/hold/in-flight'));
      await until(
        async () => heldCount('/hold/in-flight'),
        (n) => n === 1,
      );
      // A connection with a request begun before the listener closes: it stays open, and the
      // request it carries is answered when it is complete.
      const open = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      await new Promise((resolve) => open.once('connect', resolve));
      open.write('GET /v1/usage HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      // Kept-alive connections left idle by their client, each after one answer: one is used
      // again after the listener closed, the other never.
      const reused = await keptAlive(server.url);
      const unused = await keptAlive(server.url);

      server.child.kill('SIGTERM');
      const draining = await until(
        () => get(`${server.url}/readyz`),
        (r) => r.status === 503,
      );
      expect(JSON.parse(draining.body.toString())).toEqual({ error: 'Service Unavailable: draining' });
      // Liveness stands, and the API is still served during the delay.
      expect((await get(`${server.url}/healthz`)).status).toBe(200);
      const usage = await get(`${server.url}/v1/usage`, { 'x-api-key': key });
      expect(usage.status).toBe(200);

      // Then the listener closes: new connections are refused, the request already begun is a 503.
      await until(() => refused(server.url), Boolean);
      let answer = '';
      open.on('data', (chunk) => {
        answer += chunk;
      });
      const ended = new Promise((resolve) => open.once('close', resolve));
      open.write(`x-api-key: ${key}\r\n\r\n`);
      await ended;
      expect(answer).toMatch(/^HTTP\/1\.1 503 /);
      expect(answer).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe(
        JSON.stringify({ error: 'Service Unavailable: the server is shutting down' }),
      );
      // An idle connection is not closed under a client that sends on it while a call is in
      // flight: its request is answered 503 and the connection closed after the answer.
      expect(reused.closed).toBe(false);
      const again = await reused.send(
        `GET /v1/usage HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\n\r\n`,
      );
      expect(again).toMatch(/^HTTP\/1\.1 503 /);
      expect(again).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(again).toMatch(/\r\nconnection: close\r\n/i);
      expect(unused.closed).toBe(false);

      // The capture in flight completes, whole, and the process then exits 0.
      expect(server.child.exitCode).toBeNull();
      release('/hold/in-flight');
      const done = await inFlight;
      expect(done.status).toBe(200);
      expect(pngSize(done.body)).toEqual({ width: 640, height: 480 });
      expect(await exited).toBe(0);
      // The connection never used again was closed without an answer of any kind.
      expect(unused.closed).toBe(true);
      expect(unused.received).toBe('');
      const totals = await ledger(env, 'drain');
      expect(totals.committed).toEqual({ subscription: 1, pack: 0, credit: 0 });
      expect(totals.reserved).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('a call still running at SHUTDOWN_GRACE_MS is ended with an error and not billed; the process exits 0', async () => {
    const { env } = processSetup('sqlite', ADMIN, { ...patient, SHUTDOWN_GRACE_MS: '1000' });
    const server = await startServer(env);
    const exited = exitOf(server.child);
    try {
      const key = await cliAccountKey(env, 'graced', ['--monthly-quota', '100']);
      const before = await ledger(env, 'graced');
      const inFlight = get(captureUrl(server, key, '/hold/past-grace'));
      await until(
        async () => heldCount('/hold/past-grace'),
        (n) => n === 1,
      );
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // The caller got an answer saying why, rather than a reset or the engine's own error.
      const answer = await inFlight;
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(JSON.parse(answer.body.toString())).toEqual({
        error: 'Service Unavailable: the server is shutting down',
      });
      const after = await ledger(env, 'graced');
      expect(after.committed).toEqual(before.committed);
      expect(after.committed).toEqual({ subscription: 0, pack: 0, credit: 0 });
      expect(after.reserved).toBe(0);
      expect(after.released).toBe(before.released + 1);
    } finally {
      server.child.kill('SIGKILL');
      release('/hold/past-grace');
    }
  });

  it('/readyz is 503 while the render queue is full (one render, a queue of one), 200 once it has room', async () => {
    const { env } = processSetup('sqlite', ADMIN, {
      ...patient,
      BROWSER_CONCURRENCY: '1',
      MAX_QUEUE_DEPTH: '1',
    });
    const server = await startServer(env);
    try {
      const key = await cliAccountKey(env, 'full', ['--monthly-quota', '100']);
      const first = get(captureUrl(server, key, '/hold/full-1'));
      await until(
        async () => heldCount('/hold/full-1'),
        (n) => n === 1,
      );
      expect((await get(`${server.url}/readyz`)).status).toBe(200);
      const second = get(captureUrl(server, key, '/hold/full-2'));
      const full = await until(
        () => get(`${server.url}/readyz`),
        (r) => r.status === 503,
      );
      expect(JSON.parse(full.body.toString())).toEqual({ error: 'Service Unavailable: render queue full' });
      expect(Number(full.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Liveness does not follow readiness.
      expect((await get(`${server.url}/healthz`)).status).toBe(200);
      release('/hold/full-1');
      release('/hold/full-2');
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      const ready = await until(
        () => get(`${server.url}/readyz`),
        (r) => r.status === 200,
      );
      expect(JSON.parse(ready.body.toString())).toMatchObject({ status: 'ready', browser: 'running' });
    } finally {
      await server.stop();
    }
  });
});

type Job = { status: string; result?: unknown };

async function submitCrawler(server: ServerProcess, key: string, path: string): Promise<string> {
  const query = new URLSearchParams({ query: `http://127.0.0.1:${site.port}${path}`, is_async: 'true' });
  const res = await fetch(`${server.url}/v1/website/crawler?${query}`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(202);
  return ((await res.json()) as { job_id: string }).job_id;
}

async function job(server: ServerProcess, key: string, id: string): Promise<Job> {
  const res = await fetch(`${server.url}/jobs/${id}`, { headers: { 'x-api-key': key } });
  expect(res.status).toBe(200);
  return (await res.json()) as Job;
}

describe('jobs past JOB_SHUTDOWN_GRACE_MS are handed back', () => {
  it('in-process: the job goes back to the queue and the next start runs it, once, billed once', async () => {
    const { env } = processSetup('sqlite', ADMIN, {
      ...patient,
      JOB_CONCURRENCY: '1',
      JOB_SHUTDOWN_GRACE_MS: '1000',
    });
    let server = await startServer(env);
    try {
      const key = await cliAccountKey(env, 'handback', ['--monthly-quota', '100']);
      const id = await submitCrawler(server, key, '/hold/in-process');
      await until(
        async () => heldCount('/hold/in-process'),
        (n) => n === 1,
      );
      expect((await job(server, key, id)).status).toBe('running');
      const exited = exitOf(server.child);
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Not failed by the browser's or the guard's closing: queued, its unit still held.
      const between = await ledger(env, 'handback');
      expect(between.reserved).toBe(1);
      expect(between.released).toBe(0);

      release('/hold/in-process');
      server = await startServer(env);
      const done = await until(
        () => job(server, key, id),
        (r) => r.status === 'completed' || r.status === 'failed',
      );
      expect(done.status).toBe('completed');
      expect(done.result).toMatchObject({ success: true, data: { statusCode: 200 } });
      expect(hits.get('/hold/in-process')).toBe(2);
      const totals = await ledger(env, 'handback');
      expect(totals.committed).toEqual({ subscription: 1, pack: 0, credit: 0 });
      expect(totals.reserved).toBe(0);
    } finally {
      await server.stop();
    }
  });

  describe('BullMQ', () => {
    const queueName = `drain-test-${Date.now().toString(36)}`;
    // A lease far longer than the test: a job left to BullMQ's stalled check would not be
    // taken over before the test gives up, so the one that ends elsewhere was handed back.
    const { database, env } = processSetup('postgres', ADMIN, {
      ...patient,
      REDIS_URL: TEST_REDIS_URL,
      JOB_QUEUE_NAME: queueName,
      JOB_LEASE_MS: '300000',
      WEBCAP_SIGNING_SECRET: 'drain-processes-signing-secret-0123456789',
    });
    const workerEnv = {
      ...env,
      JOB_CONCURRENCY: '2',
      JOB_SHUTDOWN_GRACE_MS: '1000',
      SHUTDOWN_DRAIN_DELAY_MS: '1500',
    };
    let api: ServerProcess | undefined;
    const workers: WorkerProcess[] = [];
    const redis = new Redis(TEST_REDIS_URL);

    afterAll(async () => {
      await Promise.all(workers.map((w) => w.stop('SIGKILL')));
      await api?.stop();
      const keys = await redis.keys(`bull:${queueName}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await dropDatabase(database);
    });

    it('a worker stopped with a job past its grace exits 0; another worker runs the job once, billed once', async () => {
      api = await startServer({ ...env, JOB_CONCURRENCY: '0' });
      const key = await cliAccountKey(env, 'bullmq', ['--monthly-quota', '100']);
      const first = await startWorker(workerEnv);
      workers.push(first);
      const id = await submitCrawler(api, key, '/hold/bullmq');
      await until(
        async () => heldCount('/hold/bullmq'),
        (n) => n === 1,
      );
      workers.push(await startWorker(workerEnv));
      // The next run's request is answered; the first run's stays held.
      released.add('/hold/bullmq');

      const exited = exitOf(first.child);
      first.child.kill('SIGTERM');
      const draining = await until(
        () => get(`${first.url}/readyz`),
        (r) => r.status === 503,
      );
      expect(JSON.parse(draining.body.toString())).toEqual({ error: 'Service Unavailable: draining' });
      expect(await exited).toBe(0);
      const done = await until(
        () => job(api as ServerProcess, key, id),
        (r) => r.status === 'completed' || r.status === 'failed',
      );
      expect(done.status).toBe('completed');
      expect(done.result).toMatchObject({ success: true, data: { statusCode: 200 } });
      expect(hits.get('/hold/bullmq')).toBe(2);
      const totals = await ledger(env, 'bullmq');
      expect(totals.committed).toEqual({ subscription: 1, pack: 0, credit: 0 });
      expect(totals.reserved).toBe(0);
      expect(totals.released).toBe(0);
    });
  });
});
