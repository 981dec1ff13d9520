import os from 'node:os';
import type { Pool } from 'undici';
import { type CallOutcome, type PlannedCall, performCall } from './soak-calls.js';
import {
  heapAfterLastFullGc,
  mallocHeapBytes,
  openFds,
  type ProcStat,
  processMemory,
  treeSnapshot,
} from './soak-probe.js';
import type { Sample, V8Memory } from './soak-report.js';

/** After a segment: at least this long with no call in flight before a sample, so disposed contexts are gone. */
const SETTLE_MS = 1500;
/** ...and at most this long more for a recycled browser and its processes to be gone (the pool gives it 5 s). */
const SETTLE_LIMIT_MS = 20_000;
/** After a forced full collection: time for V8's concurrent sweeper to return the freed pages. */
const AFTER_GC_MS = 2000;
/** How often the service's RSS is read while calls run, for each window's low and high. */
const ENVELOPE_INTERVAL_MS = 1000;
/** Calls that get no answer at all before the soak gives up: the service is gone. */
const MAX_TRANSPORT_ERRORS = 10;

export interface SoakPlan {
  readonly calls: readonly PlannedCall[];
  /** Calls before the reference sample. */
  readonly warmup: number;
  readonly sampleEvery: number;
  readonly clients: number;
  /** Idle time before the warm-up and the final sample, so that V8 can shrink its heap. */
  readonly idleMs: number;
  /** No call starts after this (ms since the epoch). */
  readonly deadline: number;
}

export interface SoakTarget {
  readonly http: Pool;
  readonly origin: string;
  readonly key: string;
  readonly servicePid: number;
  readonly logFile: string;
  /** BROWSER_RECYCLE_RENDERS of the service, to place each sample in its browser's life. */
  readonly recycleAfterRenders: number;
  /** With `--heapsnapshot-signal` among the service's Node flags: sent after the settled samples. */
  readonly heapSnapshotSignal: NodeJS.Signals | null;
  /** A full garbage collection in the service, before each idle sample. */
  collectGarbage(): Promise<void>;
  /** Resolves once the service answers again (a heap snapshot blocks it while written). */
  responsive(): Promise<void>;
  /** The main thread's V8 heap and external memory, from the service's own /metrics. */
  v8Memory(): Promise<V8Memory>;
}

export interface SoakRun {
  readonly samples: readonly Sample[];
  readonly outcomes: readonly CallOutcome[];
  /** Every browser the service had, in launch order. */
  readonly browsers: readonly number[];
  readonly drivingMs: number;
  /** False when the time limit stopped it early. */
  readonly completed: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const describe = (stat: ProcStat) => `${stat.pid} ${stat.name} (parent ${stat.ppid})`;

/** Sample points: the warm-up, then every `sampleEvery` calls, then the last call. */
function checkpoints(count: number, warmup: number, every: number): number[] {
  const points = [warmup];
  for (let at = warmup + every; at < count; at += every) points.push(at);
  if (warmup < count) points.push(count);
  return points;
}

/**
 * Makes the planned calls in segments between sample points. Each segment is a closed loop of
 * `clients` workers; after it, with no call in flight, the service's process, its tree and the
 * machine's zombies are read. The warm-up and the final sample come after `idleMs` of idle and a
 * full garbage collection.
 * `onSample` sees each sample as it is taken.
 */
export async function runSoak(
  plan: SoakPlan,
  target: SoakTarget,
  onSample: (sample: Sample) => void,
): Promise<SoakRun> {
  const samples: Sample[] = [];
  const outcomes: CallOutcome[] = [];
  const browsers: number[] = [];
  let drivingMs = 0;
  let renders = 0;
  let storedBytes = 0;
  let transportErrors = 0;
  const { servicePid } = target;

  /** The service's RSS while calls run: the low and high of the current window. */
  let envelope = { low: Number.POSITIVE_INFINITY, high: 0 };
  const readEnvelope = () => {
    const { rss } = processMemory(servicePid);
    envelope = { low: Math.min(envelope.low, rss), high: Math.max(envelope.high, rss) };
  };

  const sample = async (idleMs: number): Promise<Sample> => {
    const busy = processMemory(servicePid).rss;
    const window = envelope.high === 0 ? { low: busy, high: busy } : envelope;
    envelope = { low: Number.POSITIVE_INFINITY, high: 0 };
    const settleStarted = Date.now();
    await sleep(Math.max(SETTLE_MS, idleMs));
    if (idleMs > 0) {
      await target.collectGarbage();
      await sleep(AFTER_GC_MS);
    }
    let snapshot = await treeSnapshot(servicePid, new Set(browsers));
    // A recycled browser's processes take a moment to exit after its group is killed, and an
    // exited process is a zombie until its parent reaps it: only what outlasts the settle time counts.
    const transientZombies = new Map(snapshot.zombies.map((zombie) => [zombie.pid, zombie]));
    const settling = () =>
      snapshot.browsers.length !== 1 || snapshot.leftovers.length > 0 || snapshot.zombies.length > 0;
    while (settling() && Date.now() - settleStarted < idleMs + SETTLE_LIMIT_MS) {
      await sleep(250);
      snapshot = await treeSnapshot(servicePid, new Set(browsers));
      for (const zombie of snapshot.zombies) transientZombies.set(zombie.pid, zombie);
    }
    for (const zombie of snapshot.zombies) transientZombies.delete(zombie.pid);
    const current = snapshot.browsers.at(-1) ?? null;
    if (current !== null && !browsers.includes(current)) browsers.push(current);
    const generation = current === null ? browsers.length : browsers.indexOf(current) + 1;
    const taken: Sample = {
      captures: outcomes.length,
      renders,
      storedBytes,
      drivingSeconds: drivingMs / 1000,
      idleSeconds: (Date.now() - settleStarted) / 1000,
      service: processMemory(servicePid),
      serviceMalloc: await mallocHeapBytes(servicePid),
      serviceBusyRss: busy,
      serviceWindow: window,
      fds: openFds(servicePid),
      heap: await heapAfterLastFullGc(target.logFile),
      v8: await target.v8Memory(),
      browserPid: current,
      generation,
      generationRenders: Math.max(0, renders - (generation - 1) * target.recycleAfterRenders),
      treeProcesses: snapshot.processes,
      treeRssSum: snapshot.rssSum,
      treePss: snapshot.pss,
      zombies: snapshot.zombies.map(describe),
      transientZombies: [...transientZombies.values()].map(describe),
      leftovers: snapshot.leftovers.length,
      loadAverage: os.loadavg()[0] ?? 0,
    };
    if (idleMs > 0 && target.heapSnapshotSignal !== null) {
      process.kill(servicePid, target.heapSnapshotSignal);
      await target.responsive();
    }
    return taken;
  };

  /** Runs `calls` over the clients, a closed loop; no call starts after the deadline. */
  const drive = async (calls: readonly PlannedCall[]): Promise<void> => {
    let next = 0;
    const started = performance.now();
    const timer = setInterval(readEnvelope, ENVELOPE_INTERVAL_MS);
    const worker = async () => {
      while (next < calls.length && Date.now() < plan.deadline) {
        const call = calls[next];
        next += 1;
        if (call === undefined) break;
        const outcome = await performCall(target.http, target.origin, target.key, call);
        outcomes.push(outcome);
        if (outcome.rendered) renders += 1;
        storedBytes += outcome.storedBytes;
        if (outcome.status === 0) transportErrors += 1;
        if (transportErrors >= MAX_TRANSPORT_ERRORS) {
          throw new Error(`${transportErrors} calls got no answer; the last: ${outcome.detail}`);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: plan.clients }, worker));
    } finally {
      clearInterval(timer);
      drivingMs += performance.now() - started;
    }
  };

  const record = async (idleMs: number) => {
    const taken = await sample(idleMs);
    samples.push(taken);
    onSample(taken);
  };

  const points = checkpoints(plan.calls.length, plan.warmup, plan.sampleEvery);
  const last = points.at(-1);
  await record(0);
  let completed = true;
  for (const point of points) {
    await drive(plan.calls.slice(outcomes.length, point));
    const stopped = outcomes.length < point;
    const settled = point === plan.warmup || point === last || stopped;
    await record(settled ? plan.idleMs : 0);
    if (stopped) {
      completed = false;
      console.log(`time limit reached after ${outcomes.length} calls`);
      break;
    }
  }
  return { samples, outcomes, browsers, drivingMs, completed };
}
