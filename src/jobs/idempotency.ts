import { canonicalJson } from '../calls/result-cache.js';
import { invalidParam } from '../errors.js';
import type { Sealer } from './sealed.js';

/** How long an Idempotency-Key names what it was first sent with (docs/jobs.md). */
const IDEMPOTENCY_WINDOW_MS = 86_400_000;

/**
 * The hash an Idempotency-Key's parameters are compared by. `baseUrl` (where hosted files are
 * linked from: PUBLIC_BASE_URL, else the address the request came to) is left out: it is the
 * service's, not the caller's, and a retry through another host name is the same request.
 */
export function idempotencyHash(sealer: Sealer, request: object): string {
  return sealer.hash(canonicalJson(request, 'baseUrl'));
}

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
