import { type Static, type TObject, Type } from 'typebox';
import type { CallSpec } from '../calls/call-spec.js';
import { MAP_MAX_LINKS, SITEMAP_MODES } from '../engines/map/params.js';
import { invalidParam } from '../errors.js';
import { asyncFields, Flag, flag } from './common-fields.js';
import { cacheFields, cacheOf } from './page.js';

/** Words of `search` at most: each is looked for in every URL found. */
const MAX_SEARCH_WORDS = 10;

/** The parameters of GET|POST /v1/map (docs/crawl.md, "Map"): Firecrawl's, in snake case. */
export const mapFields = {
  url: Type.String({ minLength: 1, maxLength: 8192, description: 'the start page, http or https' }),
  search: Type.Optional(
    Type.String({
      maxLength: 500,
      description: `only URLs containing one of these words (at most ${MAX_SEARCH_WORDS}, any case), most words first`,
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAP_MAX_LINKS, description: 'URLs returned at most, default 1000' }),
  ),
  include_subdomains: Type.Optional(Flag),
  sitemap: Type.Optional(
    Type.Enum([...SITEMAP_MODES], {
      description: 'include (default): sitemaps and the start page; only: sitemaps; skip: the start page',
    }),
  ),
  ignore_query_parameters: Type.Optional(Flag),
  ...cacheFields,
  ...asyncFields,
};

export type MapInput = Static<TObject<typeof mapFields>>;

/** The lower-case, distinct words of `search`; more than MAX_SEARCH_WORDS is a 400. */
function searchWords(search: string | undefined): string[] {
  // Split on runs of white space: linear, whatever the text.
  const words = [
    ...new Set(
      (search ?? '')
        .toLowerCase()
        .split(/\s+/)
        .filter((word) => word !== ''),
    ),
  ];
  if (words.length > MAX_SEARCH_WORDS)
    throw invalidParam('search', `has more than ${MAX_SEARCH_WORDS} words`);
  return words;
}

/** The call of a validated map request: its engine parameters and cache. */
export function mapRequest(input: MapInput): CallSpec<'map'> {
  return {
    engine: 'map',
    params: {
      url: input.url,
      searchWords: searchWords(input.search),
      limit: input.limit ?? 1000,
      includeSubdomains: flag(input.include_subdomains),
      sitemap: input.sitemap ?? 'include',
      ignoreQueryParams: flag(input.ignore_query_parameters),
    },
    cache: cacheOf(input),
  };
}
