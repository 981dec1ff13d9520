import { analyzeFields } from '../requests/analyze.js';
import { v1CaptureFields } from '../requests/capture.js';
import { v1ContentFields } from '../requests/content.js';
import { crawlFields } from '../requests/crawl.js';
import { crawlerFields } from '../requests/crawler.js';
import { extractFields } from '../requests/extract.js';
import { mapFields } from '../requests/map.js';
import type { Fields } from './call-options.js';

/*
 * The query parameters of each v1 endpoint a verb calls, from the request modules its route is
 * built on; test/cli-verbs.test.ts checks each set against the parameters the served
 * /openapi.json declares.
 */

/** GET /v1/capture. */
export const CAPTURE_FIELDS: Fields = v1CaptureFields;

/** GET /v1/content. */
export const CONTENT_FIELDS: Fields = v1ContentFields;

/** GET|POST /v1/analyze. */
export const ANALYZE_FIELDS: Fields = analyzeFields;

/** GET|POST /v1/extract. */
export const EXTRACT_FIELDS: Fields = extractFields;

/** GET /v1/website/crawler: one page's raw response. */
export const WEBSITE_CRAWLER_FIELDS: Fields = crawlerFields;

/** POST /v1/crawl: a whole-site crawl. */
export const CRAWL_FIELDS: Fields = crawlFields;

/** GET|POST /v1/map. */
export const MAP_FIELDS: Fields = mapFields;
