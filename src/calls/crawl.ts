import type { Static } from 'typebox';
import { type CrawlDataSchema, type CrawlParams, type CrawlResult, crawl } from '../engines/crawler/crawl.js';
import type { CallDeps } from './deps.js';
import { type Caller, type Metered, metered } from './metering.js';

/** Refuses a crawler call's target (its parameter is `query`) before anything is reserved. */
export function checkCrawl(deps: CallDeps, params: CrawlParams): Promise<void> {
  return deps.guard.checkTarget(params.url, 'query');
}

/** One crawler call: the target checked before a unit is reserved, then the metered fetch. */
export async function crawlCall(
  deps: CallDeps,
  caller: Caller,
  params: CrawlParams,
): Promise<Metered<CrawlResult>> {
  await checkCrawl(deps, params);
  return metered(deps.metering, caller, 'website-crawler', () => crawl(deps.guard.fetcher, params));
}

/** The crawler's JSON body (DESIGN.md §2): what it learned of the response, and the page source when asked. */
export function crawlerBody(
  result: CrawlResult,
  withHtml: boolean,
): { success: true; data: Static<typeof CrawlDataSchema> & { html?: string } } {
  const { html, ...data } = result;
  return { success: true, data: withHtml ? { ...data, html } : data };
}
