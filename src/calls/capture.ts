import { capture } from '../engines/capture/capture.js';
import type { CaptureParams, CaptureResult } from '../engines/capture/params.js';
import type { StoredBlob } from '../store/blobs.js';
import { type CachedOutcome, cachedCall } from './cached-call.js';
import { bytesAreTheAnswer, type CaptureJson, type Delivery, deliver } from './delivery.js';
import { type CallDeps, checkPage } from './deps.js';
import type { Caller } from './metering.js';

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
    stepShots: [],
  };
}

/** The bucket's endpoint, which a delivery uses whether or not the cache answered. */
async function checkDelivery(deps: CallDeps, delivery: Delivery): Promise<void> {
  const endpoint = delivery.s3?.endpoint ?? null;
  if (endpoint !== null) await deps.guard.checkTarget(endpoint, 'storage_endpoint');
}

/** Refuses what a capture call cannot run with (the bucket's endpoint, the target, the proxy) before anything is reserved. */
export async function checkCapture(deps: CallDeps, params: CaptureParams, delivery: Delivery): Promise<void> {
  await checkDelivery(deps, delivery);
  await checkPage(deps, params);
}

/**
 * One capture call, whatever transport it came by: every parameter that can be refused is
 * refused before a unit is reserved or a browser is used: the bucket's endpoint first (the bucket
 * itself was checked with the request), then, without a cache hit, the target and the proxy; then
 * the metered render and delivery. Hosting and upload happen inside the metered call, so a failed
 * upload is not billed. A page captured before it finished loading is not cached: what held it
 * back may be gone on the next call, which should not be served the unfinished page for the
 * cache's lifetime. Nor is one with screenshot steps: their links expire long before the entry
 * would, and a hit without them would be half the answer.
 */
export async function captureCall(
  deps: CallDeps,
  caller: Caller,
  params: CaptureParams,
  delivery: Delivery,
): Promise<CaptureOutcome> {
  await checkDelivery(deps, delivery);
  return cachedCall(deps, caller, 'capture', params, delivery.cache, {
    check: () => checkPage(deps, params),
    fromEntry: (entry) => fromCache(entry, params),
    async produce() {
      const result = await capture(deps.capture, params);
      const metadata = { width: String(result.width), height: String(result.height) };
      const entry =
        result.warnings.length === 0 && result.stepShots.length === 0
          ? { bytes: result.bytes, contentType: result.contentType, metadata }
          : null;
      return { result, entry };
    },
    deliver: async (result) => ({ result, body: await deliver(deps, result, delivery) }),
    deliveryIsFree: bytesAreTheAnswer(delivery),
  });
}
