import { type Static, Type } from 'typebox';
import { errorResponse, WebcapError } from '../errors.js';
import type { JobRow } from './job-store.js';

/** Where a job is in its life (docs/jobs.md). */
export const JobStatusSchema = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('failed'),
]);

const WebhookAttemptSchema = Type.Object({
  at: Type.String(),
  status: Type.Union([Type.Null(), Type.Integer()], {
    description: "the receiver's HTTP status; null when no answer came (refused, unreachable, timeout)",
  }),
  error: Type.Optional(Type.String()),
});

/** One webhook delivery attempt as the job record shows it. */
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;

export const WebhookLogSchema = Type.Object({
  state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Array(WebhookAttemptSchema),
});

/** The webhook part of a job, stored as JSON in its row. */
export type WebhookLog = Static<typeof WebhookLogSchema>;

/** GET and DELETE /jobs/{job_id}: the job record of DESIGN.md §2 (docs/jobs.md); the schema it is declared and checked with. */
export const JobRecordSchema = Type.Object(
  {
    job_id: Type.String(),
    status: JobStatusSchema,
    endpoint: Type.String({ description: 'the path the job was submitted to' }),
    created_at: Type.String(),
    started_at: Type.Union([Type.Null(), Type.String()]),
    finished_at: Type.Union([Type.Null(), Type.String()]),
    result: Type.Unknown({
      description: 'completed: the body the synchronous call returns (capture as JSON)',
    }),
    error: Type.Union([Type.Null(), Type.Object({ status: Type.Integer(), error: Type.String() })]),
    webhook: Type.Optional(WebhookLogSchema),
  },
  { additionalProperties: false },
);

/**
 * The job record of DESIGN.md §2 as JSON bytes. `result` is the stored body of the call, already
 * JSON: spliced in as it is, not parsed and serialized again (a content result can be megabytes).
 */
export function jobRecordJson(row: JobRow, result: Buffer | null): Buffer {
  const fields: Omit<Static<typeof JobRecordSchema>, 'result'> = {
    job_id: row.id,
    status: row.status,
    endpoint: row.path,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    error:
      row.error_status === null
        ? null
        : {
            status: row.error_status,
            error: row.error_message ?? errorResponse(new WebcapError('internal')).body.error,
          },
    ...(row.webhook === null ? {} : { webhook: JSON.parse(row.webhook) as WebhookLog }),
  };
  const head = JSON.stringify(fields);
  return Buffer.concat([
    Buffer.from(`${head.slice(0, -1)},"result":`),
    result ?? Buffer.from('null'),
    Buffer.from('}'),
  ]);
}
