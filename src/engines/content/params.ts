/** The content engine's typed input and its result: what the HTTP edge produces after validation, and the `data` it answers. */
import { type Static, Type } from 'typebox';
import type { PageParams } from '../../browser/page-params.js';
import { ActionsResultSchema } from '../action-shots.js';
import type { ExtractBy } from '../extract/extract-data.js';

/** The page parameters of a content render: a capture's, without what only an image needs. */
export type ContentPageParams = Omit<
  PageParams,
  'device' | 'scaleFactor' | 'scrollDurationMs' | 'removal' | 'stepShots'
>;

export interface ContentParams extends ContentPageParams {
  readonly includeHtml: boolean;
  readonly includeMarkdown: boolean;
  /** Clean html and markdown down to the page's main content. */
  readonly useDefuddle: boolean;
  readonly includeSitemap: boolean;
  /** The `json` format: structured data by schema or rules, read from the same render. */
  readonly json: ExtractBy | null;
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
    json: Type.Optional(
      Type.Object(
        {
          data: Type.Record(Type.String(), Type.Unknown(), {
            description: 'the object the schema describes, or each field of extract_rules',
          }),
          warnings: Type.Optional(
            Type.Array(Type.String(), {
              description: 'fields the page does not state, rules that matched nothing',
            }),
          ),
        },
        { additionalProperties: false, description: 'with formats=json: as /v1/extract answers it' },
      ),
    ),
    sitemap: Type.Optional(
      Type.Object(
        { source: Type.String(), totalLinks: Type.Integer(), links: Strings },
        { additionalProperties: false, description: 'with include_sitemap=true (alias sitemap)' },
      ),
    ),
    actions: Type.Optional(ActionsResultSchema),
    warnings: Type.Array(Type.String(), { description: 'what was cut, skipped or fell back' }),
  },
  { additionalProperties: false },
);

export type ContentResult = Static<typeof ContentResultSchema>;
