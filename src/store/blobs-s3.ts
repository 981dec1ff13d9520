import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Clock } from '../clock.js';
import type { BlobStoreConfig } from '../config.js';
import {
  type BlobStore,
  checkBlob,
  EXPIRES_AT_METADATA,
  type PutBlobOptions,
  type StoredBlob,
} from './blobs.js';

export type S3BlobStoreConfig = Extract<BlobStoreConfig, { kind: 's3' }>;

// HEAD requests in flight at once during a sweep.
const SWEEP_CONCURRENCY = 8;

/**
 * Blobs as objects of an S3-compatible bucket, under the configured prefix. The expiry is object
 * metadata, so a sweep lists the prefix and reads each object's head; a lifecycle rule on the
 * bucket (e.g. on `<prefix>files/`) can do the same job server-side. Every request has a deadline
 * and a bounded number of attempts, so a bucket that stalls fails an operation instead of hanging it.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(
    private readonly config: S3BlobStoreConfig,
    private readonly clock: Clock,
  ) {
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint ?? undefined,
      // S3-compatible services are reached at one host, with the bucket in the path.
      forcePathStyle: config.endpoint !== null,
      credentials: config.credentials ?? undefined,
      // With the SDK's default checksums, uploads go out aws-chunked, which s3rver and some
      // S3-compatible services store framing and all (DESIGN.md §4).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // The SDK's standard retries (timeouts, lost connections, 5xx, throttling, with backoff), bounded.
      maxAttempts: config.maxAttempts,
      requestHandler: new NodeHttpHandler({
        connectionTimeout: config.timeoutMs,
        // Until the answer's headers, sending included; without throwOnRequestTimeout it only warns.
        requestTimeout: config.timeoutMs,
        throwOnRequestTimeout: true,
        // A pause while a body streams in (a GET's), which the request timeout no longer covers.
        socketTimeout: config.timeoutMs,
      }),
    });
  }

  async put(key: string, bytes: Uint8Array, options: PutBlobOptions): Promise<void> {
    checkBlob(key, options);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: this.config.prefix + key,
        Body: bytes,
        ContentType: options.contentType,
        // The expiry travels as x-amz-meta-expires-at, beside the caller's own metadata.
        Metadata: {
          ...options.metadata,
          ...(options.expiresAt === undefined
            ? {}
            : { [EXPIRES_AT_METADATA]: options.expiresAt.toISOString() }),
        },
      }),
    );
  }

  async get(key: string): Promise<StoredBlob | null> {
    checkBlob(key);
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.config.bucket, Key: this.config.prefix + key }),
      );
      // Read the body even when expired, so the connection goes back to the pool clean.
      const body = await object.Body?.transformToByteArray();
      const expiresAt = parseExpiry(object.Metadata);
      if (expiresAt !== null && expiresAt.getTime() <= this.clock().getTime()) return null;
      const { [EXPIRES_AT_METADATA]: _expiry, ...metadata } = object.Metadata ?? {};
      return {
        bytes:
          body === undefined ? Buffer.alloc(0) : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        contentType: object.ContentType ?? 'application/octet-stream',
        expiresAt,
        metadata,
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    checkBlob(key);
    // S3 answers 204 for an absent key too.
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.config.prefix + key }),
    );
  }

  async sweepExpired(): Promise<number> {
    const now = this.clock().getTime();
    let deleted = 0;
    let continuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.config.bucket,
          Prefix: this.config.prefix || undefined,
          ContinuationToken: continuationToken,
        }),
      );
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key]));
      for (let i = 0; i < keys.length; i += SWEEP_CONCURRENCY) {
        const batch = await Promise.all(
          keys.slice(i, i + SWEEP_CONCURRENCY).map((key) => this.sweepOne(key, now)),
        );
        deleted += batch.filter(Boolean).length;
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
    return deleted;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /** Deletes the object when its metadata says it expired; objects without our metadata are left alone. */
  private async sweepOne(fullKey: string, now: number): Promise<boolean> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.config.bucket, Key: fullKey }),
      );
      const expiresAt = parseExpiry(head.Metadata);
      if (expiresAt === null || expiresAt.getTime() > now) return false;
      await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: fullKey }));
      return true;
    } catch (error) {
      // Deleted by someone else between the listing and the head.
      if (isNotFound(error)) return false;
      throw error;
    }
  }
}

function parseExpiry(metadata: Record<string, string> | undefined): Date | null {
  const raw = metadata?.[EXPIRES_AT_METADATA];
  if (raw === undefined) return null;
  const date = new Date(raw);
  return Number.isNaN(date.getTime()) ? null : date;
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound';
}
