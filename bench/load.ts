/** What one measured phase produced: every shot's latency and the wall time of the whole phase. */
export interface PhaseTiming {
  readonly latenciesMs: readonly number[];
  readonly elapsedMs: number;
  readonly failures: number;
}

/** A shot: target number `i`, by worker `worker`; resolves when the image bytes are in hand. */
export type Shot = (i: number, worker: number) => Promise<void>;

/**
 * Runs `count` shots over `concurrency` workers, each taking the next target number as soon as
 * its previous shot is done (a closed loop: at most `concurrency` shots in flight). Target
 * numbers start at `offset`. A failed shot is counted, not retried, and not in the latencies.
 */
export async function drive(
  concurrency: number,
  count: number,
  shot: Shot,
  offset = 0,
): Promise<PhaseTiming> {
  const latenciesMs: number[] = [];
  let next = 0;
  let failures = 0;
  let firstError: unknown = null;
  const started = performance.now();
  const worker = async (id: number) => {
    while (next < count) {
      const i = offset + next;
      next += 1;
      const shotStarted = performance.now();
      try {
        await shot(i, id);
        latenciesMs.push(performance.now() - shotStarted);
      } catch (error) {
        failures += 1;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, id) => worker(id)));
  const elapsedMs = performance.now() - started;
  if (failures > 0) console.error(`  ${failures} failed shots; the first:`, firstError);
  return { latenciesMs, elapsedMs, failures };
}

/** The q-quantile (0..1) of the values, by the nearest-rank method. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}
