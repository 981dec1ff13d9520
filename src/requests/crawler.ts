import { type Static, type TObject, Type } from 'typebox';
import type { CallSpec } from '../calls/call-spec.js';
import { asyncFields, Flag, flag } from './common-fields.js';

/** The parameters of GET /v1/website/crawler (spec, Website Crawler). */
export const crawlerFields = {
  query: Type.String({ minLength: 1, maxLength: 8192, description: 'page URL, http or https' }),
  allow_redirects: Type.Optional(Flag),
  return_page_source: Type.Optional(Flag),
  ...asyncFields,
};

/** The call of a validated crawler request: redirects followed unless allow_redirects is false. */
export function crawlerRequest(input: Static<TObject<typeof crawlerFields>>): CallSpec<'website-crawler'> {
  return {
    engine: 'website-crawler',
    params: {
      url: input.query,
      allowRedirects: input.allow_redirects === undefined ? true : flag(input.allow_redirects),
    },
    pageSource: flag(input.return_page_source),
  };
}
