import { Type } from 'typebox';
import { Nullable } from '../schemas.js';

/** Where a job is in its life (docs/jobs.md). */
export const JobStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('failed'),
]);

/** GET and DELETE /jobs/{job_id}: the job record of DESIGN.md §2 (docs/jobs.md). */
export const JobRecordBody = Type.Object(
  {
    job_id: Type.String(),
    status: JobStatus,
    endpoint: Type.String({ description: 'the path the job was submitted to' }),
    created_at: Type.String(),
    started_at: Nullable(Type.String()),
    finished_at: Nullable(Type.String()),
    result: Type.Unknown({
      description: 'completed: the body the synchronous call returns (capture as JSON)',
    }),
    error: Nullable(Type.Object({ status: Type.Integer(), error: Type.String() })),
    webhook: Type.Optional(
      Type.Object({
        state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
        attempts: Type.Array(
          Type.Object({
            at: Type.String(),
            status: Nullable(Type.Integer()),
            error: Type.Optional(Type.String()),
          }),
        ),
      }),
    ),
  },
  { additionalProperties: false },
);
