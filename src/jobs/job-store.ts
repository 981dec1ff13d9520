import { sql } from 'kysely';
import { settleIn } from '../billing/ledger.js';
import type { Db } from '../store/db.js';
import { olderThan, type Page, type PageRequest, pageOf } from '../store/pages.js';
import type { JobStatus, JobsTable } from '../store/schema.js';

/*
 * The jobs table is the record of every async call, whichever queue carries it: the queue only
 * says which job to look at next. Every change of state is a conditional update (a job leaves a
 * state at most once), and the final one settles the job's unit in the same transaction, so that
 * a job is billed if and only if it completed, whatever crashes in between.
 */

export type JobRow = JobsTable;

export type NewJob = Omit<
  JobsTable,
  | 'status'
  | 'attempts'
  | 'lease_until'
  | 'started_at'
  | 'finished_at'
  | 'error_status'
  | 'error_message'
  | 'result_key'
  | 'webhook_next_at'
>;

/** Stores a queued job; false when the account already has a job under its idempotency key. */
export async function insertJob(db: Db, job: NewJob): Promise<boolean> {
  const inserted = await db
    .insertInto('jobs')
    .values({ ...job, status: 'queued', attempts: 0 })
    .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findJob(db: Db, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findByIdempotencyKey(
  db: Db,
  accountId: string,
  key: string,
): Promise<JobRow | undefined> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** Frees an idempotency key whose window has passed, so that a new submission may use it. */
export async function releaseIdempotencyKey(db: Db, id: string): Promise<void> {
  await db.updateTable('jobs').set({ idempotency_key: null }).where('id', '=', id).execute();
}

/** Jobs waiting in the queue, across every process sharing the database. */
export async function countQueued(db: Db): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'queued')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Ids of the queued jobs, oldest first. */
export async function queuedJobIds(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('status', '=', 'queued')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Takes a job to run it: a queued one, or a running one whose worker let its lease lapse (it
 * died), while runs are left. Returns the job as claimed (its `attempts` numbers this run), or
 * undefined when the job is not this caller's to run.
 */
export async function claimJob(
  db: Db,
  id: string,
  now: Date,
  leaseMs: number,
  maxAttempts: number,
): Promise<JobRow | undefined> {
  const stamp = now.toISOString();
  return db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      attempts: eb('attempts', '+', 1),
      lease_until: new Date(now.getTime() + leaseMs).toISOString(),
      started_at: eb.fn.coalesce('started_at', sql.val(stamp)),
    }))
    .where('id', '=', id)
    .where('attempts', '<', maxAttempts)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'queued'),
        eb.and([eb('status', '=', 'running'), eb('lease_until', '<', stamp)]),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Extends the lease of a run still in progress; false when the run no longer owns the job. */
export async function renewLease(db: Db, id: string, attempt: number, until: Date): Promise<boolean> {
  const updated = await db
    .updateTable('jobs')
    .set({ lease_until: until.toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('attempts', '=', attempt)
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/**
 * Puts a run's job back in the queue, as a stopping process does with the runs it lets go
 * (docs/drain.md): only while this run still holds it; the run does not count among the job's
 * attempts, and its unit stays held for the run that ends it. False when the run no longer owns it.
 */
export async function requeueJob(db: Db, id: string, attempt: number): Promise<boolean> {
  const updated = await db
    .updateTable('jobs')
    .set({ status: 'queued', attempts: attempt - 1, lease_until: null })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('attempts', '=', attempt)
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

export type JobEnd =
  | { readonly status: 'completed'; readonly resultKey: string }
  | { readonly status: 'failed'; readonly errorStatus: number; readonly errorMessage: string };

/**
 * Which state a job may end from: the run that owns it; queued (a cancellation); running, whoever
 * runs it (the in-process queue's restart finds its own runs interrupted); or left behind before
 * an instant (queued past its expiry, or running on a lease nobody renewed).
 */
export type EndFrom =
  | { readonly run: number }
  | { readonly queued: true }
  | { readonly interrupted: true }
  | { readonly staleBefore: Date };

/**
 * Ends a job and settles its unit in one transaction: committed when it completed, released
 * otherwise. Returns whether this call ended it (false when another run or a cancellation did
 * first) and whether the unit was billed.
 */
export async function endJob(
  db: Db,
  id: string,
  from: EndFrom,
  end: JobEnd,
  now: Date,
  retentionMs: number,
): Promise<{ ended: boolean; billed: boolean }> {
  return db.transaction().execute(async (trx) => {
    let update = trx
      .updateTable('jobs')
      .set({
        status: end.status,
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + retentionMs).toISOString(),
        lease_until: null,
        result_key: end.status === 'completed' ? end.resultKey : null,
        error_status: end.status === 'failed' ? end.errorStatus : null,
        error_message: end.status === 'failed' ? end.errorMessage : null,
        // A job with a webhook has its first delivery due now.
        webhook_next_at: sql<
          string | null
        >`case when webhook is null then null else ${now.toISOString()} end`,
      })
      .where('id', '=', id);
    if ('run' in from) {
      update = update.where('status', '=', 'running').where('attempts', '=', from.run);
    } else if ('queued' in from) {
      update = update.where('status', '=', 'queued');
    } else if ('interrupted' in from) {
      update = update.where('status', '=', 'running');
    } else {
      const before = from.staleBefore.toISOString();
      update = update.where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('expires_at', '<', before)]),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', before)]),
        ]),
      );
    }
    const row = await update.returning('reservation_id').executeTakeFirst();
    if (row === undefined) return { ended: false, billed: false };
    const outcome = end.status === 'completed' ? 'commit' : 'release';
    const settled = await settleIn(trx, row.reservation_id, outcome, now);
    return { ended: true, billed: outcome === 'commit' && settled };
  });
}

/** Jobs in `status` last touched before `before`: queued ones past their expiry, running ones past their lease. */
export async function staleJobIds(db: Db, status: JobStatus, before: Date): Promise<string[]> {
  const column = status === 'queued' ? 'expires_at' : 'lease_until';
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('status', '=', status)
    .where(column, '<', before.toISOString())
    .limit(1000)
    .execute();
  return rows.map((row) => row.id);
}

/** Ids of the running jobs: what a restart of the in-process queue finds interrupted. */
export async function runningJobIds(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('jobs').select('id').where('status', '=', 'running').execute();
  return rows.map((row) => row.id);
}

/** Deletes finished jobs past their retention; returns their result keys, for the blob store. */
export async function pruneJobs(db: Db, now: Date): Promise<string[]> {
  const rows = await db
    .deleteFrom('jobs')
    .where('status', 'in', ['completed', 'failed'])
    .where('expires_at', '<', now.toISOString())
    .returning('result_key')
    .execute();
  return rows.flatMap((row) => (row.result_key === null ? [] : [row.result_key]));
}

/** Jobs whose webhook attempt is due, soonest first. */
export async function dueWebhookJobIds(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('webhook_next_at', '<=', now.toISOString())
    .orderBy('webhook_next_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Takes the job's due webhook attempt: pushes its due time to `until`, so that no other process
 * makes the same attempt meanwhile (a process that dies mid-attempt leaves it due again then).
 */
export async function claimWebhook(db: Db, id: string, now: Date, until: Date): Promise<JobRow | undefined> {
  return db
    .updateTable('jobs')
    .set({ webhook_next_at: until.toISOString() })
    .where('id', '=', id)
    .where('webhook_next_at', '<=', now.toISOString())
    .returningAll()
    .executeTakeFirst();
}

/** Records an attempt's outcome and when the next one is due (null: none). */
export async function saveWebhookAttempt(
  db: Db,
  id: string,
  log: string,
  nextAt: Date | null,
): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ webhook: log, webhook_next_at: nextAt === null ? null : nextAt.toISOString() })
    .where('id', '=', id)
    .execute();
}

/** A job as the console lists it: its row with its key's alias and prefix. */
export type ListedJob = JobRow & { readonly key_alias: string | null; readonly key_prefix: string | null };

/**
 * A page of an account's jobs, newest first, by the (account_id, created_at) index: those still
 * queued or running, and finished ones within their retention (as GET /jobs/{job_id} shows them).
 */
export async function listJobs(
  db: Db,
  filter: { readonly accountId: string; readonly status?: JobStatus },
  page: PageRequest,
  now: Date,
): Promise<Page<ListedJob>> {
  let query = db
    .selectFrom('jobs')
    .leftJoin('api_keys', 'api_keys.id', 'jobs.key_id')
    .selectAll('jobs')
    .select(['api_keys.alias as key_alias', 'api_keys.key_prefix'])
    .where('jobs.account_id', '=', filter.accountId)
    .where((eb) =>
      eb.or([eb('jobs.status', 'in', ['queued', 'running']), eb('jobs.expires_at', '>', now.toISOString())]),
    )
    .orderBy('jobs.created_at', 'desc')
    .orderBy('jobs.id', 'desc')
    .limit(page.limit + 1);
  if (filter.status !== undefined) query = query.where('jobs.status', '=', filter.status);
  if (page.before !== undefined) query = query.where(olderThan('jobs.created_at', 'jobs.id', page.before));
  const rows = await query.execute();
  return pageOf(
    rows,
    page.limit,
    (row) => ({ at: row.created_at, id: row.id }),
    (row) => row,
  );
}
