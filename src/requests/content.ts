import { type Static, type TObject, Type } from 'typebox';
import type { CallSpec } from '../calls/call-spec.js';
import type { ContentParams } from '../engines/content/params.js';
import { invalidParam } from '../errors.js';
import { asyncFields, Flag, flag } from './common-fields.js';
import { extractionFields, jsonFormatOf } from './extraction.js';
import {
  cacheOf,
  pageFields,
  pageParamsOf,
  WaitEventSchema,
  type WaitUntilInput,
  WaitUntilList,
} from './page.js';

/** The content parameters both /v1/content and the legacy /content take (spec, GET /v1/content). */
export const contentFields = {
  ...pageFields,
  include_html: Type.Optional(Flag),
  include_markdown: Type.Optional(Flag),
  use_defuddle: Type.Optional(Flag),
  include_sitemap: Type.Optional(Flag),
  sitemap: Type.Optional(Flag),
  ...asyncFields,
};

/** What /v1/content may answer beside metadata and links (Firecrawl's `formats`). */
export const CONTENT_FORMATS = ['markdown', 'html', 'json'] as const;

/**
 * GET /v1/content: the shared fields, wait_until one value or several, and `formats` with the
 * json format's schema or rules.
 */
export const v1ContentFields = {
  ...contentFields,
  wait_until: Type.Optional(WaitUntilList),
  formats: Type.Optional(
    Type.Array(Type.Enum([...CONTENT_FORMATS]), {
      minItems: 1,
      maxItems: CONTENT_FORMATS.length,
      description:
        'markdown and html as include_markdown and include_html; json: the page as structured data by schema or extract_rules, as /v1/extract answers it',
    }),
  ),
  ...extractionFields,
};

type V1Only = Partial<
  Static<TObject<Pick<typeof v1ContentFields, 'formats' | keyof typeof extractionFields>>>
>;

/** The content parameters only the legacy /content takes: one wait event, selector and the viewport. */
export const legacyContentFields = {
  wait_until: Type.Optional(WaitEventSchema),
  selector: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  viewport_width: Type.Optional(
    Type.Integer({ minimum: 100, maximum: 3840, description: 'pixels, default 1280' }),
  ),
  viewport_height: Type.Optional(
    Type.Integer({ minimum: 100, maximum: 4320, description: 'pixels, default 1024' }),
  ),
};

/** The legacy-only fields but wait_until, which both generations take in their own form. */
type LegacyOnly = Omit<Static<TObject<typeof legacyContentFields>>, 'wait_until'>;

/** A validated content request of either generation; wait_until is one event or several. */
export type ContentInput = Static<TObject<typeof contentFields>> &
  Partial<LegacyOnly> &
  V1Only & {
    readonly wait_until?: WaitUntilInput;
  };

/**
 * The call of a validated content request, its engine parameters and cache; `include_sitemap` and
 * `sitemap` are one flag (DESIGN.md §2); `baseUrl` is where the images of screenshot steps are linked from.
 */
export function contentRequest(
  input: ContentInput,
  generation: 'v1' | 'legacy',
  baseUrl: string,
): CallSpec<'content'> {
  if (input.include_sitemap !== undefined && input.sitemap !== undefined) {
    if (flag(input.include_sitemap) !== flag(input.sitemap))
      throw invalidParam('sitemap', 'conflicts with its alias include_sitemap');
  }
  // The legacy-only fields; a v1 request cannot carry them (its schema refuses unknown names).
  const legacy: Partial<LegacyOnly> = generation === 'legacy' ? input : {};
  const formats = new Set(input.formats ?? []);
  const json = jsonFormatOf(input, formats.has('json'));
  const params: ContentParams = {
    viewportWidth: legacy.viewport_width ?? null,
    viewportHeight: legacy.viewport_height ?? null,
    selector: legacy.selector ?? null,
    ...pageParamsOf(input),
    includeHtml: flag(input.include_html) || formats.has('html'),
    includeMarkdown: flag(input.include_markdown) || formats.has('markdown'),
    useDefuddle: flag(input.use_defuddle),
    includeSitemap: flag(input.include_sitemap) || flag(input.sitemap),
    json,
  };
  return { engine: 'content', params, cache: cacheOf(input), baseUrl };
}
