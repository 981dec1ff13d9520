import { type Static, Type } from 'typebox';
import { capture } from '../engines/capture/capture.js';
import type { CaptureParams, CaptureResult } from '../engines/capture/params.js';
import {
  type CallerBucketParams,
  checkCallerBucket,
  uploadToCallerBucket,
} from '../engines/capture/s3-upload.js';
import type { StoredBlob } from '../store/blobs.js';
import { hostFile } from '../store/file-urls.js';
import { type CachedOutcome, cachedCall } from './cached-call.js';
import type { CallDeps } from './deps.js';
import type { Caller } from './metering.js';

export type ResponseType = 'image' | 'json' | 'base64';

/** What is done with a capture's bytes: how they are answered, cached and uploaded. */
export interface Delivery {
  readonly responseType: ResponseType;
  readonly cache: { readonly ttlSeconds: number } | null;
  /** The caller's bucket (s3_url=true), checked before anything runs. */
  readonly s3: CallerBucketParams | null;
  /** Base of the hosted file links handed out (`screenshot_url`). */
  readonly baseUrl: string;
}

/** The JSON body of a capture (DESIGN.md §2 "Capture response"): the schema it is declared and checked with, and its type. */
export const CaptureJsonSchema = Type.Object(
  {
    success: Type.Literal(true),
    screenshot_url: Type.String({ description: 'hosted, signed, expiring link to the file' }),
    format: Type.String(),
    width: Type.Integer(),
    height: Type.Integer(),
    size: Type.Integer({ description: 'bytes' }),
    base64: Type.Optional(Type.String({ description: 'response_type=base64: the file, base64' })),
    s3_url: Type.Optional(Type.String({ description: "s3_url=true: the uploaded object's URL" })),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'present when the page was captured before it finished loading (also in x-webcap-warning)',
      }),
    ),
  },
  { additionalProperties: false },
);

export type CaptureJson = Static<typeof CaptureJsonSchema>;

/** A capture's result and what the caller gets: the bytes themselves (body null) or the JSON body. */
export interface CaptureAnswer {
  readonly result: CaptureResult;
  readonly body: CaptureJson | null;
}

/** A capture call's outcome: the answer, whether the cache served it, whether it was billed. */
export type CaptureOutcome = CachedOutcome<CaptureAnswer>;

function fromCache(hit: StoredBlob, params: CaptureParams): CaptureResult {
  return {
    bytes: hit.bytes,
    format: params.format,
    contentType: hit.contentType,
    width: Number(hit.metadata.width ?? 0),
    height: Number(hit.metadata.height ?? 0),
    warnings: [],
  };
}

/** Stores the result as a hosted file and describes it, with its signed, expiring URL. */
async function hostedJson(deps: CallDeps, result: CaptureResult, baseUrl: string): Promise<CaptureJson> {
  const file = await hostFile(deps.blobs, result.bytes, result.contentType, {
    baseUrl,
    ttlSeconds: deps.fileUrlTtlSeconds,
    secret: deps.signingSecret,
    now: deps.metering.clock(),
    extension: result.format,
  });
  return {
    success: true,
    screenshot_url: file.url,
    format: result.format,
    width: result.width,
    height: result.height,
    size: result.bytes.length,
    ...(result.warnings.length > 0 ? { warnings: [...result.warnings] } : {}),
  };
}

/** Whether the image itself is the answer: nothing to host or upload, so nothing that could fail. */
function bytesAreTheAnswer(delivery: Delivery): boolean {
  return delivery.responseType === 'image' && delivery.s3 === null;
}

/** The body the delivery asks for, hosting or uploading as needed; null when the bytes are the answer. */
async function deliver(
  deps: CallDeps,
  result: CaptureResult,
  delivery: Delivery,
): Promise<CaptureJson | null> {
  if (bytesAreTheAnswer(delivery)) return null;
  if (delivery.s3 !== null) {
    const uploaded = await uploadToCallerBucket(delivery.s3, result.bytes, result.contentType, {
      ...deps.guard.agents,
      timeoutMs: deps.s3UploadTimeoutMs,
      now: deps.metering.clock(),
    });
    return { ...(await hostedJson(deps, result, delivery.baseUrl)), s3_url: uploaded.url };
  }
  const json = await hostedJson(deps, result, delivery.baseUrl);
  return delivery.responseType === 'base64' ? { ...json, base64: result.bytes.toString('base64') } : json;
}

/** Refuses what a capture call cannot run with (the bucket and its endpoint, the target, the proxy) before anything is reserved. */
export async function checkCapture(deps: CallDeps, params: CaptureParams, delivery: Delivery): Promise<void> {
  const bucket = delivery.s3 === null ? null : checkCallerBucket(delivery.s3);
  if (bucket?.endpoint) await deps.guard.checkTarget(bucket.endpoint, 'storage_endpoint');
  await deps.guard.checkTarget(params.url, 'url');
  if (params.proxy !== null) await deps.guard.checkUpstream(params.proxy);
}

/**
 * One capture call, whatever transport it came by: every parameter that can be refused is
 * refused before a unit is reserved or a browser is used (the target, the proxy, the bucket and
 * its endpoint), then the cache, then the metered render and delivery. Hosting and upload happen
 * inside the metered call, so a failed upload is not billed. A page captured before it finished
 * loading is not cached: what held it back may be gone on the next call, which should not be
 * served the unfinished page for the cache's lifetime.
 */
export async function captureCall(
  deps: CallDeps,
  caller: Caller,
  params: CaptureParams,
  delivery: Delivery,
): Promise<CaptureOutcome> {
  await checkCapture(deps, params, delivery);
  return cachedCall(deps, caller, 'capture', params, delivery.cache, {
    fromEntry: (entry) => fromCache(entry, params),
    async produce() {
      const result = await capture(deps.capture, params);
      const metadata = { width: String(result.width), height: String(result.height) };
      const entry =
        result.warnings.length === 0
          ? { bytes: result.bytes, contentType: result.contentType, metadata }
          : null;
      return { result, entry };
    },
    deliver: async (result) => ({ result, body: await deliver(deps, result, delivery) }),
    deliveryIsFree: bytesAreTheAnswer(delivery),
  });
}
