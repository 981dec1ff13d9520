import os from 'node:os';
import { type Baseline, closeBrowser, floorBaseline, launchDirect, naiveBaseline } from './baselines.js';
import { ownCpuMs, treeCpuMs } from './cpu-time.js';
import type { FixtureSite } from './fixture-site.js';
import { drive, quantile, type Shot } from './load.js';
import { sampleMemory } from './memory-sampler.js';
import type { Mode, Row } from './report.js';
import { type Service, startService } from './service.js';

/** A client concurrency level, how many shots each mode gets at it, and in how many rounds. */
export interface Level {
  readonly concurrency: number;
  readonly shots: number;
  readonly rounds: number;
}

/**
 * Shots before the measured ones, not counted, the same for every subject: every page is seen,
 * every worker has run twice, and a service started for the level is past its JIT warm-up, as a
 * long-running service is (at c = 4 its Node CPU a shot was 20-23 ms in shots 21-40 and 15-20
 * after; docs/performance.md, "The warm-up, and why the quick check at c = 4 moves").
 */
function warmUpShots(concurrency: number): number {
  return Math.max(40, 2 * concurrency);
}

/** One way of taking shots, set up for a level and kept until every round at that level is done. */
export interface Subject {
  readonly mode: Mode;
  readonly shoot: Shot;
  /** The browser whose process tree is measured. */
  browserPid(): Promise<number | null>;
  /** CPU time so far of the Node process doing the rest: the service's own, or puppeteer's client (this one). */
  nodeCpuMs(): number;
  close(): Promise<void>;
}

/** A baseline with plain puppeteer-core on a browser of its own (no proxy, no HTTP). */
export async function baselineSubject(
  mode: 'floor' | 'naive',
  level: Level,
  site: FixtureSite,
  executablePath: string,
): Promise<Subject> {
  const { browser, pid } = await launchDirect(executablePath);
  let baseline: Baseline;
  try {
    baseline = mode === 'floor' ? await floorBaseline(browser, level.concurrency) : naiveBaseline(browser);
  } catch (error) {
    await closeBrowser(browser, pid);
    throw error;
  }
  return {
    mode,
    shoot: async (i, worker) => {
      await baseline.shoot(site.target(i).url, worker);
    },
    browserPid: async () => pid,
    nodeCpuMs: ownCpuMs,
    close: async () => {
      await baseline.close().catch(() => undefined);
      await closeBrowser(browser, pid);
    },
  };
}

export interface ServiceSubjectOptions {
  /** BROWSER_CONCURRENCY; null keeps the service's default. */
  readonly browserConcurrency: number | null;
  readonly dataDir: string;
  readonly logFile: string;
  readonly chromiumPath: string | undefined;
  /** 'against': the service built from `--against`'s ref, whose checkout is `root`. */
  readonly mode?: 'service' | 'against';
  readonly root?: string;
}

/** The real service, configured as `options` say, through its HTTP API. */
export async function serviceSubject(
  level: Level,
  site: FixtureSite,
  options: ServiceSubjectOptions,
): Promise<Subject & { readonly service: Service }> {
  const service = await startService({
    root: options.root,
    browserConcurrency: options.browserConcurrency,
    clients: level.concurrency,
    allowPrivate: site.allowList(),
    dataDir: options.dataDir,
    logFile: options.logFile,
    chromiumPath: options.chromiumPath,
  });
  return {
    mode: options.mode ?? 'service',
    service,
    shoot: async (i) => {
      await service.shoot(site.target(i).url);
    },
    browserPid: () => service.browserPid(),
    nodeCpuMs: () => service.cpuMs(),
    close: () => service.close(),
  };
}

interface Tally {
  latenciesMs: number[];
  elapsedMs: number;
  failures: number;
  browserCpuMs: number;
  nodeCpuMs: number;
  peakBytes: number;
  memorySamples: number;
  memorySampleMs: number;
  memoryIntervalMs: number;
}

/** One round of one subject: its share of the shots, with the browser tree's memory sampled meanwhile. */
async function measureRound(subject: Subject, tally: Tally, level: Level, offset: number, shots: number) {
  const pid = await subject.browserPid();
  if (pid === null) throw new Error(`${subject.mode}: no browser process after the warm-up`);
  const cpuBefore = { browser: await treeCpuMs(pid), node: subject.nodeCpuMs() };
  const sampler = await sampleMemory(pid);
  const timing = await drive(level.concurrency, shots, subject.shoot, offset);
  const memory = await sampler.stop();
  if ((await subject.browserPid()) !== pid) {
    throw new Error(`${subject.mode}: the browser was replaced during the measured shots`);
  }
  tally.latenciesMs.push(...timing.latenciesMs);
  tally.elapsedMs += timing.elapsedMs;
  tally.failures += timing.failures;
  tally.browserCpuMs += (await treeCpuMs(pid)) - cpuBefore.browser;
  tally.nodeCpuMs += subject.nodeCpuMs() - cpuBefore.node;
  tally.peakBytes = Math.max(tally.peakBytes, memory.peakBytes);
  tally.memorySamples += memory.samples;
  tally.memorySampleMs += memory.sampleCostMs * memory.samples;
  tally.memoryIntervalMs += memory.meanIntervalMs * memory.samples;
}

function toRow(mode: Mode, concurrency: number, tally: Tally): Row {
  const shots = tally.latenciesMs.length;
  const per = (total: number) => total / Math.max(1, shots);
  const samples = Math.max(1, tally.memorySamples);
  return {
    mode,
    concurrency,
    shots,
    failures: tally.failures,
    elapsedMs: tally.elapsedMs,
    shotsPerSecond: (shots / tally.elapsedMs) * 1000,
    p50Ms: quantile(tally.latenciesMs, 0.5),
    p95Ms: quantile(tally.latenciesMs, 0.95),
    meanMs: per(tally.latenciesMs.reduce((sum, v) => sum + v, 0)),
    peakMemoryBytes: tally.peakBytes,
    memorySamples: tally.memorySamples,
    memorySampleMs: tally.memorySampleMs / samples,
    memorySampleIntervalMs: tally.memoryIntervalMs / samples,
    browserCpuMsPerShot: per(tally.browserCpuMs),
    nodeCpuMsPerShot: per(tally.nodeCpuMs),
    loadAverageAtEnd: os.loadavg()[0] ?? 0,
  };
}

/**
 * Every subject of a level, warmed up, then measured in interleaved rounds: round r runs each
 * subject in turn (the order rotating from round to round) on the same targets. A busy moment of
 * the machine, or a slow drift, thus falls on every subject alike rather than on whichever ran
 * then, and the ratios between them hold even when absolute speeds move.
 */
export async function measureLevel(subjects: readonly Subject[], level: Level): Promise<Row[]> {
  const warmUp = warmUpShots(level.concurrency);
  for (const subject of subjects) {
    const warm = await drive(level.concurrency, warmUp, subject.shoot);
    if (warm.failures > 0)
      throw new Error(`${subject.mode}: ${warm.failures} of ${warmUp} warm-up shots failed`);
  }
  const tallies = subjects.map(
    (): Tally => ({
      latenciesMs: [],
      elapsedMs: 0,
      failures: 0,
      browserCpuMs: 0,
      nodeCpuMs: 0,
      peakBytes: 0,
      memorySamples: 0,
      memorySampleMs: 0,
      memoryIntervalMs: 0,
    }),
  );
  const perRound = Math.ceil(level.shots / level.rounds);
  for (let round = 0; round < level.rounds; round++) {
    const offset = warmUp + round * perRound;
    for (let k = 0; k < subjects.length; k++) {
      const index = (round + k) % subjects.length;
      const subject = subjects[index];
      const tally = tallies[index];
      if (subject === undefined || tally === undefined) continue;
      await measureRound(subject, tally, level, offset, perRound);
    }
  }
  return subjects.map((subject, i) => toRow(subject.mode, level.concurrency, tallies[i] as Tally));
}
