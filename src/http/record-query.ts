import { Type } from 'typebox';
import { MAX_PAGES_PER_ANSWER } from '../crawls/crawls.js';

/** A crawl's or batch's id in its record's path, checked for shape before any lookup. */
export const RecordId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

/** The query of a crawl's or batch's record: the cursor its `next` carries, how many it lists, and a key. */
export function recordQuery(noun: 'pages' | 'items') {
  return Type.Object(
    {
      cursor: Type.Optional(
        Type.String({
          maxLength: 12,
          pattern: '^(-1|[0-9]{1,11})$',
          description: 'from `next`; default: the first',
        }),
      ),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_PAGES_PER_ANSWER,
          description: `${noun} at most, default 20`,
        }),
      ),
      x_api_key: Type.Optional(Type.String({ maxLength: 256 })),
      access_key: Type.Optional(Type.String({ maxLength: 256 })),
    },
    { additionalProperties: false },
  );
}
