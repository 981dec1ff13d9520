import { type Static, type TObject, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import { CUSTOM_LIMITS } from '../engines/analyze/params.js';
import { invalidParam } from '../errors.js';
import { analyzeFields } from '../requests/analyze.js';
import { captureFields } from '../requests/capture.js';
import { crawlFields } from '../requests/crawl.js';
import { PROMPT_MAX_CHARS } from '../requests/extraction.js';
import { mapFields } from '../requests/map.js';
import { pageFields } from '../requests/page.js';
import { pageSourceFields } from '../requests/page-source.js';
import { pdfFields } from '../requests/pdf.js';
import {
  HeadersSchema,
  SHAPING_LIMITS,
  requestShapingFields as shaping,
} from '../requests/request-shaping.js';

/*
 * The MCP tools' input schemas, made from the requests' own TypeBox fields: the same bounds and
 * enums, without the long descriptions (the whole tools/list must stay well under 2,000 tokens
 * of an agent's context). A route's Flag (true/false or "1"/"0" for query strings) is a plain
 * boolean here: tool arguments are JSON.
 */

/** A route field without its description, keeping its bounds; `description` replaces it when given. */
function field<T extends TSchema>(schema: T, description?: string): T {
  const { description: _long, ...rest } = schema as T & { description?: string };
  return { ...rest, ...(description === undefined ? {} : { description }) } as T;
}

const optional = <T extends TSchema>(schema: T, description?: string) =>
  Type.Optional(field(schema, description));

const Bool = (description?: string) =>
  Type.Optional(Type.Boolean(description === undefined ? {} : { description }));

/** Characters of text a tool answers with by default, and at most. */
export const TEXT_CHARS = { default: 20_000, max: 100_000 } as const;

const async = Bool('run as a job; poll job_status');
const paging = {
  max_chars: Type.Optional(
    Type.Integer({ minimum: 1000, maximum: TEXT_CHARS.max, description: `default ${TEXT_CHARS.default}` }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
};
/*
 * Request shaping, as the routes take it: headers as an object (tool arguments are JSON), cookies
 * in their short `name=value; ...` form for the target's host (the list of cookie objects would
 * take a sixth of the whole tools/list three times over).
 */
const shapingArgs = {
  user_agent: optional(shaping.user_agent),
  headers: Type.Optional(HeadersSchema),
  cookies: Type.Optional(
    Type.String({ maxLength: SHAPING_LIMITS.textChars, description: 'name=value; ...' }),
  ),
  authorization: optional(shaping.authorization),
  accept_language: optional(shaping.accept_language),
  time_zone: optional(shaping.time_zone, 'IANA'),
  geolocation_latitude: optional(shaping.geolocation_latitude),
  geolocation_longitude: optional(shaping.geolocation_longitude),
  geolocation_accuracy: optional(shaping.geolocation_accuracy),
  dark_mode: Bool(),
  reduced_motion: Bool(),
  media_type: optional(shaping.media_type),
};

/** Where the page comes from: exactly one of url, html, markdown (checked by the request, as on the routes). */
const source = {
  url: optional(pageSourceFields.url, 'http(s) URL; or give html or markdown'),
  html: optional(pageSourceFields.html, 'the page itself, instead of url'),
  markdown: optional(pageSourceFields.markdown, 'the page as Markdown, instead of url'),
  base_url: optional(
    pageSourceFields.base_url,
    'where html or markdown is served: relative links resolve against it',
  ),
};
/*
 * Acting on the page before it is read: the steps as JSON text, described in a line rather than
 * by their schema (nine step types, three tools: a fifth of tools/list).
 */
const actions = Type.Optional(
  Type.String({
    maxLength: 100_000,
    description:
      'JSON list of steps run after load, e.g. [{"type":"click","selector":"#more"},{"type":"wait","milliseconds":500}]; types: wait, wait_for_selector, click, hover, type (selector, text), press (key), scroll (direction, amount), evaluate (script), screenshot (full_page; capture and content: its link is in the answer)',
  }),
);

const page = {
  ...source,
  wait_for_selector: optional(pageFields.wait_for_selector),
  delay: optional(pageFields.delay, 'seconds to wait'),
  remove_selectors: optional(pageFields.remove_selectors, 'comma-separated CSS'),
  actions,
  ...shapingArgs,
};

export const CaptureTool = Type.Object(
  {
    ...page,
    format: Type.Optional(Type.Enum(['png', 'jpeg', 'webp', 'avif', 'pdf', 'mp4', 'webm', 'gif'])),
    scenario: optional(captureFields.scenario),
    duration: optional(captureFields.duration),
    full_page: Bool(),
    device: optional(captureFields.device),
    viewport_width: optional(captureFields.viewport_width),
    viewport_height: optional(captureFields.viewport_height),
    selector: optional(captureFields.selector, 'capture one element'),
    omit_background: Bool('transparent background'),
    styles: optional(pageFields.styles, 'CSS to apply'),
    hide_selectors: optional(pageFields.hide_selectors, 'comma-separated CSS, layout kept'),
    pdf_paper_format: optional(pdfFields.pdf_paper_format),
    pdf_landscape: Bool(),
    pdf_margin: optional(pdfFields.pdf_margin, 'e.g. 1cm'),
    pdf_fit_one_page: Bool(),
    remove_ads: Bool(),
    cache: Bool(),
    async,
  },
  { additionalProperties: false },
);

export const ContentTool = Type.Object(
  {
    ...page,
    ...paging,
    whole_page: Bool('default false (main content); true: menus and all'),
    include_links: Bool(),
    cache: Bool('default true: pages read with offset come from one copy'),
    async,
  },
  { additionalProperties: false },
);

export const AnalyzeTool = Type.Object(
  {
    ...page,
    custom_response: Type.Optional(
      Type.Record(Type.String({ maxLength: CUSTOM_LIMITS.nameChars }), Type.String(), {
        maxProperties: CUSTOM_LIMITS.fields,
        description: 'extra fields: name → meaning',
      }),
    ),
    custom_prompt: optional(analyzeFields.custom_prompt),
    cache: Bool(),
    async,
  },
  { additionalProperties: false },
);

/**
 * A JSON Schema or selector rules as the route takes them, each shape told in one line (the
 * route's checks, requests/extraction.ts, run on them as on the route).
 */
export const ExtractTool = Type.Object(
  {
    url: field(pageSourceFields.url, 'http(s) URL'),
    schema: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'JSON Schema of the answer (or extract_rules)',
      }),
    ),
    prompt: Type.Optional(
      Type.String({ maxLength: PROMPT_MAX_CHARS, description: 'with schema: what to look for' }),
    ),
    extract_rules: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'field → CSS selector or {selector, type: text|html|attribute|list|object, attribute, output: rules}',
      }),
    ),
    async,
  },
  { additionalProperties: false },
);

export const WebsiteCrawlerTool = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 8192, description: 'http(s) URL' }),
    allow_redirects: Bool('default true'),
    ...paging,
    async,
  },
  { additionalProperties: false },
);

/** URLs a map tool call returns at most: an agent reads them all, so fewer than the route allows. */
export const MAP_TOOL_MAX_LINKS = 5000;

export const MapTool = Type.Object(
  {
    url: field(mapFields.url),
    search: optional(mapFields.search, 'words a URL must contain one of'),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAP_TOOL_MAX_LINKS })),
    include_subdomains: Bool(),
    sitemap: optional(mapFields.sitemap),
    ...paging,
    async,
  },
  { additionalProperties: false },
);

/** Pages a crawl_status answer lists at most, and the characters of the whole answer. */
export const CRAWL_STATUS_LIMITS = { pages: 20, defaultPages: 10, chars: TEXT_CHARS.default } as const;

/**
 * A whole-site crawl: the crawl's own fields, the page options left at REST's defaults, and no
 * `formats` (crawl_status shows each page's title and Markdown, the defaults).
 */
export const CrawlStartTool = Type.Object(
  {
    url: field(crawlFields.url, 'start page'),
    limit: optional(crawlFields.limit, 'pages, default 100'),
    max_depth: optional(crawlFields.max_depth, 'default 10'),
    include_paths: optional(crawlFields.include_paths, 'e.g. /blog/*'),
    exclude_paths: optional(crawlFields.exclude_paths),
    allow_subdomains: Bool(),
    allow_external: Bool(),
    sitemap: optional(crawlFields.sitemap),
    ignore_query_params: Bool(),
  },
  { additionalProperties: false },
);

export const CrawlStatusTool = Type.Object(
  {
    crawl_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    cursor: Type.Optional(
      Type.String({ maxLength: 12, pattern: '^(-1|[0-9]{1,11})$', description: 'from the last answer' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: CRAWL_STATUS_LIMITS.pages,
        description: `pages, default ${CRAWL_STATUS_LIMITS.defaultPages}`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const UsageTool = Type.Object({}, { additionalProperties: false });

export const JobStatusTool = Type.Object(
  {
    job_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    ...paging,
  },
  { additionalProperties: false },
);

export type CaptureArgs = Static<typeof CaptureTool>;
export type ContentArgs = Static<typeof ContentTool>;
export type AnalyzeArgs = Static<typeof AnalyzeTool>;
export type ExtractArgs = Static<typeof ExtractTool>;
export type WebsiteCrawlerArgs = Static<typeof WebsiteCrawlerTool>;
export type CrawlStartArgs = Static<typeof CrawlStartTool>;
export type CrawlStatusArgs = Static<typeof CrawlStatusTool>;
export type MapArgs = Static<typeof MapTool>;

/** The tools, in the order tools/list gives them; the descriptions are what an agent reads to choose. */
export const TOOLS = [
  {
    name: 'capture',
    description:
      'Screenshot, PDF or recording (mp4, webm, gif) of a web page. Returns screenshot_url and a downscaled preview image. 1 credit.',
    inputSchema: CaptureTool,
  },
  {
    name: 'content',
    description:
      "A page's main content as Markdown (title, description first). Long pages are cut at max_chars: read on with offset. 1 credit per call.",
    inputSchema: ContentTool,
  },
  {
    name: 'analyze',
    description:
      'Analysis of a web page as JSON: summary, category, topics, contacts, and any custom_response fields. 1 credit.',
    inputSchema: AnalyzeTool,
  },
  {
    name: 'extract',
    description: 'Page data as JSON by a JSON Schema or CSS selector rules. 1 credit.',
    inputSchema: ExtractTool,
  },
  {
    name: 'website_crawler',
    description: "One page's raw HTML as served (no browser), with its status and headers. 1 credit.",
    inputSchema: WebsiteCrawlerTool,
  },
  {
    name: 'crawl_start',
    description:
      'Starts crawling a whole site in the background; answers crawl_id. 1 credit per page fetched.',
    inputSchema: CrawlStartTool,
  },
  {
    name: 'crawl_status',
    description: "A crawl's progress and its pages' Markdown (shortened), with a cursor to read on. Free.",
    inputSchema: CrawlStatusTool,
  },
  {
    name: 'map',
    description: "A site's URLs, from its sitemaps and start page (no browser). 1 credit.",
    inputSchema: MapTool,
  },
  {
    name: 'usage',
    description: 'Credits remaining, quotas and rate limits of the API key. Free.',
    inputSchema: UsageTool,
  },
  {
    name: 'job_status',
    description: 'State and result of a job started with async=true. Free.',
    inputSchema: JobStatusTool,
  },
] as const satisfies readonly { name: string; description: string; inputSchema: TObject }[];

export type ToolName = (typeof TOOLS)[number]['name'];

/**
 * A tool's arguments checked against its schema; anything else is a 400 naming the first wrong
 * parameter (the API's own message form), so that the agent can correct its call.
 */
export function toolArgs<T extends TObject>(schema: T, raw: unknown): Static<T> {
  const args = raw ?? {};
  const error = Value.Errors(schema, args)[0];
  if (error === undefined) return args as Static<T>;
  const name = error.instancePath.split('/')[1] ?? '';
  if (error.schemaPath.endsWith('/additionalProperties'))
    throw invalidParam(name, 'is not a parameter of this tool');
  if (name === '') {
    const extra = error.params as { additionalProperties?: string[]; requiredProperties?: string[] };
    const named = extra.additionalProperties?.[0] ?? extra.requiredProperties?.[0];
    if (named !== undefined) throw invalidParam(named, error.message);
    throw invalidParam('arguments', error.message);
  }
  throw invalidParam(name, error.message);
}
