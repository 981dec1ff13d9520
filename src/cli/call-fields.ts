import { Type } from 'typebox';
import { analyzeFields } from '../http/analyze-schema.js';
import { captureFields } from '../http/capture-schema.js';
import { contentFields } from '../http/content-schema.js';
import { WaitUntilList } from '../http/page-schema.js';
import { asyncFields, Flag } from '../http/schemas.js';
import type { Fields } from './call-options.js';

/*
 * The query parameters of each v1 endpoint a verb calls, from the schemas its route is built on
 * (the route modules themselves would load the whole HTTP stack into every `webcap` command).
 * The few fields a v1 route adds to the shared ones are repeated here; test/cli-verbs.test.ts
 * checks each set against the parameters the served /openapi.json declares, so neither drifts.
 */

/** GET /v1/capture: the shared capture fields and the v1 forms of image_quality and wait_until. */
export const CAPTURE_FIELDS: Fields = {
  ...captureFields,
  full_page_scroll: Type.Optional(Flag),
  image_quality: Type.Optional(
    Type.String({ maxLength: 3, pattern: '^(100|[1-9][0-9]?)$', description: '1-100, default 80' }),
  ),
  wait_until: Type.Optional(WaitUntilList),
};

/** GET /v1/content. */
export const CONTENT_FIELDS: Fields = { ...contentFields, wait_until: Type.Optional(WaitUntilList) };

/** GET|POST /v1/analyze. */
export const ANALYZE_FIELDS: Fields = analyzeFields;

/** GET /v1/website/crawler. */
export const CRAWL_FIELDS: Fields = {
  query: Type.String({ minLength: 1, maxLength: 8192, description: 'page URL, http or https' }),
  allow_redirects: Type.Optional(Flag),
  return_page_source: Type.Optional(Flag),
  ...asyncFields,
};
