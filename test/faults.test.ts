import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { updateAccount } from '../src/billing/accounts.js';
import { DEFAULT_CHROMIUM_PATH } from '../src/browser/chromium-args.js';
import { type FixtureServer, pngSize, startFixtureServer } from './helpers/chromium.js';
import { TEST_DATABASE_URL, tempDir } from './helpers/databases.js';
import { ADMIN_TOKEN, newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from './helpers/s3rver.js';
import { startTcpForwarder, type TcpForwarder } from './helpers/tcp-forwarder.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * What callers get when something the service depends on fails while it runs: the database, Redis,
 * the blob store, Chromium. Each dependency sits behind a fault the test controls (a TCP forwarder
 * it cuts or stalls, a directory it breaks, a browser path it points elsewhere); the shared servers
 * are never touched. Every call is made through HTTP and every answer is checked: its status, body,
 * headers and what was billed. How long an answer took is shown in a failure's message, never
 * asserted: a bounded wait shows in which answer comes (a 503 that names the dependency, a cap
 * counted in the process), and a call left hanging fails the test by its own timeout.
 */

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The response and how long it took, in milliseconds. */
async function timed(
  call: Promise<LightMyRequestResponse>,
): Promise<{ res: LightMyRequestResponse; ms: number }> {
  const started = performance.now();
  const res = await call;
  return { res, ms: performance.now() - started };
}

/** Checks a 503 with the spec's message and a Retry-After, and returns the detail after the message. */
function unavailable(res: LightMyRequestResponse): string {
  expect(res.statusCode).toBe(503);
  const { error } = res.json() as { error: string };
  expect(error).toMatch(/^Service Unavailable: /);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  return error.slice('Service Unavailable: '.length);
}

/** Resolves once the runtime has logged a line with this message (it reconnects on a timer of its own). */
function logged(t: TestRuntime, message: string): Promise<void> {
  return vi.waitFor(
    () => {
      if (!t.logs.some((line) => (JSON.parse(line) as { msg?: string }).msg === message)) {
        throw new Error(`not logged yet: ${message}`);
      }
    },
    { timeout: HANG_MS, interval: 20 },
  );
}

/** The runtime's calls with one account's key. */
function caller(t: TestRuntime, site: FixtureServer, key: string) {
  const get = (url: string) => t.runtime.app.inject({ url, headers: { 'x-api-key': key } });
  return {
    get,
    capture: (page: string, extra: Record<string, string> = {}) =>
      get(`/v1/capture?${new URLSearchParams({ url: site.url(page), ...extra })}`),
    crawler: (page: string) => get(`/v1/website/crawler?${new URLSearchParams({ query: site.url(page) })}`),
    used: async () => ((await get('/v1/usage')).json() as { total_used: number }).total_used,
    ledger: async (slug: string) =>
      (
        await t.runtime.app.inject({
          url: `/admin/v1/accounts/${slug}/ledger`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).json() as { totals: { committed: Record<string, number>; reserved: number; released: number } },
  };
}

describe('PostgreSQL unreachable mid-run', () => {
  let site: FixtureServer;
  let pg: TcpForwarder;
  let t: TestRuntime;
  let calls: ReturnType<typeof caller>;

  beforeAll(async () => {
    site = await startFixtureServer();
    const real = new URL(TEST_DATABASE_URL);
    pg = await startTcpForwarder(real.hostname, Number(real.port || 5432));
    t = await startTestRuntime('postgres', {
      env: {
        DATABASE_URL: pg.via(TEST_DATABASE_URL),
        // Far above what a healthy database needs on a loaded machine, so that only the faults reach them.
        DATABASE_CONNECT_TIMEOUT_MS: '3000',
        DATABASE_QUERY_TIMEOUT_MS: '3000',
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        NAVIGATION_TIMEOUT_MS: '4000',
      },
    });
    calls = caller(t, site, await newAccountKey(t, 'pgfault', 100));
  });
  afterAll(async () => {
    pg?.restore();
    await t?.close();
    await pg?.close();
    await site?.close();
  });

  it('answers 503 while the database is stalled or gone, bills nothing, and recovers', async () => {
    // Working calls first, so that the pool holds open connections for the faults to break.
    expect((await calls.capture('/capture.html')).statusCode).toBe(200);
    expect((await calls.crawler('/capture.html')).statusCode).toBe(200);

    // A partition first (open connections freeze, new ones are never answered), then a database
    // that went away (every connection reset, new ones refused).
    for (const fault of ['stall', 'cut'] as const) {
      pg[fault]();
      const served = site.requests.length;
      const [health, ready, capture, crawler] = await Promise.all([
        timed(t.runtime.app.inject({ url: '/healthz' })),
        timed(t.runtime.app.inject({ url: '/readyz' })),
        timed(calls.capture('/capture.html')),
        timed(calls.crawler('/capture.html')),
      ]);
      const took = `${fault}: /readyz ${ready.ms.toFixed(0)} ms, capture ${capture.ms.toFixed(0)} ms, crawler ${crawler.ms.toFixed(0)} ms`;
      expect(health.res.statusCode, took).toBe(200);
      // A stalled connection is given up at DATABASE_CONNECT_TIMEOUT_MS or DATABASE_QUERY_TIMEOUT_MS:
      // the answer is the 503 naming the database, not a call that waits on it.
      expect(ready.res.statusCode, took).toBe(503);
      expect(ready.res.json(), took).toEqual({ error: 'Service Unavailable: database unreachable' });
      for (const { res } of [capture, crawler]) expect(unavailable(res), took).toBe('database unreachable');
      // The unit could not be reserved, so no page was loaded or fetched.
      expect(site.requests.length, fault).toBe(served);
    }

    pg.restore();
    expect((await t.runtime.app.inject({ url: '/readyz' })).json()).toMatchObject({ status: 'ready' });
    expect((await calls.capture('/capture.html')).statusCode).toBe(200);
    expect((await calls.crawler('/capture.html')).statusCode).toBe(200);
    expect(await calls.used()).toBe(4);
    const { totals } = await calls.ledger('pgfault');
    expect(totals).toMatchObject({ committed: { subscription: 4 }, reserved: 0, released: 0 });
  });
});

describe('Redis unreachable with REDIS_URL set', () => {
  let site: FixtureServer;
  let redis: TcpForwarder;
  let t: TestRuntime;
  let calls: ReturnType<typeof caller>;

  beforeAll(async () => {
    site = await startFixtureServer();
    const real = new URL(TEST_REDIS_URL);
    redis = await startTcpForwarder(real.hostname, Number(real.port || 6379));
    t = await startTestRuntime('sqlite', {
      env: {
        REDIS_URL: redis.via(TEST_REDIS_URL),
        // Far above what a healthy Redis needs on a loaded machine, so that only the partition reaches it.
        REDIS_COMMAND_TIMEOUT_MS: '2000',
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
      },
    });
    const key = await newAccountKey(t, 'redisfault', 100);
    await updateAccount(t.runtime.store.db, 'redisfault', { perMinute: 3 }, new Date());
    calls = caller(t, site, key);
  });
  afterAll(async () => {
    redis?.restore();
    await t?.close();
    await redis?.close();
    await site?.close();
  });

  it('counts the caps in this process while Redis is away, and in Redis again once it is back', async () => {
    const callCrawler = () => timed(calls.crawler('/capture.html'));
    await logged(t, 'redis connected; caps are shared');
    // Two of the minute's three calls, counted in Redis.
    for (let i = 0; i < 2; i++) expect((await callCrawler()).res.statusCode).toBe(200);

    // Partitioned: each limiter command gives up after REDIS_COMMAND_TIMEOUT_MS, and the call is
    // counted in this process instead (its own count for the minute: 1 of 3). A limiter that
    // waited for Redis would leave the call hanging here.
    redis.stall();
    const stalled = await callCrawler();
    expect(stalled.res.statusCode, `${stalled.ms.toFixed(0)} ms`).toBe(200);

    // Gone: the connection is reset, and the process's count applies.
    redis.cut();
    for (let i = 0; i < 2; i++) {
      const { res, ms } = await callCrawler();
      expect(res.statusCode, `${ms.toFixed(0)} ms`).toBe(200);
    }
    const refused = await callCrawler();
    expect(refused.res.statusCode, `${refused.ms.toFixed(0)} ms`).toBe(401);
    expect(refused.res.json()).toEqual({ error: 'Rate limit exceeded for the API key: quota per_minute' });
    expect(refused.res.headers['x-ratelimit-limit']).toBe('3');
    expect(Number(refused.res.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // Back: once the client has reconnected, Redis's count of 2 lets exactly one more call
    // through this minute.
    redis.restore();
    await logged(t, 'redis reachable again; caps are shared again');
    expect((await callCrawler()).res.statusCode).toBe(200);
    const full = await callCrawler();
    expect(full.res.statusCode).toBe(401);
    expect(full.res.json()).toEqual({ error: 'Rate limit exceeded for the API key: quota per_minute' });
    expect(await calls.used()).toBe(6);
  });
});

/** A blob store that the test can break and mend. */
interface BlobFault {
  readonly env: Record<string, string>;
  /** Reads fail too, rather than finding nothing. */
  readonly readsFail: boolean;
  break(dataDir: string): void;
  mend(dataDir: string): void;
  close(): Promise<void>;
}

async function s3Fault(): Promise<BlobFault> {
  const s3: TestS3 = await startS3rver(['blobs']);
  const endpoint = new URL(s3.endpoint);
  const forwarder = await startTcpForwarder(endpoint.hostname, Number(endpoint.port));
  return {
    env: {
      BLOB_S3_BUCKET: 'blobs',
      BLOB_S3_ENDPOINT: forwarder.via(s3.endpoint),
      BLOB_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      BLOB_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
    readsFail: true,
    break: () => forwarder.cut(),
    mend: () => forwarder.restore(),
    async close() {
      await forwarder.close();
      await s3.close();
    },
  };
}

/** The local blob directory replaced by a file: every write fails, even as root; reads find nothing. */
function fsFault(): BlobFault {
  const dirs = (dataDir: string) => ({
    blobs: path.join(dataDir, 'blobs'),
    aside: path.join(dataDir, 'blobs-aside'),
  });
  return {
    env: {},
    readsFail: false,
    break(dataDir) {
      const { blobs, aside } = dirs(dataDir);
      fs.renameSync(blobs, aside);
      fs.writeFileSync(blobs, 'not a directory');
    },
    mend(dataDir) {
      const { blobs, aside } = dirs(dataDir);
      fs.rmSync(blobs);
      fs.renameSync(aside, blobs);
    },
    close: async () => undefined,
  };
}

describe.each([
  ['an S3 bucket that stops answering', s3Fault],
  ['a local directory that cannot be written', async () => fsFault()],
])('blob store failing: %s', (_name, makeFault) => {
  let site: FixtureServer;
  let fault: BlobFault;
  let t: TestRuntime;
  let calls: ReturnType<typeof caller>;

  beforeAll(async () => {
    site = await startFixtureServer();
    fault = await makeFault();
    t = await startTestRuntime('sqlite', {
      env: {
        ...fault.env,
        // Every read goes to the store, so that its failures show.
        BLOB_MEMORY_CACHE_MB: '0',
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        NAVIGATION_TIMEOUT_MS: '4000',
      },
    });
    calls = caller(t, site, await newAccountKey(t, 'blobfault', 100));
  });
  afterAll(async () => {
    await t?.close();
    await fault?.close();
    await site?.close();
  });

  it('fails what must be stored with an unbilled 503, and treats the capture cache as a miss', async () => {
    const cached = await calls.capture('/capture.html?before', { cache: 'true' });
    expect(cached.headers['x-webcap-cache']).toBe('miss');
    const hosted = await calls.capture('/capture.html?before', { response_type: 'json' });
    expect(hosted.statusCode).toBe(200);
    const link = new URL((hosted.json() as { screenshot_url: string }).screenshot_url);
    expect((await calls.get(`${link.pathname}${link.search}`)).statusCode).toBe(200);

    fault.break(t.dataDir);
    // Nothing to deliver without the hosted file: 503, unbilled.
    const hostedAnswers: Record<string, string>[] = [
      { response_type: 'json' },
      { response_type: 'base64', cache: 'true' },
    ];
    for (const extra of hostedAnswers) {
      expect(unavailable(await calls.capture('/capture.html?during', extra))).toBe('file storage failed');
    }
    // The cache is a shortcut: an entry that cannot be read is a miss, one that cannot be kept is
    // skipped, and the caller gets (and pays for) the capture.
    for (const page of ['/capture.html?before', '/capture.html?during']) {
      const res = await calls.capture(page, { cache: 'true' });
      expect(res.statusCode, page).toBe(200);
      expect(res.headers['x-webcap-cache'], page).toBe('miss');
      expect(pngSize(res.rawPayload), page).toEqual({ width: 1280, height: 1024 });
    }
    expect((await calls.capture('/capture.html?plain')).statusCode).toBe(200);
    // A hosted file that cannot be read: 503 when the store fails, 404 when it finds nothing.
    const file = await calls.get(`${link.pathname}${link.search}`);
    if (fault.readsFail) expect(unavailable(file)).toBe('file storage failed');
    else expect(file.json()).toEqual({ error: 'Not Found' });
    expect(await calls.used()).toBe(2 + 3);

    fault.mend(t.dataDir);
    expect((await calls.capture('/capture.html?after', { response_type: 'json' })).statusCode).toBe(200);
    expect((await calls.capture('/capture.html?before', { cache: 'true' })).headers['x-webcap-cache']).toBe(
      'hit',
    );
    expect((await calls.get(`${link.pathname}${link.search}`)).statusCode).toBe(200);
    expect(await calls.used()).toBe(2 + 3 + 2);
  });
});

describe('Chromium failing to launch, again and again', () => {
  const dir = tempDir('webcap-chromium-');
  const executable = path.join(dir, 'chromium');
  const launchLog = path.join(dir, 'launches');
  /** A browser "binary" that notes each start, then fails or runs the real browser in its place. */
  const install = (then: string) =>
    fs.writeFileSync(executable, `#!/bin/sh\necho started >> '${launchLog}'\n${then}\n`, { mode: 0o755 });
  const launches = () =>
    fs.existsSync(launchLog) ? fs.readFileSync(launchLog, 'utf8').split('\n').length - 1 : 0;
  let site: FixtureServer;
  let t: TestRuntime;
  let calls: ReturnType<typeof caller>;

  beforeAll(async () => {
    install('exit 1');
    site = await startFixtureServer();
    t = await startTestRuntime('sqlite', {
      env: {
        CHROMIUM_PATH: executable,
        BROWSER_LAUNCH_BACKOFF_MS: '1000',
        BROWSER_LAUNCH_BACKOFF_MAX_MS: '2000',
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        NAVIGATION_TIMEOUT_MS: '4000',
      },
    });
    calls = caller(t, site, await newAccountKey(t, 'nobrowser', 100));
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const CANNOT_START = 'the browser could not be started; retry later';

  /** The back-off each failed launch so far set, as the pool logged it. */
  const backoffs = () =>
    t.logs
      .map((line) => JSON.parse(line) as { msg?: string; backoffMs?: number })
      .filter((line) => line.msg === 'browser launch failed')
      .map((line) => line.backoffMs);
  /** BROWSER_LAUNCH_BACKOFF_MS doubling with each failure in a row, up to BROWSER_LAUNCH_BACKOFF_MAX_MS. */
  const doubling = (failures: number) =>
    Array.from({ length: failures }, (_, i) => Math.min(2000, 1000 * 2 ** i));

  /**
   * 50 calls at once: each one a 503 with Retry-After, because the browser cannot start or, past
   * the queue (2 rendering, 32 waiting), because the pool is full. Returns the longest Retry-After
   * of the former, which tells when the next launch may be tried.
   */
  async function burst(): Promise<{ retryAfterSeconds: number }> {
    const before = launches();
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 50 }, () => calls.capture('/capture.html')));
    const ms = performance.now() - started;
    const details = responses.map(unavailable);
    for (const detail of details) {
      expect([CANNOT_START, 'all browsers are busy and the queue is full']).toContain(detail);
    }
    const cannotStart = responses.filter((_, i) => details[i] === CANNOT_START);
    expect(cannotStart.length).toBeGreaterThanOrEqual(2);
    const launched = launches() - before;
    // Launches wait out the back-off (at least 1 s) between them, so a burst makes one, or one more
    // for each second it lasted on a slow machine; never one per call.
    expect(launched, `burst of ${ms.toFixed(0)} ms`).toBeGreaterThanOrEqual(1);
    expect(launched, `burst of ${ms.toFixed(0)} ms`).toBeLessThanOrEqual(1 + Math.floor(ms / 1000));
    return { retryAfterSeconds: Math.max(...cannotStart.map((res) => Number(res.headers['retry-after']))) };
  }

  it('answers 503 with Retry-After, backs off between launch attempts, and recovers once the browser can start', async () => {
    const first = await burst();
    expect(backoffs()).toEqual(doubling(launches()));

    // Once the back-off has passed (Retry-After is the service's word for when), the next call
    // tries again; it fails too, and the back-off has doubled to its maximum.
    await sleep(first.retryAfterSeconds * 1000);
    const second = await burst();
    expect(second.retryAfterSeconds).toBe(2);
    expect(backoffs()).toEqual(doubling(launches()));

    // The browser can start again: a call still inside the back-off is told when to come back,
    // without a launch; the first call after it launches the browser, once.
    install(`exec '${DEFAULT_CHROMIUM_PATH}' "$@"`);
    const before = launches();
    let res = await calls.capture('/capture.html');
    for (let waits = 0; res.statusCode === 503 && waits < 3; waits++) {
      expect(unavailable(res)).toBe(CANNOT_START);
      expect(launches()).toBe(before);
      await sleep(Number(res.headers['retry-after']) * 1000);
      res = await calls.capture('/capture.html');
    }
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1280, height: 1024 });
    expect(launches()).toBe(before + 1);
    expect(await calls.used()).toBe(1);
  });
});
