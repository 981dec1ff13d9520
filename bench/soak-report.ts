import { quantile } from './load.js';
import { CALL_KINDS, type CallOutcome } from './soak-calls.js';
import type { HeapAfterGc, OpenFds, ProcessMemory, ProcStat } from './soak-probe.js';

/** The service's main thread as process.memoryUsage() sees it (prom-client's process metrics), in bytes. */
export interface V8Memory {
  readonly heapUsed: number;
  readonly heapTotal: number;
  /** Memory of objects V8 holds outside its heap: Buffers and ArrayBuffers. */
  readonly external: number;
}

/** One reading, taken with no call in flight and one browser alive (see soak-run.ts). */
export interface Sample {
  readonly captures: number;
  /** Calls so far that took a render slot: what the pool counts toward a recycle. */
  readonly renders: number;
  /** Bytes the calls so far made the service store as blobs (see CallOutcome.storedBytes). */
  readonly storedBytes: number;
  /** Seconds of driving so far, the pauses for samples excluded. */
  readonly drivingSeconds: number;
  /** How long the service had been idle when read: 1.5 s, or SOAK_IDLE_S for settled samples. */
  readonly idleSeconds: number;
  /** The service's memory once idle. */
  readonly service: ProcessMemory;
  /** Of the service's anonymous memory, what glibc's malloc heaps hold (see mallocHeapBytes). */
  readonly serviceMalloc: number;
  /** The service's RSS the moment the last call of the window ended. */
  readonly serviceBusyRss: number;
  /** The service's lowest and highest RSS while the window's calls ran, read every second. */
  readonly serviceWindow: { readonly low: number; readonly high: number };
  readonly fds: OpenFds;
  /** The V8 heap after the last full GC, with --trace-gc only. */
  readonly heap: HeapAfterGc | null;
  /** The main thread's heap and external memory when read. */
  readonly v8: V8Memory;
  readonly browserPid: number | null;
  /** 1 for the browser launched at start, 2 after the first recycle... */
  readonly generation: number;
  /** Renders of the current browser, about: renders − renders of the browsers before it. */
  readonly generationRenders: number;
  readonly treeProcesses: number;
  readonly treeRssSum: number;
  readonly treePss: number;
  /** Zombies under the service still there when the settle time ran out: "pid name (parent ppid)". */
  readonly zombies: readonly string[];
  /** Zombies seen at the first read that their parent reaped within the settle time. */
  readonly transientZombies: readonly string[];
  /** Processes of a browser's group outside the tree, still there when the settle time ran out. */
  readonly leftovers: number;
  readonly loadAverage: number;
}

const MB = 1_048_576;
const mb = (bytes: number) => (bytes / MB).toFixed(0);

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const SAMPLE_HEADER = [
  'captures',
  'renders',
  'gen',
  'age',
  'idle s',
  'svc RSS',
  'anon',
  'file',
  'malloc',
  'heap',
  'v8',
  'ext',
  'busy',
  'window',
  'stored',
  'fds',
  'procs',
  'tree RSS',
  'tree PSS',
  'zombies/reaped',
  'leftover',
  'load',
] as const;

export function sampleCells(sample: Sample): string[] {
  return [
    String(sample.captures),
    String(sample.renders),
    String(sample.generation),
    String(sample.generationRenders),
    sample.idleSeconds.toFixed(0),
    mb(sample.service.rss),
    mb(sample.service.rssAnon),
    mb(sample.service.rssFile),
    mb(sample.serviceMalloc),
    sample.heap === null ? '-' : `${mb(sample.heap.used)}/${mb(sample.heap.committed)}`,
    `${mb(sample.v8.heapUsed)}/${mb(sample.v8.heapTotal)}`,
    mb(sample.v8.external),
    mb(sample.serviceBusyRss),
    `${mb(sample.serviceWindow.low)}-${mb(sample.serviceWindow.high)}`,
    mb(sample.storedBytes),
    String(sample.fds.total),
    String(sample.treeProcesses),
    mb(sample.treeRssSum),
    mb(sample.treePss),
    `${sample.zombies.length}/${sample.transientZombies.length}`,
    String(sample.leftovers),
    sample.loadAverage.toFixed(1),
  ];
}

export function formatSamples(samples: readonly Sample[]): string {
  return table(SAMPLE_HEADER, samples.map(sampleCells));
}

/** Calls by kind: how many, their statuses, cache hits and latency. */
export function formatCalls(outcomes: readonly CallOutcome[]): string {
  const rows = CALL_KINDS.map((kind) => {
    const ofKind = outcomes.filter((outcome) => outcome.kind === kind);
    const statuses = new Map<number, number>();
    for (const outcome of ofKind) statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
    const latencies = ofKind.map((outcome) => outcome.latencyMs);
    return [
      kind,
      String(ofKind.length),
      [...statuses].map(([status, n]) => `${status}: ${n}`).join(', '),
      String(ofKind.filter((outcome) => outcome.cacheHit).length),
      String(ofKind.filter((outcome) => !outcome.expected).length),
      ofKind.length === 0 ? '-' : quantile(latencies, 0.5).toFixed(0),
      ofKind.length === 0 ? '-' : quantile(latencies, 0.95).toFixed(0),
    ];
  });
  return table(['kind', 'calls', 'statuses', 'hits', 'unexpected', 'p50 ms', 'p95 ms'], rows);
}

/** Each browser the run saw: its first and last sample (the tree right after it took over, and right before its recycle). */
export function formatGenerations(
  samples: readonly Sample[],
  closedRenders: ReadonlyMap<number, number>,
): string {
  const generations = [...new Set(samples.map((sample) => sample.generation))];
  const rows = generations.map((generation) => {
    const of = samples.filter((sample) => sample.generation === generation);
    const first = of[0];
    const last = of.at(-1);
    if (first === undefined || last === undefined) throw new Error('a generation without samples');
    const pid = first.browserPid;
    return [
      String(generation),
      String(pid ?? '-'),
      String(of.length),
      `${first.generationRenders} → ${last.generationRenders}`,
      `${mb(first.treeRssSum)} → ${mb(last.treeRssSum)}`,
      `${mb(first.treePss)} → ${mb(last.treePss)}`,
      pid === null ? '-' : String(closedRenders.get(pid) ?? 'open at end'),
    ];
  });
  return table(
    ['gen', 'browser pid', 'samples', 'age (renders)', 'tree RSS MB', 'tree PSS MB', 'renders when closed'],
    rows,
  );
}

export interface Goal {
  readonly name: string;
  readonly met: boolean;
  readonly detail: string;
}

const percent = (from: number, to: number) =>
  `${to >= from ? '+' : ''}${((to / from - 1) * 100).toFixed(1)} %`;

/** Within ±10 % of the reference. */
function withinTenPercent(reference: number, value: number): boolean {
  return Math.abs(value / reference - 1) <= 0.1;
}

/**
 * The sample to set against the warm-up's for the browser tree: a browser's memory depends on its
 * age (renders since launch), and the pool replaces it every recycleAfterRenders, so the end of the
 * run may fall just before or just after a recycle. The latest browser is compared at the age
 * closest to the warm-up sample's; with no recycle since the warm-up, the last sample.
 */
export function matchedTreeSample(samples: readonly Sample[], warm: Sample): Sample {
  const last = samples.at(-1) ?? warm;
  if (last.generation === warm.generation) return last;
  const ofLast = samples.filter((sample) => sample.generation === last.generation);
  const distance = (sample: Sample) => Math.abs(sample.generationRenders - warm.generationRenders);
  return ofLast.reduce((best, sample) => (distance(sample) < distance(best) ? sample : best), last);
}

export interface AfterShutdown {
  /** Processes left of any browser's process group once the service exited. */
  readonly leftovers: readonly ProcStat[];
  readonly serviceGone: boolean;
}

export function checkGoals(
  samples: readonly Sample[],
  warm: Sample,
  afterShutdown: AfterShutdown,
  completed: boolean,
): Goal[] {
  const end = samples.at(-1) ?? warm;
  const tree = matchedTreeSample(samples, warm);
  const fdAllowance = Math.max(5, Math.ceil(warm.fds.total * 0.1));
  const zombies = samples.flatMap((sample) => sample.zombies);
  const transient = samples.flatMap((sample) => sample.transientZombies);
  const leftovers = samples.reduce((sum, sample) => sum + sample.leftovers, 0);
  const afterExit = afterShutdown.leftovers.map((stat) => `${stat.pid} (${stat.state})`).join(', ');
  return [
    {
      name: 'the planned captures ran within the time limit',
      met: completed,
      detail: `${end.captures} captures`,
    },
    {
      name: 'service RSS at the end within ±10 % of after warm-up (both idle, after a full GC)',
      met: withinTenPercent(warm.service.rss, end.service.rss),
      detail:
        `${mb(warm.service.rss)} → ${mb(end.service.rss)} MB (${percent(warm.service.rss, end.service.rss)}); ` +
        `anonymous ${mb(warm.service.rssAnon)} → ${mb(end.service.rssAnon)} MB, of which malloc's heaps ` +
        `${mb(warm.serviceMalloc)} → ${mb(end.serviceMalloc)} MB; V8 heap ${mb(warm.v8.heapTotal)} → ` +
        `${mb(end.v8.heapTotal)} MB, external ${mb(warm.v8.external)} → ${mb(end.v8.external)} MB; under load, ` +
        `${mb(warm.serviceWindow.low)}-${mb(warm.serviceWindow.high)} MB in the warm-up, ` +
        `${mb(end.serviceWindow.low)}-${mb(end.serviceWindow.high)} MB in the last window`,
    },
    {
      name: 'browser tree RSS within ±10 % of after warm-up, at the same age',
      met: withinTenPercent(warm.treeRssSum, tree.treeRssSum),
      detail:
        `generation ${warm.generation} at ${warm.generationRenders} renders ${mb(warm.treeRssSum)} MB → ` +
        `generation ${tree.generation} at ${tree.generationRenders} renders ${mb(tree.treeRssSum)} MB ` +
        `(${percent(warm.treeRssSum, tree.treeRssSum)}); PSS ${mb(warm.treePss)} → ${mb(tree.treePss)} MB; ` +
        `last sample ${mb(end.treeRssSum)} MB at ${end.generationRenders} renders`,
    },
    {
      name: `open fds stable (end at most warm-up + ${fdAllowance})`,
      met: end.fds.total <= warm.fds.total + fdAllowance,
      detail: `${warm.fds.total} → ${end.fds.total} (sockets ${warm.fds.sockets} → ${end.fds.sockets}, pipes ${warm.fds.pipes} → ${end.fds.pipes}, files ${warm.fds.files} → ${end.fds.files})`,
    },
    {
      name: '0 zombies under the service, at every sample',
      met: zombies.length === 0,
      detail:
        `${zombies.length} outlasted the settle time${zombies.length === 0 ? '' : `: ${zombies.join(', ')}`}; ` +
        `${transient.length} reaped within it${transient.length === 0 ? '' : `: ${transient.join(', ')}`}`,
    },
    {
      name: '0 processes left by recycled browsers, and none by any after shutdown',
      met: leftovers === 0 && afterShutdown.leftovers.length === 0 && afterShutdown.serviceGone,
      detail:
        `${leftovers} seen at samples, ${afterShutdown.leftovers.length} after shutdown${afterExit === '' ? '' : `: ${afterExit}`}; ` +
        `service ${afterShutdown.serviceGone ? 'exited' : 'STILL RUNNING'}`,
    },
  ];
}

export function formatGoals(goals: readonly Goal[]): string {
  return goals.map((goal) => `${goal.met ? 'met   ' : 'MISSED'}  ${goal.name}: ${goal.detail}`).join('\n');
}
