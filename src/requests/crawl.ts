import { type Static, type TObject, Type } from 'typebox';
import {
  CRAWL_FORMATS,
  type CrawlFormat,
  type CrawlPlan,
  SITEMAP_MODES,
  type SitemapMode,
} from '../crawls/plan.js';
import type { ContentParams } from '../engines/content/params.js';
import { siteUrl } from '../engines/site/site-url.js';
import { invalidParam } from '../errors.js';
import { refuseScreenshots } from './actions.js';
import { Flag, flag } from './common-fields.js';
import { extractionFields, jsonFormatOf } from './extraction.js';
import { pageFields, pageParamsOf, WaitUntilList } from './page.js';

/** Bounds of the path patterns (docs/crawl.md). */
export const PATTERN_LIMITS = Object.freeze({ count: 50, chars: 512 });

const Patterns = (what: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: PATTERN_LIMITS.chars }), {
    maxItems: PATTERN_LIMITS.count,
    description: `path patterns with \`*\` wildcards (\`/blog/*\`), matched against the whole path; ${what}`,
  });

/**
 * The page options a crawl applies to each page: the content endpoint's, without those that make
 * no sense per page of a site (html/markdown input, the cache) or that a crawl names otherwise
 * (`delay` is the crawl's politeness, not a wait before each page).
 */
const {
  url: _url,
  html: _html,
  markdown: _markdown,
  base_url: _baseUrl,
  cache: _cache,
  cache_ttl: _cacheTtl,
  delay: _delay,
  // A crawl's pages are many: waiting out a consent manager on each is not offered.
  remove_cookie_banners: _removeCookieBanners,
  ...crawlPageFields
} = pageFields;

/** POST /v1/crawl (and GET): a whole-site crawl (docs/crawl.md; Firecrawl's names where they differ are there). */
export const crawlFields = {
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'the start page, http or https' }),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: 'pages at most, default 100 (CRAWL_MAX_PAGES caps it)',
    }),
  ),
  max_depth: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'links followed from the start page at most, default 10',
    }),
  ),
  include_paths: Type.Optional(Patterns('a page must match one of them (default: any)')),
  exclude_paths: Type.Optional(Patterns('a page must match none of them')),
  allow_subdomains: Type.Optional(Flag),
  allow_external: Type.Optional(Flag),
  sitemap: Type.Optional(
    Type.Enum([...SITEMAP_MODES], {
      default: 'include',
      description:
        "include: the sitemap's pages beside the links; skip: links only; only: the sitemap's pages only",
    }),
  ),
  ignore_query_params: Type.Optional(Flag),
  respect_robots: Type.Optional(Flag),
  delay: Type.Optional(
    Type.Number({ minimum: 0, maximum: 60, description: 'seconds between two pages of one host, default 0' }),
  ),
  max_concurrency: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 256,
      description: 'pages of this crawl at once, default 5 (CRAWL_MAX_CONCURRENCY caps it)',
    }),
  ),
  formats: Type.Optional(
    Type.Array(Type.Enum([...CRAWL_FORMATS]), {
      minItems: 1,
      maxItems: CRAWL_FORMATS.length,
      description:
        'what each page keeps, default markdown and metadata; screenshot: a hosted link to a PNG of the page, taken in the same render; json: its structured data by schema or extract_rules',
    }),
  ),
  // With the screenshot format: the whole page (cut at MAX_FULL_PAGE_HEIGHT_PX) rather than the viewport.
  full_page: Type.Optional(Flag),
  use_defuddle: Type.Optional(Flag),
  ...extractionFields,
  ...crawlPageFields,
  wait_until: Type.Optional(WaitUntilList),
  webhook_url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'http(s) URL that receives crawl.started, crawl.page, crawl.completed and crawl.failed',
    }),
  ),
};

export type CrawlInput = Static<TObject<typeof crawlFields>>;

/** The service's ceilings of a crawl (CRAWL_MAX_PAGES, CRAWL_MAX_CONCURRENCY). */
export interface CrawlCeilings {
  readonly maxPages: number;
  readonly maxConcurrency: number;
}

const DEFAULT_LIMIT = 100;
const DEFAULT_MAX_DEPTH = 10;
const DEFAULT_CONCURRENCY = 5;

/**
 * The plan of a validated crawl request; a value past the service's ceilings is a 400 naming it.
 * `baseUrl` is where the links to the pages' images point.
 */
export function crawlRequest(input: CrawlInput, ceilings: CrawlCeilings, baseUrl: string): CrawlPlan {
  const limit = input.limit ?? Math.min(DEFAULT_LIMIT, ceilings.maxPages);
  if (limit > ceilings.maxPages)
    throw invalidParam('limit', `is at most ${ceilings.maxPages} on this service`);
  const concurrency = input.max_concurrency ?? Math.min(DEFAULT_CONCURRENCY, ceilings.maxConcurrency);
  if (concurrency > ceilings.maxConcurrency) {
    throw invalidParam('max_concurrency', `is at most ${ceilings.maxConcurrency} on this service`);
  }
  const ignoreQueryParams = flag(input.ignore_query_params);
  const start = siteUrl(input.url.trim(), { ignoreQueryParams });
  if (start === null) {
    throw invalidParam('url', 'must be an http(s) URL without credentials, at most 2,048 characters');
  }
  // `delay` here is the crawl's politeness between pages, not the page's wait before it is read.
  const page = pageParamsOf({ ...input, url: start, delay: undefined });
  refuseScreenshots(page.actions, 'a crawl takes one image of each page: put screenshot in formats');
  const formats = [...new Set(input.formats ?? ['markdown', 'metadata'])] as CrawlFormat[];
  const params: ContentParams = {
    viewportWidth: null,
    viewportHeight: null,
    selector: null,
    ...page,
    removeCookieBanners: false,
    includeHtml: false,
    includeMarkdown: false,
    useDefuddle: flag(input.use_defuddle),
    includeSitemap: false,
    json: jsonFormatOf(input, formats.includes('json')),
  };
  const fullPage = flag(input.full_page);
  if (fullPage && !formats.includes('screenshot'))
    throw invalidParam('full_page', 'needs screenshot in formats');
  return {
    url: start,
    limit,
    maxDepth: input.max_depth ?? DEFAULT_MAX_DEPTH,
    includePaths: input.include_paths ?? [],
    excludePaths: input.exclude_paths ?? [],
    allowSubdomains: flag(input.allow_subdomains),
    allowExternal: flag(input.allow_external),
    sitemap: (input.sitemap ?? 'include') as SitemapMode,
    ignoreQueryParams,
    respectRobots: input.respect_robots === undefined ? true : flag(input.respect_robots),
    delayMs: Math.round((input.delay ?? 0) * 1000),
    maxConcurrency: concurrency,
    formats,
    fullPage,
    baseUrl,
    page: params,
    webhookUrl: input.webhook_url ?? null,
  };
}
