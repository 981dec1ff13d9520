/** The content engine's typed input and its result: what the HTTP edge produces after validation, and the `data` it answers. */
import { type Static, Type } from 'typebox';
import type { PageParams } from '../../browser/page-params.js';

export interface ContentParams
  extends Omit<PageParams, 'device' | 'scaleFactor' | 'scrollDurationMs' | 'removal'> {
  readonly includeHtml: boolean;
  readonly includeMarkdown: boolean;
  /** Clean html and markdown down to the page's main content. */
  readonly useDefuddle: boolean;
  readonly includeSitemap: boolean;
}

const Strings = Type.Array(Type.String());

/**
 * The spec's Content result, with the documented extras (docs/content.md): the schema the
 * response is declared with and checked against, and the type the engine returns.
 */
export const ContentResultSchema = Type.Object(
  {
    url: Type.String({ description: 'the page URL after redirects and script navigations' }),
    statusCode: Type.Integer({ description: "the main document's HTTP status; 0 when it had none" }),
    metadata: Type.Object(
      {
        title: Type.String(),
        description: Type.String(),
        favicon: Type.String(),
        ogImage: Type.String(),
        language: Type.String(),
        canonicalUrl: Type.String(),
        siteName: Type.String(),
        author: Type.String(),
        publishedTime: Type.String(),
      },
      { additionalProperties: false },
    ),
    links: Type.Object(
      { internal: Strings, external: Strings, social: Strings },
      { additionalProperties: false },
    ),
    html: Type.Optional(Type.String({ description: 'with include_html=true' })),
    markdown: Type.Optional(Type.String({ description: 'with include_markdown=true' })),
    sitemap: Type.Optional(
      Type.Object(
        { source: Type.String(), totalLinks: Type.Integer(), links: Strings },
        { additionalProperties: false, description: 'with include_sitemap=true (alias sitemap)' },
      ),
    ),
    warnings: Type.Array(Type.String(), { description: 'what was cut, skipped or fell back' }),
  },
  { additionalProperties: false },
);

export type ContentResult = Static<typeof ContentResultSchema>;
