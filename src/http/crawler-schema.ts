import { Type } from 'typebox';
import { asyncFields, Flag } from './schemas.js';

/** The parameters of GET /v1/website/crawler (spec, Website Crawler). */
export const crawlerFields = {
  query: Type.String({ minLength: 1, maxLength: 8192, description: 'page URL, http or https' }),
  allow_redirects: Type.Optional(Flag),
  return_page_source: Type.Optional(Flag),
  ...asyncFields,
};
