import type { ContentParams } from '../engines/content/params.js';

/**
 * What a crawl keeps of each page (Firecrawl's `formats`); `screenshot` is an image taken in the
 * same render; `json` the page's structured data by the crawl's schema or rules.
 */
export const CRAWL_FORMATS = ['markdown', 'html', 'metadata', 'links', 'screenshot', 'json'] as const;
export type CrawlFormat = (typeof CRAWL_FORMATS)[number];

/** Where a crawl finds its pages besides links (Firecrawl's `sitemap`). */
export const SITEMAP_MODES = ['include', 'skip', 'only'] as const;
export type SitemapMode = (typeof SITEMAP_MODES)[number];

/**
 * A crawl as validated at the edge: everything a worker needs to run any of its pages, stored
 * sealed with the crawl (its page options may hold a caller's headers and cookies).
 */
export interface CrawlPlan {
  /** The start page, normalized (engines/site/site-url.ts). */
  readonly url: string;
  readonly limit: number;
  /** Links followed from the start page at most this many times; 0 crawls the start page alone. */
  readonly maxDepth: number;
  /** `*` wildcard patterns a discovered page's path must match one of (none: any). */
  readonly includePaths: readonly string[];
  /** `*` wildcard patterns a discovered page's path must match none of. */
  readonly excludePaths: readonly string[];
  readonly allowSubdomains: boolean;
  readonly allowExternal: boolean;
  readonly sitemap: SitemapMode;
  readonly ignoreQueryParams: boolean;
  readonly respectRobots: boolean;
  /** Between the starts of two pages of one host; robots.txt's Crawl-delay raises it. */
  readonly delayMs: number;
  readonly maxConcurrency: number;
  readonly formats: readonly CrawlFormat[];
  /** With the `screenshot` format: the whole page rather than the viewport. */
  readonly fullPage: boolean;
  /** Where the links to the pages' images point (the service as the caller reached it). */
  readonly baseUrl: string;
  /** Each page's render and extraction; its `url` is the page's. */
  readonly page: ContentParams;
  readonly webhookUrl: string | null;
}
