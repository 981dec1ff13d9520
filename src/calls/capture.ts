import { capture } from '../engines/capture/capture.js';
import type { CaptureParams, CaptureResult } from '../engines/capture/params.js';
import {
  type CallerBucketParams,
  checkCallerBucket,
  uploadToCallerBucket,
} from '../engines/capture/s3-upload.js';
import type { StoredBlob } from '../store/blobs.js';
import { hostFile } from '../store/file-urls.js';
import type { CallDeps } from './deps.js';
import { type Caller, charged, metered } from './metering.js';
import { cacheKey, getCached, putCached } from './result-cache.js';

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

/** The JSON body of a capture (DESIGN.md §2 "Capture response"). */
export interface CaptureJson {
  success: true;
  screenshot_url: string;
  format: string;
  width: number;
  height: number;
  size: number;
  base64?: string;
  s3_url?: string;
  /** Present when the page was captured as it was before it finished loading (docs/capture.md). */
  warnings?: string[];
}

/** A capture call's outcome: the bytes or the JSON body, whether the cache served it, whether it was billed. */
export interface CaptureOutcome {
  readonly result: CaptureResult;
  /** Null when the bytes themselves are the answer. */
  readonly body: CaptureJson | null;
  /** 'hit' or 'miss' with cache=true, else null. */
  readonly cache: 'hit' | 'miss' | null;
  readonly billed: boolean;
}

/** The result cache's entry for one call: its key and lifetime, and what it held when the call came in. */
interface CacheLookup {
  readonly key: string;
  readonly ttlSeconds: number;
  readonly hit: StoredBlob | null;
}

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

/**
 * A rendering, or the bytes of an earlier one of the same account with the same parameters. A
 * page captured before it finished loading is not cached: what held it back may be gone on the
 * next call, which should not be served the unfinished page for the cache's lifetime.
 */
async function render(
  deps: CallDeps,
  params: CaptureParams,
  cached: CacheLookup | null,
): Promise<CaptureResult> {
  if (cached?.hit) return fromCache(cached.hit, params);
  const result = await capture(deps.capture, params);
  if (cached !== null && result.warnings.length === 0) {
    await putCached(
      deps.blobs,
      cached.key,
      result.bytes,
      result.contentType,
      cached.ttlSeconds,
      deps.metering.clock(),
      { width: String(result.width), height: String(result.height) },
    );
  }
  return result;
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

/** The body the delivery asks for, hosting or uploading as needed; null when the bytes are the answer. */
async function deliver(
  deps: CallDeps,
  result: CaptureResult,
  delivery: Delivery,
): Promise<CaptureJson | null> {
  if (delivery.s3 !== null) {
    const uploaded = await uploadToCallerBucket(delivery.s3, result.bytes, result.contentType, {
      ...deps.guard.agents,
      timeoutMs: deps.s3UploadTimeoutMs,
      now: deps.metering.clock(),
    });
    return { ...(await hostedJson(deps, result, delivery.baseUrl)), s3_url: uploaded.url };
  }
  if (delivery.responseType === 'image') return null;
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
 * inside the metered call, so a failed upload is not billed.
 */
export async function captureCall(
  deps: CallDeps,
  caller: Caller,
  params: CaptureParams,
  delivery: Delivery,
): Promise<CaptureOutcome> {
  await checkCapture(deps, params, delivery);
  let cached: CacheLookup | null = null;
  if (delivery.cache !== null) {
    const key = cacheKey('capture', caller.account.id, params);
    cached = { key, ttlSeconds: delivery.cache.ttlSeconds, hit: await getCached(deps.blobs, key) };
  }
  // A hit sent as the image itself needs no work that could fail, so it is billed in one step.
  if (cached?.hit && delivery.responseType === 'image' && delivery.s3 === null) {
    await charged(deps.metering, caller, 'capture');
    return { result: fromCache(cached.hit, params), body: null, cache: 'hit', billed: true };
  }
  const { value, billed } = await metered(deps.metering, caller, 'capture', async () => {
    const result = await render(deps, params, cached);
    return { result, body: await deliver(deps, result, delivery) };
  });
  const cache = cached === null ? null : cached.hit ? 'hit' : 'miss';
  return { ...value, cache, billed };
}
