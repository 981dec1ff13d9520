import type { Static } from 'typebox';
import {
  type CrawlerDataSchema,
  type CrawlerParams,
  type CrawlerResult,
  fetchRawPage,
} from '../engines/crawler/crawler.js';
import type { CallDeps } from './deps.js';
import { type Caller, type Metered, metered } from './metering.js';

/** Refuses a crawler call's target (its parameter is `query`) before anything is reserved. */
export function checkCrawler(deps: CallDeps, params: CrawlerParams): Promise<void> {
  return deps.guard.checkTarget(params.url, 'query');
}

/** One crawler call: the target checked before a unit is reserved, then the metered fetch. */
export async function crawlerCall(
  deps: CallDeps,
  caller: Caller,
  params: CrawlerParams,
): Promise<Metered<CrawlerResult>> {
  await checkCrawler(deps, params);
  return metered(deps.metering, caller, 'website-crawler', () => fetchRawPage(deps.guard.fetcher, params));
}

/** The crawler's JSON body (DESIGN.md §2): what it learned of the response, and the page source when asked. */
export function crawlerBody(
  result: CrawlerResult,
  withHtml: boolean,
): { success: true; data: Static<typeof CrawlerDataSchema> & { html?: string } } {
  const { html, ...data } = result;
  return { success: true, data: withHtml ? { ...data, html } : data };
}
