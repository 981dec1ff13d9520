import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromiumArgs } from '../src/browser/chromium-args.js';
import { BrowserPool } from '../src/browser/pool.js';
import { processTree } from '../src/browser/process-tree.js';
import { loadConfig } from '../src/config.js';
import { NetworkPolicy, parseAllowList } from '../src/net/address-policy.js';
import { EgressProxy } from '../src/net/egress-proxy.js';
import { type FixtureServer, isAlive, startFixtureServer } from './helpers/chromium.js';
import { startServer } from './helpers/cli.js';
import { tempDir } from './helpers/databases.js';
import {
  browserPid,
  browserPool,
  memoryLogger,
  newAccountKey,
  startTestRuntime,
  type TestRuntime,
} from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * The render pool under the capture endpoint: isolation between calls, the bounded queue, crash
 * recovery, recycling and clean shutdown, with real Chromium.
 */
describe('browser pool', () => {
  let site: FixtureServer;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    site = await startFixtureServer();
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '1',
        MAX_QUEUE_DEPTH: '1',
        BROWSER_RECYCLE_RENDERS: '4',
        RENDER_TIMEOUT_MS: '6000',
        NAVIGATION_TIMEOUT_MS: '4000',
      },
    });
    key = await newAccountKey(t, 'pool', 1000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const capture = (query: Record<string, string>) =>
    t.runtime.app.inject({ url: `/v1/capture?${new URLSearchParams(query)}`, headers: { 'x-api-key': key } });
  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;

  it('isolates calls: nothing a page stores is visible to the next one', async () => {
    const visit = (search: string) =>
      browserPool(t.runtime).run(null, async ({ page }) => {
        await page.goto(site.url(`/isolation.html${search}`));
        return page.evaluate(() => (window as unknown as { report: Promise<unknown> }).report);
      });
    const written = await visit('?write');
    expect(written).toMatchObject({
      cookie: 'visited=yes',
      local: 'yes',
      indexedDB: ['webcap-isolation'],
      caches: ['webcap-isolation'],
      serviceWorkers: 1,
    });
    const permission = await browserPool(t.runtime).run(null, async ({ page, context }) => {
      await context.overridePermissions(site.url('/'), ['geolocation']);
      await page.goto(site.url('/isolation.html'));
      return page.evaluate(async () => (await navigator.permissions.query({ name: 'geolocation' })).state);
    });
    expect(permission).toBe('granted');
    for (let i = 0; i < 2; i++) {
      expect(await visit('?read')).toEqual({
        cookie: '',
        local: null,
        session: null,
        indexedDB: [],
        caches: [],
        serviceWorkers: 0,
        history: 2,
      });
    }
    const fresh = await browserPool(t.runtime).run(null, async ({ page }) => {
      await page.goto(site.url('/isolation.html'));
      return page.evaluate(async () => (await navigator.permissions.query({ name: 'geolocation' })).state);
    });
    expect(fresh).toBe('prompt');
  });

  it('answers 503 with Retry-After past the queue, unbilled, and serves the others', async () => {
    const before = await used();
    const slow = { url: site.url('/capture.html'), delay: '1.5' };
    const results = await Promise.all([capture(slow), capture(slow), capture(slow)]);
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses, results.map((r) => r.body).join('\n')).toEqual([200, 200, 503]);
    const refused = results.find((r) => r.statusCode === 503);
    expect(refused?.json().error).toMatch(/^Service Unavailable: /);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await used()).toBe(before + 2);
  });

  it('stops a render at RENDER_TIMEOUT_MS with a retryable 500, unbilled, and serves the next call', async () => {
    const before = await used();
    // A page that never lets a render finish: only the limit can end the call, on any machine.
    const slow = await capture({ url: site.url('/spin-after-load.html') });
    expect(slow.statusCode).toBe(500);
    expect(slow.json().error).toBe('Internal Error: timeout: the page did not render within 6000 ms');
    expect(await used()).toBe(before);
    expect((await capture({ url: site.url('/capture.html') })).statusCode).toBe(200);
  });

  it('fails the call in flight when the browser dies, unbilled, and relaunches for the next', async () => {
    await capture({ url: site.url('/capture.html') });
    const pid = await browserPid(t.runtime, t.logs);
    expect(pid).not.toBeNull();
    const before = await used();
    const asked = site.hits('/capture.html');
    const inFlight = capture({ url: site.url('/capture.html'), delay: '3' });
    // In flight once the browser has asked for the page: the render then waits out its delay.
    await vi.waitFor(() => expect(site.hits('/capture.html')).toBeGreaterThan(asked), {
      timeout: HANG_MS,
      interval: 20,
    });
    const tree = await processTree(pid as number);
    expect(tree.length).toBeGreaterThan(1);
    process.kill(pid as number, 'SIGKILL');
    const failed = await inFlight;
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error).toMatch(/^Internal Error: the browser crashed/);
    expect(await used()).toBe(before);
    const next = await capture({ url: site.url('/capture.html') });
    expect(next.statusCode).toBe(200);
    expect(await browserPid(t.runtime, t.logs)).not.toBe(pid);
    expect(await used()).toBe(before + 1);
    // Nothing of the dead browser is left: no zombie, no orphaned renderer.
    await vi.waitFor(() => expect(tree.filter(isAlive)).toEqual([]), { timeout: HANG_MS, interval: 200 });
  });

  it('recycles the browser after BROWSER_RECYCLE_RENDERS renders and leaves no process behind', async () => {
    const first = await browserPid(t.runtime, t.logs);
    const pids = new Set<number | null>();
    for (let i = 0; i < 4; i++) {
      expect((await capture({ url: site.url('/capture.html') })).statusCode).toBe(200);
      pids.add(await browserPid(t.runtime, t.logs));
    }
    // Four renders on a browser that had served some already: it was replaced exactly once.
    expect(pids.size).toBe(2);
    expect(pids.has(first)).toBe(true);
    await vi.waitFor(() => expect(isAlive(first)).toBe(false), { timeout: HANG_MS, interval: 200 });
  });

  it('closes every browser process on shutdown', async () => {
    await capture({ url: site.url('/capture.html') });
    const pid = await browserPid(t.runtime, t.logs);
    const tree = await processTree(pid);
    expect(tree.length).toBeGreaterThan(1);
    await browserPool(t.runtime).close();
    // Chromium's helpers outlive it by a moment and are reaped by init, so wait for that.
    await vi.waitFor(() => expect(tree.filter(isAlive)).toEqual([]), { timeout: HANG_MS, interval: 200 });
  });

  it('leaves no browser behind when the service itself is killed with SIGKILL', async () => {
    const server = await startServer({
      WEBCAP_DATA_DIR: tempDir(),
      BROWSER_PREWARM: 'true',
      LOG_LEVEL: 'info',
    });
    const pid = await vi.waitFor(
      () => {
        const match = /"browserPid":(\d+),"msg":"browser launched"/.exec(server.output());
        if (match?.[1] === undefined) throw new Error('browser not launched yet');
        return Number(match[1]);
      },
      { timeout: HANG_MS, interval: 200 },
    );
    const tree = await processTree(pid);
    expect(tree.filter(isAlive).length).toBeGreaterThan(1);
    server.child.kill('SIGKILL');
    await vi.waitFor(() => expect(tree.filter(isAlive)).toEqual([]), { timeout: HANG_MS, interval: 250 });
  });
});

describe('browser pool memory', () => {
  let site: FixtureServer;
  let t: TestRuntime;

  beforeAll(async () => {
    site = await startFixtureServer();
    t = await startTestRuntime('sqlite', {
      env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, BROWSER_RECYCLE_RENDERS: '100' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('keeps nothing of a finished render: its result can be collected while its browser lives on', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const results: WeakRef<object>[] = [];
    const render = async (fill: number) => {
      await browserPool(t.runtime).run(null, async ({ page }) => {
        await page.goto(site.url('/isolation.html'));
        const result = { bytes: Buffer.alloc(1_048_576, fill) };
        results.push(new WeakRef(result));
        return result;
      });
    };
    for (let i = 0; i < 2; i++) await render(i);
    // A WeakRef's target lives until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(results.map((result) => result.deref())).toEqual([undefined, undefined]);
  });
});

describe('browser pool memory limit', () => {
  let site: FixtureServer;
  let proxy: EgressProxy;
  let pool: BrowserPool;
  const { logger, logs } = memoryLogger();

  beforeAll(async () => {
    site = await startFixtureServer();
    proxy = await EgressProxy.start({
      policy: new NetworkPolicy(parseAllowList(`127.0.0.1/32:${site.port}`)),
    });
    // A pool of its own, with a limit below any browser tree: the configured floor (128 MB) is
    // not, as a tree's proportional size shrinks when other browsers share its pages.
    pool = new BrowserPool({
      ...loadConfig({}).browser,
      concurrency: 1,
      maxQueue: 1,
      recycleAfterRenders: 1000,
      maxMemoryBytes: 1024 * 1024,
      args: chromiumArgs({ proxyPort: proxy.port, sandbox: 'auto' }),
      egress: proxy,
      logger,
    });
  });
  afterAll(async () => {
    await pool?.close();
    await proxy?.stop();
    await site?.close();
  });

  it('recycles a browser whose process tree is over its memory limit, checked every ten renders', async () => {
    const launched = () =>
      logs.flatMap((line) => /"browserPid":(\d+),"msg":"browser launched"/.exec(line)?.[1] ?? []).map(Number);
    const over = () =>
      logs.filter((line) => line.includes('"msg":"browser over its memory limit; recycling"'));
    for (let i = 0; i < 9; i++) {
      await pool.run(null, ({ page }) => page.goto(site.url('/capture.html')));
    }
    expect(over()).toEqual([]);
    await pool.run(null, ({ page }) => page.goto(site.url('/capture.html')));
    await vi.waitFor(() => expect(over()).toHaveLength(1), { timeout: HANG_MS, interval: 200 });
    const first = launched()[0] as number;
    expect(over()[0]).toContain(`"browserPid":${first}`);
    await vi.waitFor(() => expect(isAlive(first)).toBe(false), { timeout: HANG_MS, interval: 200 });
    await pool.run(null, ({ page }) => page.goto(site.url('/capture.html')));
    expect(launched()).toHaveLength(2);
  });
});

describe('browser pool close', () => {
  it('closes a browser that was still launching when the pool closed', async () => {
    const t = await startTestRuntime('sqlite', { env: { BROWSER_PREWARM: 'false' } });
    try {
      const pool = browserPool(t.runtime);
      const warming = pool.warmUp().catch(() => undefined);
      await pool.close();
      await warming;
      const launched = t.logs
        .map((line) => /"browserPid":(\d+),"msg":"browser launched"/.exec(line)?.[1])
        .filter((pid) => pid !== undefined);
      expect(launched).toHaveLength(1);
      // Closed by the time close() answered, not left to outlive the pool.
      expect(isAlive(Number(launched[0]))).toBe(false);
    } finally {
      await t.close();
    }
  });
});
