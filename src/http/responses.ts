import { type TSchema, Type } from 'typebox';
import { Nullable } from './schemas.js';

/*
 * Response schemas (STYLE.md example 11): every route declares its success body and the
 * {"error"} body of each status it can return, so that /openapi.json describes what callers get
 * and Fastify serializes with them. Success bodies list every field: a field missing here would
 * be dropped from the answer, which the routes' tests would see.
 */

/** The one error body (spec "Errors"; DESIGN.md §2): the spec's message, detail after ': '. */
export const ErrorBody = Type.Object(
  { error: Type.String({ description: "the spec's message, then ': ' and the detail" }) },
  { additionalProperties: false },
);

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Bad Request: a parameter is missing or wrong (named), or the page could not be loaded',
  401: 'Invalid API Key (missing, unknown, inactive, expired), or Rate limit exceeded for the API key',
  402: 'Insufficient credits: no subscription quota, pack or credits left',
  403: 'Forbidden: account deactivated, or an invalid file link',
  404: 'Not Found',
  405: 'Method Not Allowed: HEAD on a billable endpoint',
  409: 'Conflict',
  413: 'Payload Too Large',
  500: 'Internal Error, including timeouts; retryable, never billed',
  503: 'Service Unavailable: busy, or a dependency is down; retry after Retry-After',
};

/** The error responses of the given statuses, each the one {"error"} body with what it means. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((status) => [status, { ...ErrorBody, description: ERROR_MEANINGS[status] ?? 'Error' }]),
  );
}

/** Errors every billable call can answer, besides its own. */
export const BILLABLE_ERRORS = [400, 401, 402, 403, 405, 500, 503] as const;

/** The body of /v1/stats: the spec's Stats snapshot. */
export const StatsBody = Type.Object(
  {
    engine: Type.String(),
    path: Nullable(Type.String()),
    health: Type.Union([Type.Literal('operational'), Type.Literal('degraded'), Type.Literal('down')]),
    success_rate: Type.Number({
      description: 'percent, 0-100; only 5xx are failures; smoothed at low volume',
    }),
    avg_response_time_ms: Type.Integer({ description: 'durations above 60 s excluded; 0 without data' }),
    window: Type.Literal('1h'),
  },
  { additionalProperties: false },
);

/** The JSON body of a capture (response_type json or base64, or s3_url=true). */
export const CaptureJsonBody = Type.Object(
  {
    success: Type.Literal(true),
    screenshot_url: Type.String({ description: 'hosted, signed, expiring link to the file' }),
    format: Type.String(),
    width: Type.Integer(),
    height: Type.Integer(),
    size: Type.Integer({ description: 'bytes' }),
    base64: Type.Optional(Type.String({ description: 'response_type=base64: the file, base64' })),
    s3_url: Type.Optional(Type.String({ description: "s3_url=true: the uploaded object's URL" })),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'present when the page was captured before it finished loading (also in x-webcap-warning)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** File bytes, sent as they are (Fastify does not serialize a Buffer). */
const Binary = Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' });

/** A capture: the image or PDF bytes by default, or the JSON body. */
export const CaptureSuccess = {
  description: 'The image or PDF (response_type=image), or JSON (response_type=json|base64, s3_url=true)',
  content: {
    'image/png': { schema: Binary },
    'image/jpeg': { schema: Binary },
    'image/webp': { schema: Binary },
    'application/pdf': { schema: Binary },
    'application/json': { schema: CaptureJsonBody },
  },
};

/** A hosted file (`screenshot_url`). */
export const FileSuccess = { description: 'the hosted file', content: { '*/*': { schema: Binary } } };

/** GET /v1/website/crawler without return_page_source (DESIGN.md §2). */
export const CrawlerBody = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object(
      {
        url: Type.String(),
        finalUrl: Type.String(),
        statusCode: Type.Integer(),
        redirects: Type.Array(Type.Object({ url: Type.String(), status: Type.Integer() })),
        contentType: Nullable(Type.String()),
        headers: Type.Record(Type.String(), Type.String()),
        size: Type.Integer({ description: 'bytes of the body after content decoding' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** return_page_source=true: the page's HTML as it was served. */
export const CrawlerSuccess = {
  description: 'JSON about the response, or the page source with return_page_source=true',
  content: {
    'application/json': { schema: CrawlerBody },
    'text/html': { schema: Type.String() },
  },
};

const Strings = Type.Array(Type.String());

/** GET /v1/content and /content: the spec's Content result in its envelope, with the extras of docs/content.md. */
export const ContentBody = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object(
      {
        url: Type.String({ description: 'the page URL after redirects' }),
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
    ),
  },
  { additionalProperties: false },
);

/** The body of /v1/analyze and /analyze: the spec's Analysis result, custom fields as further string members. */
export const AnalyzeBody = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object(
      {
        summary: Type.String(),
        valueProposition: Type.String(),
        keyFeatures: Strings,
        categories: Strings,
        useCases: Strings,
        targetAudience: Type.String(),
        emails: Type.Array(Type.String(), {
          description: 'found on the page (mailto: links and text), lower-cased',
        }),
        phoneNumbers: Type.Array(Type.String(), {
          description: 'found on the page (tel: links and text), E.164',
        }),
        warnings: Type.Optional(
          Type.Array(Type.String(), {
            description:
              'present when the page was analyzed before it finished loading, or was read other than whole (cut at its element budget, no root element)',
          }),
        ),
      },
      {
        additionalProperties: Type.String({
          description: 'a custom_response field; empty when the page does not say',
        }),
      },
    ),
  },
  { additionalProperties: false },
);

const Percent = Type.Number({ description: 'percentage, two decimals' });

const PackItem = Type.Object({
  id: Type.String(),
  title: Type.String(),
  purchased_at: Type.String(),
  total: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
  percent_used: Percent,
  exhausted: Type.Boolean(),
});

const KeyQuotas = Type.Object({
  total: Nullable(Type.Integer()),
  daily: Nullable(Type.Integer()),
  weekly: Nullable(Type.Integer()),
  monthly: Nullable(Type.Integer()),
});

/** The spec's Usage record. */
export const UsageBody = Type.Object({
  remaining: Type.Integer(),
  total_used: Type.Integer(),
  renewal_date: Type.String(),
  period: Type.Object({ start: Type.String(), end: Type.String() }),
  subscription: Type.Object({
    used: Type.Integer(),
    total: Type.Integer(),
    remaining: Type.Integer(),
    percent_used: Percent,
  }),
  credits: Type.Object({
    given: Type.Integer(),
    consumed: Type.Integer(),
    remaining: Type.Integer(),
    percent_used: Percent,
  }),
  rate_limit: Type.Object({ per_minute: Nullable(Type.Integer()), per_second: Nullable(Type.Integer()) }),
  account: Type.Object({ name: Type.String(), slug: Type.String() }),
  api_key: Type.Object({
    alias: Type.String(),
    active: Type.Boolean(),
    category: Type.String(),
    expires: Nullable(Type.String()),
    quotas: KeyQuotas,
  }),
  packs: Nullable(
    Type.Object({
      count: Type.Integer(),
      exhausted_count: Type.Integer(),
      all_exhausted: Type.Boolean(),
      total: Type.Integer(),
      used: Type.Integer(),
      remaining: Type.Integer(),
      percent_used: Percent,
      current_index: Type.Integer(),
      current: Nullable(PackItem),
      items: Type.Array(PackItem),
    }),
  ),
});

/** An account as the admin API shows it. */
export const AccountBody = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  active: Type.Boolean(),
  stats_enabled: Type.Boolean(),
  monthly_quota: Nullable(Type.Integer()),
  per_second: Nullable(Type.Integer()),
  per_minute: Nullable(Type.Integer()),
  billing_anchor: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
});

/** An API key as the admin API shows it; never the key itself, but once, at creation. */
export const KeyBody = Type.Object({
  id: Type.String(),
  account: Type.String(),
  account_id: Type.String(),
  alias: Type.String(),
  category: Type.String(),
  prefix: Type.String(),
  active: Type.Boolean(),
  expires_at: Nullable(Type.String()),
  revoked_at: Nullable(Type.String()),
  quotas: KeyQuotas,
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const CreatedKeyBody = Type.Object({
  ...KeyBody.properties,
  key: Type.String({ description: 'the API key; shown only in this answer' }),
});

export const PackBody = Type.Object({
  id: Type.String(),
  account: Type.String(),
  title: Type.String(),
  total: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
  purchased_at: Type.String(),
});

export const GrantBody = Type.Object({
  id: Type.String(),
  account: Type.String(),
  amount: Type.Integer(),
  note: Type.String(),
  granted_at: Type.String(),
  credits: Type.Object({ given: Type.Integer(), consumed: Type.Integer() }),
});

export const LedgerBody = Type.Object({
  account: Type.String(),
  totals: Type.Object({
    committed: Type.Object({ subscription: Type.Integer(), pack: Type.Integer(), credit: Type.Integer() }),
    reserved: Type.Integer(),
    released: Type.Integer(),
  }),
  entries: Type.Array(
    Type.Object({
      id: Type.String(),
      key_id: Type.String(),
      engine: Type.String(),
      source: Type.String(),
      pack_id: Nullable(Type.String()),
      period_start: Nullable(Type.String()),
      status: Type.String(),
      created_at: Type.String(),
      settled_at: Nullable(Type.String()),
    }),
  ),
});

const JobStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('failed'),
]);

/** 202 of an async call (is_async=true): the job to poll. */
export const JobAcceptedBody = Type.Object(
  {
    success: Type.Literal(true),
    job_id: Type.String(),
    status: JobStatus,
    status_url: Type.String({ description: 'path of GET /jobs/{job_id}' }),
  },
  { additionalProperties: false },
);

/** GET and DELETE /jobs/{job_id}: the job record of DESIGN.md §2 (docs/jobs.md). */
export const JobRecordBody = Type.Object(
  {
    job_id: Type.String(),
    status: JobStatus,
    endpoint: Type.String({ description: 'the path the job was submitted to' }),
    created_at: Type.String(),
    started_at: Nullable(Type.String()),
    finished_at: Nullable(Type.String()),
    result: Type.Unknown({
      description: 'completed: the body the synchronous call returns (capture as JSON)',
    }),
    error: Nullable(Type.Object({ status: Type.Integer(), error: Type.String() })),
    webhook: Type.Optional(
      Type.Object({
        state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
        attempts: Type.Array(
          Type.Object({
            at: Type.String(),
            status: Nullable(Type.Integer()),
            error: Type.Optional(Type.String()),
          }),
        ),
      }),
    ),
  },
  { additionalProperties: false },
);

/** An account's webhook signing secret (admin API). */
export const WebhookSecretBody = Type.Object(
  { account: Type.String(), webhook_secret: Type.String() },
  { additionalProperties: false },
);
