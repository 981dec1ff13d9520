import { siteMap } from '../engines/map/map.js';
import type { MapParams } from '../engines/map/params.js';
import type { CallDeps } from './deps.js';
import { type JsonOutcome, jsonResultCall } from './json-result.js';
import type { Caller } from './metering.js';

/** Refuses a map's start page (its parameter is `url`) before anything is reserved. */
export function checkMap(deps: CallDeps, params: MapParams): Promise<void> {
  return deps.guard.checkTarget(params.url, 'url');
}

/**
 * One map call, whatever transport it came by: the cache, then, without a hit, the start page
 * checked before a unit is reserved, then the metered fetches. `value` is the whole body of
 * POST /v1/map (MapBodySchema) as JSON, not an envelope's data: the body Firecrawl's users know.
 */
export async function mapCall(
  deps: CallDeps,
  caller: Caller,
  params: MapParams,
  cache: { readonly ttlSeconds: number } | null,
): Promise<JsonOutcome> {
  const mapDeps = {
    fetcher: deps.guard.fetcher,
    extractor: deps.content.extractor,
    sitemap: deps.content.sitemap,
  };
  const check = () => checkMap(deps, params);
  return jsonResultCall(deps, caller, 'map', params, cache, check, async () => {
    const { body, cacheable } = await siteMap(mapDeps, params);
    return { result: body, cacheable };
  });
}
