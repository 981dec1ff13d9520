import { type CrawlParams, type CrawlResult, crawl } from '../engines/crawler/crawl.js';
import type { CallDeps } from './deps.js';
import { type Caller, type Metered, metered } from './metering.js';

/** One crawler call: the target checked before a unit is reserved, then the metered fetch. */
export async function crawlCall(
  deps: CallDeps,
  caller: Caller,
  params: CrawlParams,
): Promise<Metered<CrawlResult>> {
  await deps.guard.checkTarget(params.url, 'query');
  return metered(deps.metering, caller, 'website-crawler', () => crawl(deps.guard.fetcher, params));
}
