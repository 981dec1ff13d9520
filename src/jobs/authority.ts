import type { KeyVerification } from '../billing/keys.js';
import { errorResponse, WebcapError } from '../errors.js';
import type { Db } from '../store/db.js';
import { endJob } from './job-store.js';

/*
 * A job runs on the authority of the key that submitted it (docs/jobs.md): when the operator
 * deactivates the account or withdraws the key, the queued jobs end at once, failed and unbilled
 * (a key withdrawn because it leaked must not keep spending), and the runner checks the key again
 * before each try, for what changed otherwise (an expiry, another process's change). A job
 * already running finishes and is billed as usual.
 */

export type Withdrawal = Exclude<KeyVerification, { ok: true }>['reason'];

const WITHDRAWN: Record<Withdrawal, WebcapError> = {
  unknown: new WebcapError('invalid_key', 'the key that submitted the job is gone; the job did not run'),
  inactive: new WebcapError(
    'invalid_key',
    'the key that submitted the job was revoked or deactivated; the job did not run',
  ),
  expired: new WebcapError('invalid_key', 'the key that submitted the job has expired; the job did not run'),
  account_inactive: new WebcapError('forbidden', 'the account was deactivated; the job did not run'),
};

/** The error a job ends with when its key or account no longer lets it run (401 or 403). */
export function withdrawnError(reason: Withdrawal): WebcapError {
  return WITHDRAWN[reason];
}

/** Whose queued jobs: every one of an account, or those one key submitted. */
export type JobOwner = { readonly accountId: string } | { readonly keyId: string };

/**
 * Ends the owner's queued jobs failed with the withdrawal's error, each with its unit released in
 * the same transaction (endJob); a job a worker claimed meanwhile is left to run. Returns how many
 * ended. Their webhooks are delivered by whichever process polls for due attempts.
 */
export async function cancelWithdrawnJobs(
  db: Db,
  owner: JobOwner,
  reason: Withdrawal,
  now: Date,
  retentionMs: number,
): Promise<number> {
  const query = db.selectFrom('jobs').select('id').where('status', '=', 'queued');
  const rows = await ('accountId' in owner
    ? query.where('account_id', '=', owner.accountId)
    : query.where('key_id', '=', owner.keyId)
  ).execute();
  const { status, body } = errorResponse(withdrawnError(reason));
  let ended = 0;
  for (const { id } of rows) {
    const end = { status: 'failed' as const, errorStatus: status, errorMessage: body.error };
    if ((await endJob(db, id, { queued: true }, end, now, retentionMs)).ended) ended += 1;
  }
  return ended;
}
