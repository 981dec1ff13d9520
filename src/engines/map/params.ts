/** The map engine's typed input and its answer: what the edge produces after validation, and the body it returns. */
import { type Static, Type } from 'typebox';

/** Where the map's URLs come from (Firecrawl's `sitemap`): sitemaps and the start page, sitemaps only, or the start page only. */
export const SITEMAP_MODES = ['include', 'only', 'skip'] as const;
export type SitemapMode = (typeof SITEMAP_MODES)[number];

/** The most URLs one map returns, and gathers from each source (sitemaps, the start page). */
export const MAP_MAX_LINKS = 100_000;

export interface MapParams {
  /** The start page, http(s); its host is the site mapped. */
  readonly url: string;
  /** Lower-case words a URL must contain one of (plain substrings); empty keeps every URL. */
  readonly searchWords: readonly string[];
  /** URLs returned at most, 1 to MAP_MAX_LINKS. */
  readonly limit: number;
  /** Hosts below the start page's host count as the site too (www. always does). */
  readonly includeSubdomains: boolean;
  readonly sitemap: SitemapMode;
  /** Drops every query string, so that URLs differing only by it are one (Firecrawl's `ignoreQueryParameters`). */
  readonly ignoreQueryParams: boolean;
}

/** The body of POST /v1/map (docs/crawl.md, "Map"): Firecrawl's `{success, links: [{url}]}` with what was cut and why. */
export const MapBodySchema = Type.Object(
  {
    success: Type.Literal(true),
    links: Type.Array(Type.Object({ url: Type.String() }, { additionalProperties: false }), {
      description: 'the start page first, then its links, then the sitemaps; with search, best match first',
    }),
    total: Type.Integer({ description: 'distinct URLs found that match, before limit' }),
    truncated: Type.Boolean({ description: 'more URLs matched than limit allowed' }),
    warnings: Type.Array(Type.String(), { description: 'what was cut, skipped or could not be read' }),
  },
  { additionalProperties: false },
);

export type MapBody = Static<typeof MapBodySchema>;
