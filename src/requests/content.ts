import { type Static, type TObject, Type } from 'typebox';
import type { CallSpec } from '../calls/call-spec.js';
import type { ContentParams } from '../engines/content/params.js';
import { invalidParam } from '../errors.js';
import { asyncFields, Flag, flag } from './common-fields.js';
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

/** GET /v1/content: the shared fields, wait_until one value or several. */
export const v1ContentFields = { ...contentFields, wait_until: Type.Optional(WaitUntilList) };

/** The content parameters only the legacy /content takes: one wait event, selector, cookie banners and the viewport. */
export const legacyContentFields = {
  wait_until: Type.Optional(WaitEventSchema),
  selector: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  remove_cookie_banners: Type.Optional(Flag),
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
  Partial<LegacyOnly> & {
    readonly wait_until?: WaitUntilInput;
  };

/** The call of a validated content request, its engine parameters and cache; `include_sitemap` and `sitemap` are one flag (DESIGN.md §2). */
export function contentRequest(input: ContentInput, generation: 'v1' | 'legacy'): CallSpec<'content'> {
  if (input.include_sitemap !== undefined && input.sitemap !== undefined) {
    if (flag(input.include_sitemap) !== flag(input.sitemap))
      throw invalidParam('sitemap', 'conflicts with its alias include_sitemap');
  }
  // The legacy-only fields; a v1 request cannot carry them (its schema refuses unknown names).
  const legacy: Partial<LegacyOnly> = generation === 'legacy' ? input : {};
  const params: ContentParams = {
    viewportWidth: legacy.viewport_width ?? null,
    viewportHeight: legacy.viewport_height ?? null,
    selector: legacy.selector ?? null,
    ...pageParamsOf(input),
    removeCookieBanners: flag(legacy.remove_cookie_banners),
    includeHtml: flag(input.include_html),
    includeMarkdown: flag(input.include_markdown),
    useDefuddle: flag(input.use_defuddle),
    includeSitemap: flag(input.include_sitemap) || flag(input.sitemap),
  };
  return { engine: 'content', params, cache: cacheOf(input) };
}
