import { type TSchema, Type } from 'typebox';
import { CaptureJsonSchema } from '../../calls/delivery.js';
import { AnalysisDataSchema } from '../../engines/analyze/params.js';
import { ContentResultSchema } from '../../engines/content/params.js';
import { CrawlerDataSchema } from '../../engines/crawler/crawler.js';
import { ExtractResultSchema } from '../../engines/extract/extract.js';
import { MapBodySchema } from '../../engines/map/params.js';
import { JobStatusSchema } from '../../jobs/job-record.js';

/*
 * The success bodies of the billable calls. The data inside each is the schema its call or
 * engine declares its result with (the TypeScript type is derived from it), so a body cannot
 * drift from what is declared here; test/contract.test.ts checks real answers against
 * /openapi.json.
 */

/** `{success: true, data}`: the spec's envelope. */
function envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data }, { additionalProperties: false });
}

/** File bytes, sent as they are (Fastify does not serialize a Buffer). */
const Binary = Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' });

/** A capture: the image or PDF bytes by default, or the JSON body. */
export const CaptureSuccess = {
  description:
    'The image, PDF or recording (response_type=image), or JSON (response_type=json|base64, s3_url=true)',
  content: {
    'image/png': { schema: Binary },
    'image/jpeg': { schema: Binary },
    'image/webp': { schema: Binary },
    'image/avif': { schema: Binary },
    'application/pdf': { schema: Binary },
    'video/mp4': { schema: Binary },
    'video/webm': { schema: Binary },
    'image/gif': { schema: Binary },
    'application/json': { schema: CaptureJsonSchema },
  },
};

/** A hosted file (`screenshot_url`). */
export const FileSuccess = { description: 'the hosted file', content: { '*/*': { schema: Binary } } };

/** GET /v1/website/crawler without return_page_source (DESIGN.md §2). */
export const CrawlerBody = envelope(CrawlerDataSchema);

/** return_page_source=true: the page's HTML as it was served. */
export const CrawlerSuccess = {
  description: 'JSON about the response, or the page source with return_page_source=true',
  content: {
    'application/json': { schema: CrawlerBody },
    'text/html': { schema: Type.String() },
  },
};

/** GET /v1/content and /content: the spec's Content result in its envelope, with the extras of docs/content.md. */
export const ContentBody = envelope(ContentResultSchema);

/** The body of /v1/analyze and /analyze: the spec's Analysis result, custom fields as further string members. */
export const AnalyzeBody = envelope(AnalysisDataSchema);

/** GET|POST /v1/extract: `{success: true, data, warnings?}` (ScrapingBee's extract_rules answer, with its warnings beside it). */
export const ExtractBody = Type.Object(
  { success: Type.Literal(true), ...ExtractResultSchema.properties },
  { additionalProperties: false },
);

/** POST /v1/map: Firecrawl's body, not the envelope (docs/crawl.md, "Map"). */
export const MapBody = MapBodySchema;

/** 202 of an async call (is_async=true): the job to poll. */
export const JobAcceptedBody = Type.Object(
  {
    success: Type.Literal(true),
    job_id: Type.String(),
    status: JobStatusSchema,
    status_url: Type.String({ description: 'path of GET /jobs/{job_id}' }),
  },
  { additionalProperties: false },
);
