import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cliAccountKey, cliJson, processSetup, type ServerProcess, startServer } from './helpers/cli.js';
import { DIALECTS, dropDatabase } from './helpers/databases.js';
import { startServer as startSite, type TestServer } from './helpers/net-fixtures.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * Billing across real server processes (`webcap serve`), with the crawler as the billable call
 * and a fixture site on 127.0.0.1: concurrency across two processes sharing PostgreSQL, caps
 * shared through Redis, and a server killed with SIGKILL in the middle of a call.
 */
const ADMIN = 'processes-admin-token-0000';
const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let site: TestServer;
/** Requests for /hang that the site holds open; each resolves the test waiting for it. */
const hanging: (() => void)[] = [];

beforeAll(async () => {
  site = await startSite((req, res) => {
    if (req.url === '/hang') {
      hanging.shift()?.();
      return; // never answered: the call stays in flight until its server dies
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>ok</body></html>');
  });
});
afterAll(() => site?.close());

// The site's port is not known yet when suites are collected: every loopback port is allowed.
const setup = (dialect: (typeof DIALECTS)[number], extra: Record<string, string> = {}) =>
  processSetup(dialect, ADMIN, extra);
const account = cliAccountKey;

function callCrawler(server: ServerProcess, key: string, path = '/page') {
  const query = new URLSearchParams({ query: `http://127.0.0.1:${site.port}${path}` });
  return fetch(`${server.url}/v1/website/crawler?${query}`, { headers: { 'x-api-key': key } });
}

async function ledger(server: ServerProcess, slug: string) {
  const res = await fetch(`${server.url}/admin/v1/accounts/${slug}/ledger?limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  return (await res.json()) as {
    totals: { committed: Record<string, number>; reserved: number; released: number };
    entries: { status: string }[];
  };
}

describe('two server processes sharing PostgreSQL', () => {
  const { database, env } = setup('postgres');
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    servers.push(await startServer(env), await startServer(env));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await dropDatabase(database);
  });

  it('100 concurrent calls against a balance of 10: exactly 10 succeed, 90 get 402, the ledger sums to 10', async () => {
    const key = await account(env, 'race', ['--monthly-quota', '4']);
    await cliJson(['admin', 'packs', 'add', '--account', 'race', '--total', '3'], env);
    await cliJson(['admin', 'credits', 'grant', '--account', 'race', '--amount', '3'], env);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => callCrawler(servers[i % 2] as ServerProcess, key)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(90);
    const refused = responses.find((r) => r.status === 402);
    if (refused === undefined) throw new Error('no call was refused');
    expect(((await refused.json()) as { error: string }).error).toMatch(/^Insufficient credits: /);
    const { totals } = await ledger(servers[0] as ServerProcess, 'race');
    expect(totals.committed).toEqual({ subscription: 4, pack: 3, credit: 3 });
    expect(totals.reserved).toBe(0);
    const usage = (await (
      await fetch(`${servers[1]?.url}/v1/usage`, { headers: { 'x-api-key': key } })
    ).json()) as { remaining: number; total_used: number };
    expect(usage).toMatchObject({ remaining: 0, total_used: 10 });
  });
});

describe('caps shared by two processes through Redis', () => {
  const { database, env } = setup('postgres', { REDIS_URL: TEST_REDIS_URL });
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    servers.push(await startServer(env), await startServer(env));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await dropDatabase(database);
  });

  it('per_minute counts calls to either process', async () => {
    const key = await account(env, 'capped', ['--monthly-quota', '100', '--per-minute', '3']);
    const [a, b] = servers as [ServerProcess, ServerProcess];
    for (const server of [a, b, a]) expect((await callCrawler(server, key)).status).toBe(200);
    const refused = await callCrawler(b, key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe(
      'Rate limit exceeded for the API key: quota per_minute',
    );
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await callCrawler(a, key)).status).toBe(401);
  });

  it('per_second counts calls to either process, and frees up the next second', async () => {
    const key = await account(env, 'fast', ['--monthly-quota', '100', '--per-second', '2']);
    const [a, b] = servers as [ServerProcess, ServerProcess];
    // Twelve calls at once, half to each process: all twelve could pass only if they were spread
    // over six distinct seconds, which no machine of ours is slow enough to do with them, however
    // loaded; windows are fixed, so how many pass depends on where the seconds fall.
    const burst = Array.from({ length: 12 }, (_, i) => callCrawler(i % 2 === 0 ? a : b, key));
    const statuses = (await Promise.all(burst)).map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length, statuses.join(' ')).toBeGreaterThanOrEqual(1);
    expect(
      statuses.every((s) => s === 200 || s === 401),
      statuses.join(' '),
    ).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await callCrawler(b, key)).status).toBe(200);
  });
});

describe.each(DIALECTS)('a server killed with SIGKILL during a call, on %s', (dialect) => {
  const { database, env } = setup(dialect, { RESERVATION_HOLD_MS: '2000', FETCH_TIMEOUT_MS: '120000' });
  let server: ServerProcess | null = null;

  afterAll(async () => {
    await server?.stop();
    await dropDatabase(database);
  });

  it('neither bills nor loses the unit once the restarted service releases the reservation', async () => {
    server = await startServer(env);
    const key = await account(env, 'killed', ['--monthly-quota', '1']);
    const arrived = new Promise<void>((resolve) => hanging.push(resolve));
    const call = callCrawler(server, key, '/hang').catch((error: unknown) => error);
    await arrived; // the unit is reserved and the work is running
    const inFlight = await ledger(server, 'killed');
    expect(inFlight.totals.reserved).toBe(1);
    server.child.kill('SIGKILL');
    expect(await call).toBeInstanceOf(Error);

    server = await startServer(env);
    const restarted = server;
    await vi.waitFor(
      async () => {
        const { totals } = await ledger(restarted, 'killed');
        expect(totals).toEqual({
          committed: { subscription: 0, pack: 0, credit: 0 },
          reserved: 0,
          released: 1,
        });
      },
      { timeout: HANG_MS, interval: 250 },
    );
    const usage = async () =>
      (await (await fetch(`${restarted.url}/v1/usage`, { headers: { 'x-api-key': key } })).json()) as {
        remaining: number;
        total_used: number;
      };
    expect(await usage()).toMatchObject({ remaining: 1, total_used: 0 });
    expect((await callCrawler(restarted, key)).status).toBe(200);
    expect(await usage()).toMatchObject({ remaining: 0, total_used: 1 });
  });
});
