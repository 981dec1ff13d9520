import { type Static, type TObject, Type } from 'typebox';
import type { CallSpec } from '../calls/call-spec.js';
import { invalidParam } from '../errors.js';
import { refuseScreenshots } from './actions.js';
import { asyncFields } from './common-fields.js';
import { extractByOf, extractionFields } from './extraction.js';
import { cacheOf, pageFields, pageParamsOf, WaitUntilList } from './page.js';

/** GET|POST /v1/extract: the page as /v1/content takes it, and a schema or selector rules (docs/extract.md). */
export const extractFields = {
  ...pageFields,
  wait_until: Type.Optional(WaitUntilList),
  ...extractionFields,
  ...asyncFields,
};

export type ExtractInput = Static<TObject<typeof extractFields>>;

/** The call of a validated extract request: the page's parameters, the schema or rules checked and bounded, and the cache. */
export function extractRequest(input: ExtractInput): CallSpec<'extract'> {
  const by = extractByOf(input);
  if (by === null) throw invalidParam('schema', 'or extract_rules is required: give one of them');
  const page = pageParamsOf(input);
  refuseScreenshots(page.actions, 'is not taken by extract: its answer has no place for images');
  return {
    engine: 'extract',
    params: {
      viewportWidth: null,
      viewportHeight: null,
      selector: null,
      ...page,
      by,
    },
    cache: cacheOf(input),
  };
}
