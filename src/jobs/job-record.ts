import type { JobRow } from './job-store.js';

/** One webhook delivery attempt as the job record shows it. */
export interface WebhookAttempt {
  readonly at: string;
  /** The receiver's HTTP status; null when no answer came (refused, unreachable, timeout). */
  readonly status: number | null;
  readonly error?: string;
}

/** The webhook part of a job, stored as JSON in its row. */
export interface WebhookLog {
  readonly state: 'pending' | 'delivered' | 'failed';
  readonly attempts: readonly WebhookAttempt[];
}

/**
 * The job record of DESIGN.md §2 as JSON bytes. `result` is the stored body of the call, already
 * JSON: spliced in as it is, not parsed and serialized again (a content result can be megabytes).
 */
export function jobRecordJson(row: JobRow, result: Buffer | null): Buffer {
  const fields = {
    job_id: row.id,
    status: row.status,
    endpoint: row.path,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    error:
      row.error_status === null
        ? null
        : { status: row.error_status, error: row.error_message ?? 'Internal Error' },
    ...(row.webhook === null ? {} : { webhook: JSON.parse(row.webhook) as WebhookLog }),
  };
  const head = JSON.stringify(fields);
  return Buffer.concat([
    Buffer.from(`${head.slice(0, -1)},"result":`),
    result ?? Buffer.from('null'),
    Buffer.from('}'),
  ]);
}
