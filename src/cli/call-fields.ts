import { analyzeFields } from '../http/analyze-schema.js';
import { v1CaptureFields } from '../http/capture-schema.js';
import { v1ContentFields } from '../http/content-schema.js';
import { crawlerFields } from '../http/crawler-schema.js';
import type { Fields } from './call-options.js';

/*
 * The query parameters of each v1 endpoint a verb calls, from the schema modules its route is
 * built on (the route modules themselves would load the whole HTTP stack into every `webcap`
 * command); test/cli-verbs.test.ts checks each set against the parameters the served
 * /openapi.json declares.
 */

/** GET /v1/capture. */
export const CAPTURE_FIELDS: Fields = v1CaptureFields;

/** GET /v1/content. */
export const CONTENT_FIELDS: Fields = v1ContentFields;

/** GET|POST /v1/analyze. */
export const ANALYZE_FIELDS: Fields = analyzeFields;

/** GET /v1/website/crawler. */
export const CRAWL_FIELDS: Fields = crawlerFields;
