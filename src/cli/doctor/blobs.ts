import { randomUUID } from 'node:crypto';
import { systemClock } from '../../clock.js';
import type { Config } from '../../config.js';
import { S3BlobStore } from '../../store/blobs-s3.js';
import { type Check, type CheckResult, errorCode, fail, messageOf, ok } from './check.js';
import { redactUrl } from './redact-url.js';
import { writableOrCreatable } from './writable.js';

const PROBE_BYTES = Buffer.from('webcap doctor\n');

function s3Failure(error: unknown, where: string, bucket: string, timeoutMs: number): CheckResult {
  const name = 'blobs';
  const kind = (error as { name?: unknown } | null)?.name;
  const message = messageOf(error);
  switch (kind) {
    case 'NoSuchBucket':
      return fail(
        name,
        `${where}: the bucket does not exist`,
        `create it (aws s3 mb s3://${bucket}, with --endpoint-url for BLOB_S3_ENDPOINT)`,
      );
    case 'CredentialsProviderError':
      return fail(
        name,
        `${where}: no credentials`,
        'set BLOB_S3_ACCESS_KEY_ID and BLOB_S3_SECRET_ACCESS_KEY, or give the machine an IAM role with access to the bucket',
      );
    case 'AccessDenied':
    case 'InvalidAccessKeyId':
    case 'SignatureDoesNotMatch':
      return fail(
        name,
        `${where}: ${kind}: ${message}`,
        'set BLOB_S3_ACCESS_KEY_ID and BLOB_S3_SECRET_ACCESS_KEY to a key allowed s3:PutObject, s3:GetObject, s3:DeleteObject and s3:ListBucket on the bucket',
      );
    case 'TimeoutError':
    case 'RequestTimeout':
      return fail(
        name,
        `${where}: no answer within ${timeoutMs} ms`,
        'check that BLOB_S3_ENDPOINT is reachable from this machine (address, port, firewall)',
      );
  }
  if (errorCode(error) === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) {
    return fail(
      name,
      `${where}: connection refused (nothing listens there)`,
      'start the S3 service there, or correct BLOB_S3_ENDPOINT',
    );
  }
  if (/timeout|timed out/i.test(message)) {
    return fail(
      name,
      `${where}: no answer within ${timeoutMs} ms`,
      'check that BLOB_S3_ENDPOINT is reachable from this machine (address, port, firewall)',
    );
  }
  return fail(name, `${where}: ${message}`, 'check BLOB_S3_ENDPOINT, BLOB_S3_REGION and BLOB_S3_BUCKET');
}

/** The blob store: a local directory this user may write in, or a bucket where a probe object is written, read back and deleted. */
export function blobsCheck(config: Config): Check {
  const name = 'blobs';
  const blobs = config.blobs;
  return {
    name,
    async run({ timeoutMs, closers }) {
      if (blobs.kind === 'fs') {
        const why = await writableOrCreatable(blobs.dir);
        if (why !== null) {
          return fail(name, why, 'set WEBCAP_DATA_DIR to a directory this user may write in, or chown it');
        }
        return ok(name, `local directory ${blobs.dir} is writable`);
      }
      const at = blobs.endpoint === null ? `AWS ${blobs.region}` : redactUrl(blobs.endpoint);
      const prefix = blobs.prefix === '' ? '' : ` (prefix ${blobs.prefix})`;
      const where = `bucket ${blobs.bucket}${prefix} at ${at}`;
      // One attempt each, within the doctor's bound: a stalled bucket is a failed check, not a wait.
      const store = new S3BlobStore({ ...blobs, timeoutMs, maxAttempts: 1 }, systemClock);
      closers.add('s3', () => store.close());
      const key = `webcap-doctor/${randomUUID()}`;
      try {
        await store.put(key, PROBE_BYTES, {
          contentType: 'text/plain',
          // Swept like any expired blob should the delete below not happen.
          expiresAt: new Date(Date.now() + 60_000),
        });
        const read = await store.get(key);
        await store.delete(key);
        if (read === null || !read.bytes.equals(PROBE_BYTES)) {
          return fail(
            name,
            `${where}: an object written could not be read back`,
            "check the bucket's read permission (s3:GetObject)",
          );
        }
      } catch (error) {
        return s3Failure(error, where, blobs.bucket, timeoutMs);
      }
      return ok(name, `${where}: write, read and delete work`);
    },
  };
}
