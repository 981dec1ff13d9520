import type { CacheHitResult } from './cache-hits.js';
import { captureNewOverOld } from './side-by-side.js';

/** 'against': the service built from `--against`'s ref, measured beside 'service' (this checkout's). */
export type Mode = 'floor' | 'naive' | 'service' | 'against';

/** One mode at one concurrency level, as measured. */
export interface Row {
  readonly mode: Mode;
  readonly concurrency: number;
  readonly shots: number;
  readonly failures: number;
  readonly elapsedMs: number;
  readonly shotsPerSecond: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly meanMs: number;
  readonly peakMemoryBytes: number;
  readonly memorySamples: number;
  /** Average cost of one memory sample (reading /proc, in the sampler's own process), in ms. */
  readonly memorySampleMs: number;
  readonly memorySampleIntervalMs: number;
  /** CPU time of the browser's process tree per shot. */
  readonly browserCpuMsPerShot: number;
  /** CPU time per shot of the Node process beside the browser: the service's (HTTP, proxy, DB, its puppeteer) or the baseline's puppeteer client. */
  readonly nodeCpuMsPerShot: number;
  /** The machine's 1-minute load average when the measured shots ended: other work competes for the cores. */
  readonly loadAverageAtEnd: number;
}

/** A row's throughput and p50 latency relative to a baseline's at the same concurrency. */
export interface Ratios {
  readonly throughputVsFloor: number;
  readonly p50VsFloor: number;
  readonly throughputVsNaive: number;
  readonly p50VsNaive: number;
}

/** The targets, checked at concurrency 2 and 4 for the service rows. */
export interface TargetCheck {
  readonly concurrency: number;
  readonly throughputAtLeast085Floor: boolean;
  readonly p50AtMost12Floor: boolean;
  readonly aboveNaive: boolean;
}

export function ratios(rows: readonly Row[], row: Row): Ratios | null {
  const at = (mode: Mode) => rows.find((r) => r.mode === mode && r.concurrency === row.concurrency);
  const floor = at('floor');
  const naive = at('naive');
  if (floor === undefined || naive === undefined) return null;
  return {
    throughputVsFloor: row.shotsPerSecond / floor.shotsPerSecond,
    p50VsFloor: row.p50Ms / floor.p50Ms,
    throughputVsNaive: row.shotsPerSecond / naive.shotsPerSecond,
    p50VsNaive: row.p50Ms / naive.p50Ms,
  };
}

/** Whether the service meets the targets at concurrency 2 and 4. */
export function checkTargets(rows: readonly Row[]): TargetCheck[] {
  return rows
    .filter((row) => row.mode === 'service' && row.concurrency >= 2)
    .flatMap((row) => {
      const r = ratios(rows, row);
      if (r === null) return [];
      return [
        {
          concurrency: row.concurrency,
          throughputAtLeast085Floor: r.throughputVsFloor >= 0.85,
          p50AtMost12Floor: r.p50VsFloor <= 1.2,
          aboveNaive: r.throughputVsNaive > 1,
        },
      ];
    });
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
    .join('  ');
}

/**
 * The results as a plain-text table, with the service's ratios to both baselines. cpu/shot is
 * the browser tree's CPU ms per shot + this process's (service or puppeteer client); load is the
 * machine's 1-minute load average as the row ended. With `against` (the other service's label),
 * its rows go by that name and the service's rows end with their new/old ratios to them.
 */
export function formatTable(
  rows: readonly Row[],
  cache: CacheHitResult | null,
  against: string | null = null,
): string {
  const sideBySide = against === null ? [] : ['thr/old', 'p50/old', 'cpu/old'];
  const header = [
    'mode',
    'c',
    'shots',
    'shots/s',
    'p50 ms',
    'p95 ms',
    'peak MB',
    'cpu/shot',
    'load',
    'thr/floor',
    'p50/floor',
    'thr/naive',
    'p50/naive',
    ...sideBySide,
  ];
  const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
  const body = rows.map((row) => {
    const r = row.mode === 'floor' ? null : ratios(rows, row);
    const failed = row.failures > 0 ? ` (${row.failures} failed)` : '';
    const old = captureNewOverOld(rows, row);
    const newOverOld =
      against === null
        ? []
        : old === null
          ? ['', '', '']
          : [fixed(old.throughput, 2), fixed(old.p50, 2), fixed(old.cpuPerShot, 2)];
    return [
      row.mode === 'against' && against !== null ? against : row.mode,
      String(row.concurrency),
      `${row.shots}${failed}`,
      fixed(row.shotsPerSecond, 2),
      fixed(row.p50Ms, 0),
      fixed(row.p95Ms, 0),
      fixed(row.peakMemoryBytes / 1_048_576, 0),
      `${fixed(row.browserCpuMsPerShot, 0)}+${fixed(row.nodeCpuMsPerShot, 0)}`,
      fixed(row.loadAverageAtEnd, 1),
      r === null ? '' : fixed(r.throughputVsFloor, 2),
      r === null ? '' : fixed(r.p50VsFloor, 2),
      r === null || row.mode === 'naive' ? '' : fixed(r.throughputVsNaive, 2),
      r === null || row.mode === 'naive' ? '' : fixed(r.p50VsNaive, 2),
      ...newOverOld,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] ?? '').length)));
  const lines = [
    pad(header, widths),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...body.map((b) => pad(b, widths)),
  ];
  if (cache !== null) {
    lines.push(
      '',
      `cache hits: ${cache.requestsPerSecond.toFixed(0)} req/s (${cache.connections} connections, ${cache.durationSeconds.toFixed(0)} s, ` +
        `p50 ${cache.latencyP50Ms} ms, p99 ${cache.latencyP99Ms} ms, ${cache.requests} requests, ${cache.non2xx} non-2xx, ${cache.errors} errors; ` +
        `service CPU ${cache.serviceCpuMsPerRequest.toFixed(2)} ms per hit)`,
    );
  }
  return lines.join('\n');
}
