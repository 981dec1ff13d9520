import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { writeAudit } from '../../admin/audit.js';
import { errorResponse, WebcapError } from '../../errors.js';
import {
  JobRecordSchema,
  JobStatusSchema,
  type WebhookLog,
  WebhookLogSchema,
} from '../../jobs/job-record.js';
import { type ListedJob, listJobs } from '../../jobs/job-store.js';
import { Nullable } from '../../nullable.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { sendRecord } from '../routes/jobs.js';
import { accountOf, actorOf } from './access.js';
import { KeyRefSchema, ListOf, PageQuery, pageRequest } from './schemas.js';

/** A job as the console's list shows it (docs/console.md `JobSummary`); the result is read one job at a time. */
const JobSummarySchema = Type.Object({
  job_id: Type.String(),
  status: JobStatusSchema,
  engine: Type.String(),
  endpoint: Type.String(),
  key: KeyRefSchema,
  created_at: Type.String(),
  started_at: Nullable(Type.String()),
  finished_at: Nullable(Type.String()),
  attempts: Type.Integer(),
  error: Nullable(Type.Object({ status: Type.Integer(), error: Type.String() })),
  webhook: Nullable(WebhookLogSchema),
});

function jobSummary(row: ListedJob): Static<typeof JobSummarySchema> {
  return {
    job_id: row.id,
    status: row.status,
    engine: row.engine,
    endpoint: row.path,
    key: { id: row.key_id, alias: row.key_alias ?? '', prefix: row.key_prefix ?? '' },
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    attempts: row.attempts,
    error:
      row.error_status === null
        ? null
        : {
            status: row.error_status,
            error: row.error_message ?? errorResponse(new WebcapError('internal')).body.error,
          },
    webhook: row.webhook === null ? null : (JSON.parse(row.webhook) as WebhookLog),
  };
}

const JobParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) },
  { additionalProperties: false },
);

/** The account's async jobs: the list, one job's record with its result, cancelling a queued one. */
export function jobRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const config = { console: 'account' as const };
  return async (app) => {
    app.get(
      '/console/api/jobs',
      {
        config,
        schema: {
          hide: true,
          querystring: Type.Object(
            { status: Type.Optional(JobStatusSchema), ...PageQuery },
            { additionalProperties: false },
          ),
          response: { 200: ListOf(JobSummarySchema), ...errors(400, 401, 403) },
        },
      },
      async (request) => {
        const { status } = request.query;
        const filter = { accountId: accountOf(request).id, status };
        const page = await listJobs(deps.store.db, filter, pageRequest(request.query), deps.clock());
        return { items: page.items.map(jobSummary), next: page.next };
      },
    );

    // The job record of GET /jobs/{job_id}, as stored (its result spliced in), sent as bytes.
    app.get(
      '/console/api/jobs/:id',
      {
        config,
        schema: {
          hide: true,
          params: JobParams,
          response: { 200: JobRecordSchema, ...errors(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        return sendRecord(reply, await deps.jobs.record({ account: accountOf(request) }, request.params.id));
      },
    );

    app.delete(
      '/console/api/jobs/:id',
      {
        config,
        schema: {
          hide: true,
          params: JobParams,
          response: { 200: JobRecordSchema, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const record = await deps.jobs.cancel({ account }, request.params.id);
        await writeAudit(
          deps.store.db,
          actorOf(request),
          { action: 'job.cancel', accountId: account.id, target: request.params.id },
          deps.clock(),
        );
        return sendRecord(reply, record);
      },
    );
  };
}
