import type { CacheHitResult } from './cache-hits.js';
import type { ContentHttpResult } from './content.js';
import type { Row } from './report.js';

/*
 * `--against`: the current service's figures over those of the service built from the other
 * ref, both measured in the same run, in turn (new/old; above 1 is more, of throughput as of
 * latency or CPU).
 */

/** A capture level's new/old ratios: the 'service' row over the 'against' row. */
export interface CaptureNewOverOld {
  readonly concurrency: number;
  readonly throughput: number;
  readonly p50: number;
  readonly p95: number;
  /** The browser tree's CPU per shot plus the service process's. */
  readonly cpuPerShot: number;
  readonly browserCpuPerShot: number;
  readonly serviceCpuPerShot: number;
}

export interface CacheHitsNewOverOld {
  readonly requestsPerSecond: number;
  readonly cpuMsPerHit: number;
  readonly p50: number;
}

export interface ContentNewOverOld {
  readonly concurrency: number;
  readonly callsPerSecond: number;
  readonly p50: number;
}

/** What `--against` adds to the results: the ratios, and the same said in plain lines. */
export interface SideBySide {
  readonly captures: readonly CaptureNewOverOld[];
  readonly cacheHits: CacheHitsNewOverOld | null;
  readonly contentHttp: ContentNewOverOld | null;
  readonly summary: readonly string[];
}

/** `row` (the current service at a level) over the 'against' row at the same level; null without one. */
export function captureNewOverOld(rows: readonly Row[], row: Row): CaptureNewOverOld | null {
  const old = rows.find((r) => r.mode === 'against' && r.concurrency === row.concurrency);
  if (row.mode !== 'service' || old === undefined) return null;
  return {
    concurrency: row.concurrency,
    throughput: row.shotsPerSecond / old.shotsPerSecond,
    p50: row.p50Ms / old.p50Ms,
    p95: row.p95Ms / old.p95Ms,
    cpuPerShot:
      (row.browserCpuMsPerShot + row.nodeCpuMsPerShot) / (old.browserCpuMsPerShot + old.nodeCpuMsPerShot),
    browserCpuPerShot: row.browserCpuMsPerShot / old.browserCpuMsPerShot,
    serviceCpuPerShot: row.nodeCpuMsPerShot / old.nodeCpuMsPerShot,
  };
}

const x = (ratio: number) => `${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'} x`;

/**
 * Every new/old ratio the run measured, and a summary: one line per capture level, then cache
 * hits and content calls, each with both services' figures.
 */
export function sideBySide(
  against: { readonly label: string; readonly ref: string },
  /** This checkout's commit, as the summary names it. */
  current: string,
  rows: readonly Row[],
  cache: { readonly newer: CacheHitResult; readonly older: CacheHitResult } | null,
  content: { readonly newer: ContentHttpResult; readonly older: ContentHttpResult } | null,
): SideBySide {
  const captures = rows.flatMap((row) => captureNewOverOld(rows, row) ?? []);
  const summary = [
    `measured side by side in one run, new: this checkout (${current}), old: ${against.label} ` +
      `(--against=${against.ref}); new/old:`,
  ];
  for (const c of captures) {
    summary.push(
      `  captures at c=${c.concurrency}: throughput ${x(c.throughput)}, p50 ${x(c.p50)}, ` +
        `CPU per shot ${x(c.cpuPerShot)} (browser ${x(c.browserCpuPerShot)}, service ${x(c.serviceCpuPerShot)})`,
    );
  }
  let cacheHits: CacheHitsNewOverOld | null = null;
  if (cache !== null) {
    const { newer, older } = cache;
    cacheHits = {
      requestsPerSecond: newer.requestsPerSecond / older.requestsPerSecond,
      cpuMsPerHit: newer.serviceCpuMsPerRequest / older.serviceCpuMsPerRequest,
      p50: newer.latencyP50Ms / older.latencyP50Ms,
    };
    summary.push(
      `  cache hits: ${x(cacheHits.requestsPerSecond)} req/s (${newer.requestsPerSecond.toFixed(0)} against ` +
        `${older.requestsPerSecond.toFixed(0)}), CPU per hit ${x(cacheHits.cpuMsPerHit)} ` +
        `(${newer.serviceCpuMsPerRequest.toFixed(2)} against ${older.serviceCpuMsPerRequest.toFixed(2)} ms), ` +
        `in ${newer.slices} slices each, taken in turn`,
    );
  }
  let contentHttp: ContentNewOverOld | null = null;
  if (content !== null) {
    const { newer, older } = content;
    contentHttp = {
      concurrency: newer.concurrency,
      callsPerSecond: newer.callsPerSecond / older.callsPerSecond,
      p50: newer.p50Ms / older.p50Ms,
    };
    summary.push(
      `  content calls at c=${newer.concurrency}: ${x(contentHttp.callsPerSecond)} calls/s ` +
        `(${newer.callsPerSecond.toFixed(2)} against ${older.callsPerSecond.toFixed(2)}), p50 ${x(contentHttp.p50)} ` +
        `(${newer.p50Ms.toFixed(0)} against ${older.p50Ms.toFixed(0)} ms)`,
    );
  }
  return { captures, cacheHits, contentHttp, summary };
}
