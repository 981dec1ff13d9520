import { randomBytes } from 'node:crypto';
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { S3ServiceException } from '@aws-sdk/client-s3';
import { WebcapError } from '../errors.js';

/** A caller's upload target after checking. */
export interface CallerBucket {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly bucket: string;
  /** Null: a key is generated for each upload. */
  readonly objectKey: string | null;
  readonly region: string;
  /** Null for AWS; otherwise the S3-compatible service's URL without a trailing slash. */
  readonly endpoint: string | null;
}

export interface UploadOptions {
  /** Agents whose connections go through the network guard: storage_endpoint is the caller's choice. */
  readonly httpAgent: HttpAgent;
  readonly httpsAgent: HttpsAgent;
  /** Deadline of the whole upload. */
  readonly timeoutMs: number;
  /** The date in generated keys; now by default. */
  readonly now?: Date;
}

export interface UploadedObject {
  /** The object's URL: path-style on a custom endpoint, virtual-host style on AWS. */
  readonly url: string;
  readonly bucket: string;
  readonly key: string;
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'application/pdf': 'pdf',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'image/gif': 'gif',
};

/** `webcap/<yyyy>/<mm>/<dd>/<random>.<ext>` (UTC date), the extension from the content type. */
function generatedObjectKey(contentType: string, now: Date): string {
  const date = now.toISOString().slice(0, 10).replaceAll('-', '/');
  return `webcap/${date}/${randomBytes(12).toString('base64url')}.${EXTENSIONS[contentType] ?? 'bin'}`;
}

/** Percent-encodes each segment of a key as S3 does (RFC 3986), keeping the slashes. */
function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');
}

/** Where an uploaded object is: `<endpoint>/<bucket>/<key>` on a custom endpoint, `https://<bucket>.s3.<region>.amazonaws.com/<key>` on AWS. */
export function objectUrl(target: CallerBucket, key: string): string {
  if (target.endpoint !== null) return `${target.endpoint}/${target.bucket}/${encodeKey(key)}`;
  // A dotted name breaks the TLS wildcard of virtual-host style; the SDK goes path-style for it too.
  if (target.bucket.includes('.')) {
    return `https://s3.${target.region}.amazonaws.com/${target.bucket}/${encodeKey(key)}`;
  }
  return `https://${target.bucket}.s3.${target.region}.amazonaws.com/${encodeKey(key)}`;
}

// S3 error codes are words; anything else a server sends is not echoed to the caller.
const S3_CODE = /^[A-Za-z0-9._-]{1,64}$/;
// Node's network errors carry a code such as ECONNREFUSED or ERR_TLS_CERT_ALTNAME_INVALID.
const NET_CODE = /^[A-Z][A-Z0-9_]{2,63}$/;
// The SDK's name for an error answer it could not read a code from (an empty or non-XML body).
const NO_S3_CODE = 'Unknown';

/** The HTTP status the storage endpoint answered with, when the failure is about an answer. */
function answeredStatus(error: unknown): number | null {
  const status = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
  return typeof status === 'number' && Number.isInteger(status) ? status : null;
}

/**
 * Why an upload failed, in words the caller can act on. The endpoint is the caller's choice and
 * may answer anything (text, JSON, HTML, nothing, bytes that are not HTTP), so every failure is
 * the caller's storage's and maps to the documented 400, never to our 500.
 */
function uploadFailure(
  error: unknown,
  deadline: AbortSignal,
  timeoutMs: number,
  serviceException: typeof S3ServiceException,
): string {
  if (deadline.aborted) return `storage endpoint did not answer within ${timeoutMs} ms`;
  if (error instanceof serviceException && error.name !== NO_S3_CODE && S3_CODE.test(error.name)) {
    return error.name;
  }
  // A body that is not S3's XML error document fails the SDK's parsing: a plain Error with the status.
  const status = answeredStatus(error);
  if (status !== null) return `storage endpoint answered HTTP ${status}`;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('HPE_')) return 'storage endpoint did not answer in HTTP';
  if (typeof code === 'string' && NET_CODE.test(code)) return `storage endpoint unreachable: ${code}`;
  return 'storage endpoint failed';
}

function uploadError(
  error: unknown,
  deadline: AbortSignal,
  timeoutMs: number,
  serviceException: typeof S3ServiceException,
): WebcapError {
  // The network guard refusing the endpoint's address surfaces here unchanged.
  if (error instanceof WebcapError) return error;
  const why = uploadFailure(error, deadline, timeoutMs, serviceException);
  return new WebcapError('bad_request', `s3 upload failed (${why})`, { cause: error });
}

/**
 * Uploads a capture to the caller's bucket and returns where it is. Every connection goes through
 * the given agents (the network guard); failures are WebcapErrors: 'bad_request' for whatever the
 * storage answers or fails to answer within timeoutMs, the guard's own error when it refuses.
 */
export async function uploadToCallerBucket(
  target: CallerBucket,
  bytes: Uint8Array,
  contentType: string,
  options: UploadOptions,
): Promise<UploadedObject> {
  const key = target.objectKey ?? generatedObjectKey(contentType, options.now ?? new Date());
  // Loaded on the first upload: the capture request, which the CLI's verbs read, imports this
  // module through its delivery, and the SDK was a sixth of their start-up.
  const [{ PutObjectCommand, S3Client, S3ServiceException }, { NodeHttpHandler }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@smithy/node-http-handler'),
  ]);
  const client = new S3Client({
    region: target.region,
    endpoint: target.endpoint ?? undefined,
    forcePathStyle: target.endpoint !== null,
    // Explicit, so the SDK never falls back to this server's own credentials or settings.
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    ignoreConfiguredEndpointUrls: true,
    // The deadline bounds the call; a caller whose storage failed retries the capture (unbilled).
    maxAttempts: 1,
    // See DESIGN.md §4: without these, uploads are framed aws-chunked, which some services store as is.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new NodeHttpHandler({ httpAgent: options.httpAgent, httpsAgent: options.httpsAgent }),
    // For an `Expect: 100-continue` request the handler may open a fresh agent of its own, one
    // the guard never sees; without the header every request stays on the agents above.
    expectContinueHeader: false,
  });
  const deadline = AbortSignal.timeout(options.timeoutMs);
  try {
    await client.send(
      new PutObjectCommand({ Bucket: target.bucket, Key: key, Body: bytes, ContentType: contentType }),
      { abortSignal: deadline },
    );
  } catch (error) {
    throw uploadError(error, deadline, options.timeoutMs, S3ServiceException);
  }
  // No client.destroy(): it would destroy the agents, which belong to the caller of this function.
  return { url: objectUrl(target, key), bucket: target.bucket, key };
}
