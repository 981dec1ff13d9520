import type { FastifyReply, FastifyRequest } from 'fastify';
import { capture } from '../engines/capture/capture.js';
import type { CaptureParams, CaptureResult } from '../engines/capture/params.js';
import { checkCallerBucket, uploadToCallerBucket } from '../engines/capture/s3-upload.js';
import { WebcapError } from '../errors.js';
import type { StoredBlob } from '../store/blobs.js';
import { cacheKey, getCached, putCached } from '../store/capture-cache.js';
import { hostFile } from '../store/file-urls.js';
import type { AppDeps } from './app.js';
import type { Delivery } from './capture-schema.js';
import { charged, metered } from './metering.js';

/** The JSON body of a capture (DESIGN.md §2 "Capture response"). */
interface CaptureJson {
  success: true;
  screenshot_url: string;
  format: string;
  width: number;
  height: number;
  size: number;
  base64?: string;
  s3_url?: string;
}

/** Stores the result as a hosted file and describes it, with its signed, expiring URL. */
async function hostedJson(
  deps: AppDeps,
  request: FastifyRequest,
  result: CaptureResult,
): Promise<CaptureJson> {
  const file = await hostFile(deps.blobs, result.bytes, result.contentType, {
    baseUrl: deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`,
    ttlSeconds: deps.config.fileUrlTtlSeconds,
    secret: deps.signingSecret,
    now: deps.clock(),
    extension: result.format,
  });
  return {
    success: true,
    screenshot_url: file.url,
    format: result.format,
    width: result.width,
    height: result.height,
    size: result.bytes.length,
  };
}

/** The capture cache's entry for one call: its key and lifetime, and what it held when the call came in. */
interface CacheLookup {
  readonly key: string;
  readonly ttlSeconds: number;
  readonly hit: StoredBlob | null;
}

/** A rendering, or the bytes of an earlier one of the same account with the same parameters. */
async function render(
  deps: AppDeps,
  params: CaptureParams,
  cached: CacheLookup | null,
): Promise<{ result: CaptureResult; cacheHit: boolean }> {
  if (cached?.hit) {
    const { hit } = cached;
    const result: CaptureResult = {
      bytes: hit.bytes,
      format: params.format,
      contentType: hit.contentType,
      width: Number(hit.metadata.width ?? 0),
      height: Number(hit.metadata.height ?? 0),
    };
    return { result, cacheHit: true };
  }
  const result = await capture(deps.capture, params);
  if (cached !== null) {
    await putCached(
      deps.blobs,
      cached.key,
      result.bytes,
      result.contentType,
      cached.ttlSeconds,
      deps.clock(),
      {
        width: String(result.width),
        height: String(result.height),
      },
    );
  }
  return { result, cacheHit: false };
}

/**
 * Runs a capture through the metering path and sends it as the caller asked: the bytes, JSON
 * with a hosted URL, base64, or an upload to the caller's bucket. The target URL and the bucket
 * are checked before a unit is reserved; hosting and upload happen inside the metered call, so a
 * failed upload is not billed.
 */
export async function sendCapture(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  params: CaptureParams,
  delivery: Delivery,
): Promise<FastifyReply> {
  const auth = request.auth;
  if (auth === null) throw new WebcapError('invalid_key');
  // Everything that can be refused is refused before a unit is reserved or a browser is used.
  const bucket = delivery.s3 === null ? null : checkCallerBucket(delivery.s3);
  if (bucket?.endpoint) await deps.guard.checkTarget(bucket.endpoint, 'storage_endpoint');
  await deps.guard.checkTarget(params.url, 'url');
  if (params.proxy !== null) await deps.guard.checkUpstream(params.proxy);
  let cached: CacheLookup | null = null;
  if (delivery.cache !== null) {
    const key = cacheKey(params, auth.account.id);
    cached = { key, ttlSeconds: delivery.cache.ttlSeconds, hit: await getCached(deps.blobs, key) };
  }
  // A hit sent as the image itself needs no work that could fail, so it is billed in one step.
  if (cached?.hit && delivery.responseType === 'image' && delivery.s3 === null) {
    await charged(request.server.metering, request, 'capture');
    return reply.header('x-webcap-cache', 'hit').type(cached.hit.contentType).send(cached.hit.bytes);
  }
  const outcome = await metered(request.server.metering, request, 'capture', async () => {
    const { result, cacheHit } = await render(deps, params, cached);
    if (delivery.s3 !== null) {
      const uploaded = await uploadToCallerBucket(delivery.s3, result.bytes, result.contentType, {
        ...deps.guard.agents,
        timeoutMs: deps.config.s3UploadTimeoutMs,
        now: deps.clock(),
      });
      const json = await hostedJson(deps, request, result);
      return { result, cacheHit, body: { ...json, s3_url: uploaded.url } };
    }
    if (delivery.responseType === 'image') return { result, cacheHit, body: null };
    const json = await hostedJson(deps, request, result);
    const body =
      delivery.responseType === 'base64' ? { ...json, base64: result.bytes.toString('base64') } : json;
    return { result, cacheHit, body };
  });
  if (delivery.cache !== null) reply.header('x-webcap-cache', outcome.cacheHit ? 'hit' : 'miss');
  if (outcome.body !== null) return reply.send(outcome.body);
  return reply.type(outcome.result.contentType).send(outcome.result.bytes);
}
