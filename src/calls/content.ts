import { content } from '../engines/content/content.js';
import type { ContentParams } from '../engines/content/params.js';
import { extractionIdentity } from '../engines/extract/extract-data.js';
import { hostStepShots } from './delivery.js';
import { type CallDeps, checkPage } from './deps.js';
import { type JsonOutcome, jsonResultCall } from './json-result.js';
import type { Caller } from './metering.js';

/**
 * One content call, whatever transport it came by: the cache, then, without a hit, the target and
 * the caller's proxy checked before a unit is reserved, then the metered render and extraction.
 * `data` is the spec's Content result (engines/content/params.ts ContentResult) as JSON. The
 * images of screenshot steps are hosted inside the metered call (linked from `baseUrl`), and
 * such a result is not cached, as a capture's is not (calls/capture.ts).
 */
export async function contentCall(
  deps: CallDeps,
  caller: Caller,
  params: ContentParams,
  cache: { readonly ttlSeconds: number } | null,
  baseUrl: string,
): Promise<JsonOutcome> {
  // The model that fills a json format's schema answers differently from another: part of the key.
  const model = extractionIdentity(deps.content, params.json);
  const keyParams = model === null ? params : { ...params, model };
  const check = () => checkPage(deps, params);
  return jsonResultCall(deps, caller, 'content', keyParams, cache, check, async () => {
    const { result, complete, stepShots } = await content(deps.content, params);
    const hosted = await hostStepShots(deps, stepShots, baseUrl);
    return { result: { ...result, ...hosted }, cacheable: complete && stepShots.length === 0 };
  });
}
