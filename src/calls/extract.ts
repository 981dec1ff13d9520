import { type ExtractParams, extract } from '../engines/extract/extract.js';
import { extractionIdentity } from '../engines/extract/extract-data.js';
import { type CallDeps, checkPage } from './deps.js';
import { type JsonOutcome, jsonResultCall } from './json-result.js';
import type { Caller } from './metering.js';

/**
 * One extract call, whatever transport it came by: the cache (keyed by the page parameters, the
 * rules or schema, and the model that fills schemas), then, without a hit, the target and the
 * caller's proxy checked before a unit is reserved, then the metered render and extraction. The
 * value is `{data, warnings?}` as JSON, which `succeeded` makes the answer.
 */
export async function extractCall(
  deps: CallDeps,
  caller: Caller,
  params: ExtractParams,
  cache: { readonly ttlSeconds: number } | null,
): Promise<JsonOutcome> {
  const keyParams = { ...params, model: extractionIdentity(deps.content, params.by) };
  const check = () => checkPage(deps, params);
  return jsonResultCall(deps, caller, 'extract', keyParams, cache, check, async () => {
    const { result, complete } = await extract(deps.content, params);
    return { result, cacheable: complete };
  });
}
