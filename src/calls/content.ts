import { content } from '../engines/content/content.js';
import type { ContentParams } from '../engines/content/params.js';
import { type CallDeps, checkPage } from './deps.js';
import { type JsonOutcome, jsonResultCall } from './json-result.js';
import type { Caller } from './metering.js';

/**
 * One content call, whatever transport it came by: the target and the caller's proxy are
 * checked before a unit is reserved, then the cache, then the metered render and extraction.
 * `data` is the spec's Content result (engines/content/params.ts ContentResult) as JSON.
 */
export async function contentCall(
  deps: CallDeps,
  caller: Caller,
  params: ContentParams,
  cache: { readonly ttlSeconds: number } | null,
): Promise<JsonOutcome> {
  await checkPage(deps, params);
  return jsonResultCall(deps, caller, 'content', params, cache, async () => {
    const { result, complete } = await content(deps.content, params);
    return { result, cacheable: complete };
  });
}
