import { invalidParam } from '../errors.js';

/** How long an Idempotency-Key names what it was first sent with (docs/jobs.md). */
const IDEMPOTENCY_WINDOW_MS = 86_400_000;

/** A job, crawl or batch stored under an account's Idempotency-Key. */
export interface KeyedRow {
  readonly id: string;
  readonly created_at: string;
  readonly params_hash: string | null;
}

/**
 * What a resubmission with the key answers: the row it names, when made within the window with
 * the same parameters (`hash`); undefined when none is, its key freed (`free`) once past the
 * window; a 400 naming Idempotency-Key when the parameters differ. Jobs, crawls and batches
 * follow this one rule.
 */
export async function replayable<Row extends KeyedRow>(
  row: Row | undefined,
  hash: string,
  now: Date,
  free: (id: string) => Promise<void>,
): Promise<Row | undefined> {
  if (row === undefined) return undefined;
  if (Date.parse(row.created_at) < now.getTime() - IDEMPOTENCY_WINDOW_MS) {
    await free(row.id);
    return undefined;
  }
  if (row.params_hash !== hash) {
    throw invalidParam('Idempotency-Key', 'was used with different parameters in the last 24 hours');
  }
  return row;
}
