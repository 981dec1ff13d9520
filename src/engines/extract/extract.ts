import { type Static, Type } from 'typebox';
import type { PageOutcome } from '../../browser/load-page.js';
import { type ContentDeps, renderPage } from '../content/content.js';
import type { ContentPageParams } from '../content/params.js';
import { type ExtractBy, extractData } from './extract-data.js';

/** The extract engine's parameters: the page as content renders it, and the validated rules or schema. */
export interface ExtractParams extends ContentPageParams {
  readonly by: ExtractBy;
}

/** What /v1/extract answers beside `success`: the fields the rules asked for, and what was missing or cut. */
export const ExtractResultSchema = Type.Object(
  {
    data: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'each field of extract_rules (a string, an object, a list, or null when its selector matched nothing), or the object the schema describes',
    }),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'rules that matched nothing, fields the page does not state, lists that were cut, pages that did not finish loading',
      }),
    ),
  },
  { additionalProperties: false },
);

export type ExtractResult = Static<typeof ExtractResultSchema>;

/**
 * Structured data from a page by selector rules or a JSON Schema (docs/extract.md): the page is
 * rendered once as the content engine renders it, and its serialized DOM is read by extractData.
 * A page that stopped at a redirect is read as empty, with a warning. Throws what the pipeline
 * throws (blocked, unreachable, timeout) and what extractData does.
 */
export async function extract(
  deps: Pick<ContentDeps, 'page' | 'maxHtmlChars' | 'extractor' | 'schemaModel'>,
  params: ExtractParams,
): Promise<PageOutcome<ExtractResult>> {
  const rendered = await renderPage(deps, params);
  const warnings: string[] = [];
  let html = '';
  let pageUrl: string;
  if ('redirect' in rendered) {
    warnings.push(`the page redirects to ${rendered.redirect.location}; not followed`);
    pageUrl = rendered.redirect.location;
  } else {
    warnings.push(...rendered.loadWarnings);
    if (rendered.length > deps.maxHtmlChars) {
      warnings.push(
        `the page's HTML has ${rendered.length} characters; the first ${deps.maxHtmlChars} were extracted`,
      );
    }
    html = rendered.html;
    pageUrl = rendered.finalUrl;
  }
  const extracted = await extractData(deps, { html, pageUrl }, params.by);
  warnings.push(...extracted.warnings);
  return {
    result: { data: extracted.data, ...(warnings.length === 0 ? {} : { warnings }) },
    complete: !('redirect' in rendered) && rendered.loadWarnings.length === 0,
  };
}
