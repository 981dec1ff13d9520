import type { JobSpec } from '../calls/call-spec.js';
import type { CallerBucket } from '../calls/s3-upload.js';
import { type CallerBucketParams, checkCallerBucket } from '../requests/caller-bucket.js';
import type { Sealer } from './sealed.js';

/** What a job stores, sealed: the call to run and where to report its end. */
export interface StoredCall {
  readonly spec: JobSpec;
  readonly webhookUrl: string | null;
}

/**
 * The stored call of a job. A capture stored before its delivery was typed holds the caller's
 * bucket as the request named it (s3_access_key_id...); it is checked into today's form, as it
 * was checked when it was submitted, so that jobs queued across an upgrade still run.
 */
export function openStoredCall(sealer: Sealer, sealed: string): StoredCall {
  const stored = sealer.open<StoredCall>(sealed);
  const { spec } = stored;
  if (spec.engine !== 'capture' || spec.delivery.s3 === null) return stored;
  const s3: CallerBucket | CallerBucketParams = spec.delivery.s3;
  if ('accessKeyId' in s3) return stored;
  return { ...stored, spec: { ...spec, delivery: { ...spec.delivery, s3: checkCallerBucket(s3) } } };
}
