import { analyze } from '../engines/analyze/analyze.js';
import { type AnalyzeParams, analysisData } from '../engines/analyze/params.js';
import { type CallDeps, checkPage } from './deps.js';
import { type JsonOutcome, jsonResultCall } from './json-result.js';
import type { Caller } from './metering.js';

/**
 * One analyze call, whatever transport it came by: the cache (keyed by the parameters and the
 * analyzer's identity: another model never serves this one's answers), then, without a hit, the
 * target and the caller's proxy checked before a unit is reserved, then the metered render and
 * analysis. `data` is the spec's Analysis result with the custom fields as top-level members, as
 * JSON.
 */
export async function analyzeCall(
  deps: CallDeps,
  caller: Caller,
  params: AnalyzeParams,
  cache: { readonly ttlSeconds: number } | null,
): Promise<JsonOutcome> {
  const keyParams = { ...params, analyzer: deps.analyze.analyzer.identity };
  const check = () => checkPage(deps, params);
  return jsonResultCall(deps, caller, 'analyze', keyParams, cache, check, async () => {
    const { result, complete } = await analyze(deps.analyze, params);
    return { result: analysisData(result), cacheable: complete };
  });
}
