import type http from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAccountKey, cliJson, processSetup, type ServerProcess, startServer } from './helpers/cli.js';
import { dropDatabase } from './helpers/databases.js';
import { startServer as startSite, type TestServer } from './helpers/net-fixtures.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * Jobs of a key or account the operator withdraws with `webcap admin` (a separate process) while
 * `webcap serve` runs them from a BullMQ queue on PostgreSQL: the queued ones end at once,
 * unbilled, and never run; the running one finishes, billed; the account's other key (and the
 * account once reactivated) sees why each failed. Every step waits for an event the test controls.
 */
const ADMIN = 'jobs-withdrawn-admin-0000';
const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

type Json = Record<string, unknown>;

describe('webcap admin withdrawing a key and an account with jobs on the BullMQ queue', () => {
  const queueName = `withdrawn-${Date.now().toString(36)}`;
  const { database, env } = processSetup('postgres', ADMIN, {
    REDIS_URL: TEST_REDIS_URL,
    JOB_QUEUE_NAME: queueName,
    JOB_CONCURRENCY: '1',
    FETCH_TIMEOUT_MS: '120000',
    FETCH_HEADERS_TIMEOUT_MS: '120000',
  });
  const hits = new Map<string, number>();
  const held: http.ServerResponse[] = [];
  let site: TestServer;
  let server: ServerProcess;
  const redis = new Redis(TEST_REDIS_URL);

  beforeAll(async () => {
    site = await startSite((req, res) => {
      const path = req.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === '/hold') {
        held.push(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><body>page ${path}</body></html>`);
    });
    server = await startServer(env);
  });
  afterAll(async () => {
    for (const res of held.splice(0)) res.end();
    await server?.stop();
    const keys = await redis.keys(`bull:${queueName}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await site?.close();
    await dropDatabase(database);
  });

  async function submit(key: string, path: string): Promise<string> {
    const query = new URLSearchParams({ query: `http://127.0.0.1:${site.port}${path}`, is_async: 'true' });
    const res = await fetch(`${server.url}/v1/website/crawler?${query}`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(202);
    return ((await res.json()) as { job_id: string }).job_id;
  }

  async function poll(key: string, id: string, done: (record: Json) => boolean): Promise<Json> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const res = await fetch(`${server.url}/jobs/${id}`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      const record = (await res.json()) as Json;
      if (done(record)) return record;
      if (Date.now() > deadline) throw new Error(`job ${id} stuck: ${JSON.stringify(record)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function totals() {
    const res = await fetch(`${server.url}/admin/v1/accounts/owner/ledger?limit=100`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    return ((await res.json()) as { totals: { committed: Json; reserved: number; released: number } }).totals;
  }

  it('queued jobs end unbilled and never run; the running one finishes, billed', async () => {
    const first = await cliAccountKey(env, 'owner', ['--monthly-quota', '100']);
    const second = await cliJson<{ id: string; key: string }>(
      ['admin', 'keys', 'create', '--account', 'owner'],
      env,
    );
    const firstId = (
      await cliJson<{ keys: { id: string }[] }>(['admin', 'keys', 'list', '--account', 'owner'], env)
    ).keys[0]?.id as string;

    const running = await submit(first, '/hold');
    await poll(second.key, running, (record) => record.status === 'running');
    const ofRevoked = await submit(first, '/of-revoked');
    const ofAccount = await submit(second.key, '/of-account');
    expect(await redis.exists(`bull:${queueName}:${ofRevoked}`)).toBe(1);

    await cliJson(['admin', 'keys', 'revoke', firstId], env);
    expect(await poll(second.key, ofRevoked, (record) => record.status !== 'queued')).toMatchObject({
      status: 'failed',
      started_at: null,
      error: {
        status: 401,
        error: expect.stringMatching(/^Invalid API Key: the key that submitted the job/),
      },
    });

    await cliJson(['admin', 'accounts', 'update', 'owner', '--active', 'false'], env);
    expect(await totals()).toMatchObject({ reserved: 1, released: 2 });

    for (const res of held.splice(0)) res.end('<html><body>released</body></html>');
    await cliJson(['admin', 'accounts', 'update', 'owner', '--active', 'true'], env);
    expect(await poll(second.key, ofAccount, (record) => record.status !== 'queued')).toMatchObject({
      status: 'failed',
      started_at: null,
      error: { status: 403, error: 'Forbidden: the account was deactivated; the job did not run' },
    });
    expect((await poll(second.key, running, (record) => record.status === 'completed')).status).toBe(
      'completed',
    );
    expect(await totals()).toMatchObject({ committed: { subscription: 1 }, reserved: 0, released: 2 });
    // BullMQ hands the cancelled jobs' ids to the worker once the running one ended (and drops
    // each once handled); neither ran.
    for (const id of [ofRevoked, ofAccount]) {
      const deadline = Date.now() + HANG_MS;
      while ((await redis.exists(`bull:${queueName}:${id}`)) === 1) {
        if (Date.now() > deadline) throw new Error(`BullMQ still holds ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(hits.get('/of-revoked')).toBeUndefined();
    expect(hits.get('/of-account')).toBeUndefined();
  });
});
