import { type Static, Type } from 'typebox';
import { ContentResultSchema } from '../engines/content/params.js';
import { BATCH_ENGINES } from '../requests/batch.js';
import { CRAWL_FORMATS } from './plan.js';

const Counts = Type.Object(
  {
    discovered: Type.Integer({ description: 'pages taken into the frontier (at most `limit`)' }),
    completed: Type.Integer(),
    failed: Type.Integer({ description: 'pages that answered 4xx or 5xx, or could not be loaded' }),
    skipped: Type.Integer({
      description: 'pages robots.txt disallowed, or that redirected outside the crawl',
    }),
    credits_used: Type.Integer({ description: 'one per completed page' }),
    running: Type.Integer({
      description:
        'pages being fetched now; a cancelled or stopped crawl finishes these (and bills them) after it ends',
    }),
  },
  { additionalProperties: false },
);

/** One finished page as GET /v1/crawl/{crawl_id} lists it. */
export const CrawlPageSchema = Type.Object(
  {
    url: Type.String(),
    final_url: Type.Optional(
      Type.String({ description: 'where the page landed after redirects, when elsewhere' }),
    ),
    status: Type.Enum(['completed', 'failed', 'skipped']),
    status_code: Type.Union([Type.Integer(), Type.Null()]),
    depth: Type.Integer({ description: 'links followed from the start page' }),
    error: Type.Optional(Type.String()),
    markdown: Type.Optional(Type.String()),
    html: Type.Optional(Type.String()),
    metadata: Type.Optional(ContentResultSchema.properties.metadata),
    links: Type.Optional(Type.Array(Type.String())),
    json: Type.Optional(ContentResultSchema.properties.json),
    screenshot: Type.Optional(
      Type.String({
        description:
          'with the screenshot format: hosted, signed link to a PNG of the page, valid FILE_URL_TTL_SECONDS from this answer; each read signs a fresh one',
      }),
    ),
    warnings: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);
export type CrawlPageJson = Static<typeof CrawlPageSchema>;

export const CrawlStatusSchema = Type.Enum([
  'queued',
  'running',
  'completed',
  'cancelled',
  'failed',
  'stopped',
]);

/** A crawl without its pages: the head of its record, and what a list of crawls shows of each. */
export const CrawlHeadSchema = Type.Object(
  {
    crawl_id: Type.String(),
    status: CrawlStatusSchema,
    stop_reason: Type.Union([Type.String(), Type.Null()], {
      description: 'why a stopped crawl stopped: payment_required, key_withdrawn',
    }),
    url: Type.String({ description: 'the start page' }),
    formats: Type.Array(Type.Enum([...CRAWL_FORMATS])),
    created_at: Type.String(),
    finished_at: Type.Union([Type.String(), Type.Null()]),
    expires_at: Type.Union([Type.String(), Type.Null()], {
      description: 'when the record and its pages are deleted; set when the crawl ends',
    }),
    counts: Counts,
  },
  { additionalProperties: false },
);
export type CrawlHead = Static<typeof CrawlHeadSchema>;

/** GET /v1/crawl/{crawl_id} (and DELETE's answer). */
export const CrawlRecordSchema = Type.Object(
  {
    success: Type.Literal(true),
    ...CrawlHeadSchema.properties,
    pages: Type.Array(CrawlPageSchema, {
      description: 'finished pages after `cursor`, in the order they finished',
    }),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'the URL of the next pages; null when none has finished past these yet',
    }),
    cursor: Type.Union([Type.String(), Type.Null()], { description: 'the cursor `next` carries' }),
  },
  { additionalProperties: false },
);
export type CrawlRecord = Static<typeof CrawlRecordSchema>;

/** POST /v1/crawl's 202. */
export const CrawlAcceptedSchema = Type.Object(
  {
    success: Type.Literal(true),
    crawl_id: Type.String(),
    status: CrawlStatusSchema,
    url: Type.String({ description: 'where to poll the crawl' }),
  },
  { additionalProperties: false },
);
export type CrawlAccepted = Static<typeof CrawlAcceptedSchema>;

/** One finished item as GET /v1/batch/{batch_id} lists it. */
export const BatchItemSchema = Type.Object(
  {
    index: Type.Integer({ description: 'its place in `urls`' }),
    url: Type.String(),
    status: Type.Enum(['completed', 'failed']),
    status_code: Type.Integer({
      description: "the answer's status its call would have had: 200, or the error's",
    }),
    error: Type.Optional(Type.String()),
    result: Type.Optional(
      Type.Unknown({
        description:
          "the body its call answers as a job's result: capture's JSON (a hosted link), or {success, data}",
      }),
    ),
  },
  { additionalProperties: false },
);
export type BatchItemJson = Static<typeof BatchItemSchema>;

/** A batch without its items: the head of its record, and what a list of batches shows of each. */
export const BatchHeadSchema = Type.Object(
  {
    batch_id: Type.String(),
    engine: Type.Enum([...BATCH_ENGINES]),
    status: CrawlStatusSchema,
    stop_reason: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
    finished_at: Type.Union([Type.String(), Type.Null()]),
    expires_at: Type.Union([Type.String(), Type.Null()]),
    counts: Type.Object(
      {
        total: Type.Integer(),
        completed: Type.Integer(),
        failed: Type.Integer(),
        credits_used: Type.Integer(),
        running: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type BatchHead = Static<typeof BatchHeadSchema>;

/** GET /v1/batch/{batch_id} (and DELETE's answer). */
export const BatchRecordSchema = Type.Object(
  {
    success: Type.Literal(true),
    ...BatchHeadSchema.properties,
    items: Type.Array(BatchItemSchema, {
      description: 'finished items after `cursor`, in the order they finished',
    }),
    next: Type.Union([Type.String(), Type.Null()]),
    cursor: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
export type BatchRecord = Static<typeof BatchRecordSchema>;

/** POST /v1/batch's 202. */
export const BatchAcceptedSchema = Type.Object(
  {
    success: Type.Literal(true),
    batch_id: Type.String(),
    status: CrawlStatusSchema,
    url: Type.String({ description: 'where to poll the batch' }),
  },
  { additionalProperties: false },
);
export type BatchAccepted = Static<typeof BatchAcceptedSchema>;

/** A crawl or a batch as the console's list of them shows it: its head, named by its `kind`. */
export const CrawlListItemSchema = Type.Union([
  Type.Object(
    { kind: Type.Literal('crawl'), ...CrawlHeadSchema.properties },
    { additionalProperties: false },
  ),
  Type.Object(
    { kind: Type.Literal('batch'), ...BatchHeadSchema.properties },
    { additionalProperties: false },
  ),
]);
export type CrawlListItem = Static<typeof CrawlListItemSchema>;
