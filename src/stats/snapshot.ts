import { sql } from 'kysely';
import { type Static, Type } from 'typebox';
import { WebcapError } from '../errors.js';
import type { Db } from '../store/db.js';
import type { RequestLogTable, RequestStatsTable } from '../store/schema.js';

/** Durations above this are left out of the average (spec, Stats snapshot). */
export const LONG_REQUEST_MS = 60_000;
/** Pseudo-requests at 100 % added to every window, so that a few failures in a quiet hour do not read as an outage (DESIGN.md §2). */
const SMOOTHING_REQUESTS = 10;
const WINDOW_MINUTES = 60;

const HealthSchema = Type.Union([
  Type.Literal('operational'),
  Type.Literal('degraded'),
  Type.Literal('down'),
]);

export type Health = Static<typeof HealthSchema>;

/** The spec's Stats snapshot, the body of /v1/stats: the schema it is declared and checked with, and its type. */
export const StatsSnapshotSchema = Type.Object(
  {
    engine: Type.String(),
    path: Type.Union([Type.Null(), Type.String()]),
    health: HealthSchema,
    success_rate: Type.Number({
      description: 'percent, 0-100, two decimals; only 5xx are failures; smoothed at low volume',
    }),
    avg_response_time_ms: Type.Integer({ description: 'durations above 60 s excluded; 0 without data' }),
    window: Type.Literal('1h'),
  },
  { additionalProperties: false },
);

export type StatsSnapshot = Static<typeof StatsSnapshotSchema>;

/** `YYYY-MM-DDTHH:MM`: the minute bucket of an ISO timestamp. */
export function minuteOf(iso: string): string {
  return iso.slice(0, 16);
}

/** Adds logged requests to their per-minute totals, in the caller's transaction. */
export async function addToMinuteTotals(db: Db, rows: readonly RequestLogTable[]): Promise<void> {
  const totals = new Map<string, RequestStatsTable>();
  for (const row of rows) {
    const minute = minuteOf(row.created_at);
    const key = `${minute}\n${row.engine}\n${row.path}`;
    let total = totals.get(key);
    if (total === undefined) {
      total = {
        minute,
        engine: row.engine,
        path: row.path,
        requests: 0,
        failures: 0,
        duration_sum_ms: 0,
        duration_count: 0,
      };
      totals.set(key, total);
    }
    total.requests += 1;
    if (row.status >= 500) total.failures += 1;
    if (row.duration_ms <= LONG_REQUEST_MS) {
      total.duration_sum_ms += row.duration_ms;
      total.duration_count += 1;
    }
  }
  if (totals.size === 0) return;
  // In key order, so that processes flushing at once lock rows in one order and never deadlock.
  const values = [...totals.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, total]) => total);
  await db
    .insertInto('request_stats')
    .values(values)
    .onConflict((conflict) =>
      conflict.columns(['minute', 'engine', 'path']).doUpdateSet({
        requests: sql`request_stats.requests + excluded.requests`,
        failures: sql`request_stats.failures + excluded.failures`,
        duration_sum_ms: sql`request_stats.duration_sum_ms + excluded.duration_sum_ms`,
        duration_count: sql`request_stats.duration_count + excluded.duration_count`,
      }),
    )
    .execute();
}

export function healthOf(successRate: number): Health {
  if (successRate >= 90) return 'operational';
  if (successRate >= 50) return 'degraded';
  return 'down';
}

/**
 * The platform's health over the last hour for an engine (its every endpoint), a path, or a path
 * of an engine: the 60 one-minute buckets up to `now`, the current one included, summed from the
 * per-minute totals (at most 60 rows per path, whatever the traffic). Only 5xx answers count as
 * failures; the same for every caller; 503 when the totals cannot be read.
 */
export async function statsSnapshot(
  db: Db,
  now: Date,
  filter: { readonly engine: string; readonly path: string | null },
): Promise<StatsSnapshot> {
  const since = minuteOf(new Date(now.getTime() - WINDOW_MINUTES * 60_000).toISOString());
  let sums:
    | { requests: unknown; failures: unknown; duration_sum_ms: unknown; duration_count: unknown }
    | undefined;
  try {
    let query = db
      .selectFrom('request_stats')
      .select((eb) => [
        eb.fn.sum<number>('requests').as('requests'),
        eb.fn.sum<number>('failures').as('failures'),
        eb.fn.sum<number>('duration_sum_ms').as('duration_sum_ms'),
        eb.fn.sum<number>('duration_count').as('duration_count'),
      ])
      .where('minute', '>', since)
      .where('minute', '<=', minuteOf(now.toISOString()))
      .where('engine', '=', filter.engine);
    if (filter.path !== null) query = query.where('path', '=', filter.path);
    sums = await query.executeTakeFirst();
  } catch (error) {
    throw new WebcapError('unavailable', 'status data is temporarily unavailable', { cause: error });
  }
  // SUM is null over no rows, and text for PostgreSQL's numeric.
  const requests = Number(sums?.requests ?? 0);
  const failures = Number(sums?.failures ?? 0);
  const durationSum = Number(sums?.duration_sum_ms ?? 0);
  const durationCount = Number(sums?.duration_count ?? 0);
  const successRate =
    Math.round(((requests - failures + SMOOTHING_REQUESTS) / (requests + SMOOTHING_REQUESTS)) * 10_000) / 100;
  return {
    engine: filter.engine,
    path: filter.path,
    health: healthOf(successRate),
    success_rate: successRate,
    avg_response_time_ms: durationCount === 0 ? 0 : Math.round(durationSum / durationCount),
    window: '1h',
  };
}

/** Deletes request-log rows older than `retentionMs` and minute totals older than two hours; returns how many of each. */
export async function pruneRequestLog(
  db: Db,
  now: Date,
  retentionMs: number,
): Promise<{ log: number; totals: number }> {
  const logCutoff = new Date(now.getTime() - retentionMs).toISOString();
  const totalsCutoff = minuteOf(new Date(now.getTime() - 2 * WINDOW_MINUTES * 60_000).toISOString());
  const log = await db.deleteFrom('request_log').where('created_at', '<', logCutoff).executeTakeFirst();
  const totals = await db.deleteFrom('request_stats').where('minute', '<', totalsCutoff).executeTakeFirst();
  return { log: Number(log.numDeletedRows), totals: Number(totals.numDeletedRows) };
}
