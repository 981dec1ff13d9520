import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { loadConfig } from '../src/config.js';
import { startFixtureSite } from './fixture-site.js';
import { collectGarbage } from './inspector-gc.js';
import { type Service, startService } from './service.js';
import { planCalls } from './soak-calls.js';
import { groupMembers, procStat } from './soak-probe.js';
import {
  type AfterShutdown,
  checkGoals,
  formatCalls,
  formatGenerations,
  formatGoals,
  formatSamples,
  SAMPLE_HEADER,
  sampleCells,
} from './soak-report.js';
import { runSoak, type SoakRun } from './soak-run.js';

/*
 * `npm run soak`: the production build under a long, varied load, for leaks. It starts the
 * service as the bench does, makes SOAK_CAPTURES calls of many kinds (soak-calls.ts) with
 * SOAK_CLIENTS clients, and reads the service's RSS and open fds, its browser tree's memory,
 * zombies and what recycled browsers left, with no call in flight (soak-run.ts).
 * docs/performance.md ("Soak") says how to read it. Settings:
 *
 *   SOAK_CAPTURES=5000      calls in all (a JSON capture whose file is then fetched, or an async
 *                           job polled to its end, counts once)
 *   SOAK_WARMUP=500         calls before the reference sample
 *   SOAK_CLIENTS=3          concurrent clients (closed loop)
 *   SOAK_SAMPLE_EVERY=250   calls between samples after the warm-up
 *   SOAK_IDLE_S=60          idle seconds before the warm-up and the final sample, each then taken
 *                           after a full garbage collection (through the service's inspector)
 *   SOAK_TIME_LIMIT_S=7200  no call starts after this; the run reports what it did
 *   SOAK_SEED=1             the call plan's seed
 *   SOAK_SERVICE_ENV=       more of the service's environment, "NAME=value NAME=value", to try a
 *                           setting one at a time; the service gets MALLOC_ARENA_MAX=2 and
 *                           MALLOC_MMAP_THRESHOLD_=131072 as `make start` gives them, and
 *                           "MALLOC_ARENA_MAX= MALLOC_MMAP_THRESHOLD_=" measures glibc's defaults
 *
 * Diagnostics, through the service's Node flags (BENCH_SERVICE_NODE_ARGS, as for the bench):
 *   --trace-gc                      each sample shows the V8 heap after the last full GC
 *   --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=DIR
 *                                   a heap snapshot after the warm-up and the final sample,
 *                                   compared by bench/soak-heap-diff.ts
 */

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
/** How long killed browser processes may take to disappear once the service has exited. */
const SHUTDOWN_GRACE_MS = 5000;
/** The loopback address where the unreachable calls go: allowed, with nothing listening. */
const DEAD_HOST = '127.0.0.9';

function setting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  }
  return value;
}

function options() {
  const captures = setting('SOAK_CAPTURES', 5000, 10, 100_000);
  const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS ?? '';
  return {
    captures,
    warmup: Math.min(captures, setting('SOAK_WARMUP', 500, 1, 100_000)),
    clients: setting('SOAK_CLIENTS', 3, 1, 16),
    sampleEvery: setting('SOAK_SAMPLE_EVERY', 250, 10, 100_000),
    idleSeconds: setting('SOAK_IDLE_S', 60, 0, 600),
    timeLimitSeconds: setting('SOAK_TIME_LIMIT_S', 7200, 10, 86_400),
    seed: setting('SOAK_SEED', 1, 0, 2 ** 31),
    serviceNodeArgs: nodeArgs,
    serviceEnv: serviceEnv(process.env.SOAK_SERVICE_ENV ?? ''),
    heapSnapshotSignal: (/--heapsnapshot-signal=(SIG\w+)/.exec(nodeArgs)?.[1] ??
      null) as NodeJS.Signals | null,
  };
}

/** SOAK_SERVICE_ENV's "NAME=value" pairs. */
function serviceEnv(raw: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of raw.split(' ').filter((item) => item !== '')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
    if (match?.[1] === undefined)
      throw new Error(`SOAK_SERVICE_ENV: ${JSON.stringify(pair)} is not NAME=value`);
    env[match[1]] = match[2] ?? '';
  }
  return env;
}

/** A gauge's value in a Prometheus text exposition. */
function gauge(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (match?.[1] === undefined) throw new Error(`/metrics has no ${name}`);
  return Number(match[1]);
}

/** A loopback port where nothing listens: bound to find a free one, then released. */
function closedPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service's pid, as the parent of its browser (bench/service.ts keeps the child to itself). */
async function servicePidOf(service: Service): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const browserPid = await service.browserPid();
    const parent = browserPid === null ? undefined : procStat(browserPid)?.ppid;
    if (parent !== undefined) return parent;
    await sleep(300);
  }
  throw new Error('the service launched no browser within 30 s');
}

/** `renders` of each browser the service closed, from its log ("browser closed"). */
function closedBrowsers(logFile: string): Map<number, number> {
  const renders = new Map<number, number>();
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{') || !line.includes('"browser closed"')) continue;
    const entry = JSON.parse(line) as { browserPid: number; renders: number };
    renders.set(entry.browserPid, entry.renders);
  }
  return renders;
}

function gitCommit(): string | null {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim();
    return dirty === '' ? commit : `${commit} with uncommitted changes in src/`;
  } catch {
    return null;
  }
}

/** Starts the site and the service, runs the soak, stops both and checks what they left. */
async function soak(settings: ReturnType<typeof options>, logFile: string, recycleAfterRenders: number) {
  const site = await startFixtureSite();
  const deadPort = await closedPort(DEAD_HOST);
  const inspectorPort = await closedPort('127.0.0.1');
  const work = mkdtempSync(path.join(os.tmpdir(), 'webcap-soak-'));
  const metricsToken = randomBytes(16).toString('hex');
  let service: Service | null = null;
  let http: Pool | null = null;
  let serviceClosed: Promise<void> | null = null;
  const closeService = () => {
    if (service === null) return Promise.resolve();
    serviceClosed ??= service.close();
    return serviceClosed;
  };
  // Interrupted, the soak still stops what it started: the service (and so its browsers) and the site.
  const interrupted = () => {
    console.error('interrupted: stopping the service and the site');
    void Promise.allSettled([closeService(), site.close()]).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    service = await startService({
      browserConcurrency: null,
      clients: settings.clients,
      allowPrivate: `${site.allowList()},${DEAD_HOST}/32:${deadPort}`,
      dataDir: work,
      logFile,
      chromiumPath: process.env.CHROMIUM_PATH,
      // The inspector, on loopback, for a full collection before each idle sample.
      nodeArgs: [`--inspect=127.0.0.1:${inspectorPort}`],
      // glibc's malloc as `make start` and `npm start` set it (docs/performance.md, "Soak").
      env: {
        METRICS_TOKEN: metricsToken,
        MALLOC_ARENA_MAX: '2',
        MALLOC_MMAP_THRESHOLD_: '131072',
        ...settings.serviceEnv,
      },
    });
    const servicePid = await servicePidOf(service);
    console.log(`service pid ${servicePid}, log ${path.relative('.', logFile)}\n`);
    const client = new Pool(service.baseUrl, {
      connections: settings.clients,
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    });
    http = client;
    console.log(`MB unless said; age: renders of the current browser\n${SAMPLE_HEADER.join('\t')}`);
    const run: SoakRun = await runSoak(
      {
        calls: planCalls(settings.captures, site, `http://${DEAD_HOST}:${deadPort}/`, settings.seed),
        warmup: settings.warmup,
        sampleEvery: settings.sampleEvery,
        clients: settings.clients,
        idleMs: settings.idleSeconds * 1000,
        deadline: Date.now() + settings.timeLimitSeconds * 1000,
      },
      {
        http: client,
        origin: service.baseUrl,
        key: service.key,
        servicePid,
        logFile,
        recycleAfterRenders,
        heapSnapshotSignal: settings.heapSnapshotSignal,
        collectGarbage: () => collectGarbage(inspectorPort),
        async responsive() {
          const response = await client.request({ method: 'GET', path: '/healthz' });
          await response.body.arrayBuffer();
        },
        async v8Memory() {
          const response = await client.request({
            method: 'GET',
            path: '/metrics',
            headers: { authorization: `Bearer ${metricsToken}` },
          });
          const text = await response.body.text();
          if (response.statusCode !== 200) throw new Error(`/metrics answered ${response.statusCode}`);
          return {
            heapUsed: gauge(text, 'webcap_nodejs_heap_size_used_bytes'),
            heapTotal: gauge(text, 'webcap_nodejs_heap_size_total_bytes'),
            external: gauge(text, 'webcap_nodejs_external_memory_bytes'),
          };
        },
      },
      (sample) => console.log(sampleCells(sample).join('\t')),
    );
    await client.close();
    http = null;
    await closeService();
    // The pool kills each browser's process group; once the service has exited, none may have
    // members left. Killed processes take a moment to be reaped, hence the few seconds' grace.
    const groups = new Set(run.browsers);
    let left = groupMembers(groups);
    for (let waited = 0; left.length > 0 && waited < SHUTDOWN_GRACE_MS; waited += 250) {
      await sleep(250);
      left = groupMembers(groups);
    }
    const afterShutdown: AfterShutdown = { leftovers: left, serviceGone: procStat(servicePid) === null };
    return { run, afterShutdown };
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await http?.close();
    await closeService();
    await site.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const settings = options();
  const startedAt = new Date();
  const recycleAfterRenders = loadConfig({}).browser.recycleAfterRenders;
  const stamp = startedAt
    .toISOString()
    .replaceAll(':', '-')
    .replace(/\.\d+Z$/, 'Z');
  const resultsDir = path.join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const logFile = path.join(resultsDir, `${stamp}-soak-service.log`);
  console.log(
    `webcap soak: ${settings.captures} calls, ${settings.clients} clients, warm-up ${settings.warmup}, ` +
      `a sample every ${settings.sampleEvery}, ${settings.idleSeconds} s idle before the warm-up and final ` +
      `samples, at most ${settings.timeLimitSeconds} s; ${os.availableParallelism()} cores, load average ` +
      `${os.loadavg()[0]?.toFixed(2)}; the service's defaults (BROWSER_CONCURRENCY 2, a browser recycled ` +
      `every ${recycleAfterRenders} renders)${settings.serviceNodeArgs === '' ? '' : `, node ${settings.serviceNodeArgs}`}` +
      `${Object.keys(settings.serviceEnv).length === 0 ? '' : `, service env ${JSON.stringify(settings.serviceEnv)}`}`,
  );

  const { run, afterShutdown } = await soak(settings, logFile, recycleAfterRenders);
  const { samples, outcomes } = run;
  const warm = samples[1];
  if (warm === undefined) throw new Error('no sample after the warm-up');
  const closed = closedBrowsers(logFile);
  const goals = checkGoals(samples.slice(1), warm, afterShutdown, run.completed);
  const drivingSeconds = run.drivingMs / 1000;
  const statuses = new Map<number, number>();
  for (const outcome of outcomes) statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
  const unexpected = outcomes.filter((outcome) => !outcome.expected);
  const rendered = outcomes.filter((outcome) => outcome.rendered).length;

  console.log(`\n${formatSamples(samples)}`);
  console.log(`\nbrowsers (one per recycle):\n${formatGenerations(samples, closed)}`);
  console.log(`\ncalls:\n${formatCalls(outcomes)}`);
  console.log(
    `\n${outcomes.length} calls in ${drivingSeconds.toFixed(0)} s of driving ` +
      `(${(outcomes.length / drivingSeconds).toFixed(2)} calls/s, ${(rendered / drivingSeconds).toFixed(2)} renders/s); ` +
      `by status: ${[...statuses].map(([status, n]) => `${status}: ${n}`).join(', ')}; ` +
      `${unexpected.length} not as expected`,
  );
  for (const outcome of unexpected.slice(0, 5)) {
    console.log(`  ${outcome.kind} answered ${outcome.status}: ${outcome.detail}`);
  }
  console.log(`\n${formatGoals(goals)}`);

  const file = path.join(resultsDir, `${stamp}-soak.json`);
  const report = {
    startedAt: startedAt.toISOString(),
    durationSeconds: (Date.now() - startedAt.getTime()) / 1000,
    drivingSeconds,
    commit: gitCommit(),
    machine: {
      cpus: os.availableParallelism(),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    settings: { ...settings, recycleAfterRenders },
    samples,
    browsersClosed: Object.fromEntries(closed),
    statuses: Object.fromEntries(statuses),
    unexpected: unexpected.slice(0, 50),
    goals,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwritten to ${path.relative('.', file)} (service log: ${path.relative('.', logFile)})`);
  if (goals.some((goal) => !goal.met)) process.exitCode = 1;
}

main().then(
  () => process.exit(),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
