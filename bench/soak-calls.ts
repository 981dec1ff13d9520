import type { Pool } from 'undici';
import type { PageName } from './fixture-pages.js';
import type { FixtureSite } from './fixture-site.js';
import { seededRandom } from './seeded-random.js';

/**
 * What the soak asks the service for: the bench's three pages through all three engines
 * (capture, content, analyze) with the parameters users vary, cache hits and misses, hosted files,
 * async jobs of each engine (submitted, then polled to their end), and calls that fail on purpose.
 * Each kind has a weight (they add up to 100) and the status it must answer with; an async kind's
 * submission must answer 202 and its job must complete.
 */
const KINDS = {
  png: { engine: 'capture', weight: 8, status: 200, reachesBrowser: true },
  jpeg: { engine: 'capture', weight: 4, status: 200, reachesBrowser: true },
  webp: { engine: 'capture', weight: 3, status: 200, reachesBrowser: true },
  pdf: { engine: 'capture', weight: 3, status: 200, reachesBrowser: true },
  full_page: { engine: 'capture', weight: 4, status: 200, reachesBrowser: true },
  device: { engine: 'capture', weight: 4, status: 200, reachesBrowser: true },
  selector: { engine: 'capture', weight: 4, status: 200, reachesBrowser: true },
  block_resources: { engine: 'capture', weight: 3, status: 200, reachesBrowser: true },
  remove_selectors: { engine: 'capture', weight: 3, status: 200, reachesBrowser: true },
  // Six fixed captures with cache=true: the first of each renders, the rest are hits.
  cache_repeat: { engine: 'capture', weight: 5, status: 200, reachesBrowser: true },
  // cache=true on a URL never asked before: a miss that renders and stores an entry.
  cache_unique: { engine: 'capture', weight: 2, status: 200, reachesBrowser: true },
  // response_type=json: a hosted file; half of them are then fetched through its signed URL.
  json: { engine: 'capture', weight: 4, status: 200, reachesBrowser: true },
  base64: { engine: 'capture', weight: 2, status: 200, reachesBrowser: true },
  // A selector Chromium cannot parse: a 400 from the browser.
  invalid_selector: { engine: 'capture', weight: 1, status: 400, reachesBrowser: true },
  // A selector that matches the <title>, an element with no box: a 400 after navigation.
  boxless_selector: { engine: 'capture', weight: 1, status: 400, reachesBrowser: true },
  // An allowed loopback port where nothing listens: the browser's navigation fails.
  unreachable: { engine: 'capture', weight: 1, status: 400, reachesBrowser: true },
  // A loopback port outside the allow list: refused by the guard before any browser work.
  blocked: { engine: 'capture', weight: 1, status: 400, reachesBrowser: false },
  // format=bmp, a format the service does not make: refused by the schema.
  invalid_param: { engine: 'capture', weight: 1, status: 400, reachesBrowser: false },
  // Metadata and links.
  content: { engine: 'content', weight: 6, status: 200, reachesBrowser: true },
  content_markdown: { engine: 'content', weight: 6, status: 200, reachesBrowser: true },
  // Defuddle's extraction, then Markdown.
  content_defuddle: { engine: 'content', weight: 5, status: 200, reachesBrowser: true },
  // Sitemap discovery: robots.txt and /sitemap.xml fetched through the guard (the site has neither).
  content_sitemap: { engine: 'content', weight: 2, status: 200, reachesBrowser: true },
  // Six fixed pages with cache=true, as cache_repeat.
  content_cache: { engine: 'content', weight: 3, status: 200, reachesBrowser: true },
  content_unreachable: { engine: 'content', weight: 1, status: 400, reachesBrowser: true },
  // The extractive analyzer (the service's default: no model is configured).
  analyze: { engine: 'analyze', weight: 7, status: 200, reachesBrowser: true },
  analyze_custom: { engine: 'analyze', weight: 4, status: 200, reachesBrowser: true },
  analyze_cache: { engine: 'analyze', weight: 3, status: 200, reachesBrowser: true },
  // is_async=true: 202, then GET /jobs/{id} until the job ends; it must complete.
  async_capture: { engine: 'capture', weight: 3, status: 202, reachesBrowser: true },
  async_content: { engine: 'content', weight: 3, status: 202, reachesBrowser: true },
  async_analyze: { engine: 'analyze', weight: 3, status: 202, reachesBrowser: true },
} as const;

export type CallKind = keyof typeof KINDS;
export const CALL_KINDS = Object.keys(KINDS) as CallKind[];

export interface PlannedCall {
  readonly kind: CallKind;
  /** Path and query of the GET request (/v1/capture, /v1/content or /v1/analyze). */
  readonly path: string;
  /** response_type json or base64: the answer describes a hosted file. */
  readonly hosted: boolean;
  /** Fetch the hosted file too. */
  readonly fetchFile: boolean;
  /** is_async=true: the answer is a job to poll to its end. */
  readonly async: boolean;
}

export interface CallOutcome {
  readonly kind: CallKind;
  /** HTTP status; 0 when the request itself failed (connection, timeout). */
  readonly status: number;
  /** The status is the one the kind must answer with (and a fetched file answered 200). */
  readonly expected: boolean;
  readonly cacheHit: boolean;
  /** The call took a render slot of the browser: counts toward the pool's recycle. */
  readonly rendered: boolean;
  readonly latencyMs: number;
  /**
   * Bytes the call made the service store as a blob (a cache entry on a miss, a hosted file for
   * JSON and base64): what can fill the service's in-memory blob cache (BLOB_MEMORY_CACHE_MB).
   */
  readonly storedBytes: number;
  /** The start of the body or the error, for calls that were not as expected. */
  readonly detail: string | null;
}

const DEVICES = ['iphone_14_pro', 'pixel_7_pro', 'ipad', 'galaxy_s8', 'iphone_x'] as const;

const SELECTORS: Record<PageName, readonly string[]> = {
  small: ['header', '.hero', 'button'],
  article: ['h1', 'figure', 'aside'],
  app: ['#cards', 'canvas', '.card:nth-child(3)'],
};

const REMOVED: Record<PageName, readonly string[]> = {
  small: ['header', 'button,.hero'],
  article: ['aside', 'figure,blockquote'],
  app: ['#cards', 'canvas,#top'],
};

const BLOCKED_TYPES = ['image,font', 'script', 'stylesheet,image'] as const;

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

const TOTAL_WEIGHT = CALL_KINDS.reduce((sum, kind) => sum + KINDS[kind].weight, 0);

function kindOf(random: () => number): CallKind {
  let roll = random() * TOTAL_WEIGHT;
  for (const kind of CALL_KINDS) {
    roll -= KINDS[kind].weight;
    if (roll < 0) return kind;
  }
  return 'png';
}

/** The soak only ever targets loopback addresses; a planned URL elsewhere is a bug in the plan. */
function loopback(url: string): string {
  const { hostname } = new URL(url);
  if (!/^127\.\d+\.\d+\.\d+$/.test(hostname)) throw new Error(`the soak targets loopback only, not ${url}`);
  return url;
}

const ANALYZE_FIELDS = JSON.stringify({ topic: 'what the page is about', audience: '' });

/**
 * `count` calls drawn from the kinds by weight with a seeded generator; call n targets the
 * site's target n, so pages and hosts rotate as in the bench. `unreachableUrl` is an allowed
 * loopback address where nothing listens.
 */
export function planCalls(
  count: number,
  site: FixtureSite,
  unreachableUrl: string,
  seed: number,
): PlannedCall[] {
  const random = seededRandom(seed);
  const calls: PlannedCall[] = [];
  for (let n = 0; n < count; n++) {
    const kind = kindOf(random);
    const target = site.target(n);
    let query: Record<string, string> = { url: target.url };
    let fetchFile = false;
    switch (kind) {
      case 'png':
      case 'content':
      case 'analyze':
        break;
      case 'jpeg':
        query = { ...query, format: 'jpeg', image_quality: pick(random, ['60', '80', '92']) };
        break;
      case 'webp':
        query = { ...query, format: 'webp', image_quality: '75' };
        break;
      case 'pdf':
        query = { ...query, format: 'pdf' };
        break;
      case 'full_page':
        query = { ...query, full_page: '1', format: pick(random, ['png', 'jpeg']) };
        break;
      case 'device':
        query = { ...query, device: pick(random, DEVICES) };
        break;
      case 'selector':
        query = { ...query, selector: pick(random, SELECTORS[target.page]) };
        break;
      case 'block_resources':
        query = { ...query, block_resources: pick(random, BLOCKED_TYPES) };
        break;
      case 'remove_selectors':
        query = { ...query, remove_selectors: pick(random, REMOVED[target.page]) };
        break;
      case 'cache_repeat': {
        const fixed = Math.floor(random() * 6);
        query = { url: site.target(fixed).url, cache: '1', format: fixed % 2 === 0 ? 'png' : 'jpeg' };
        break;
      }
      case 'cache_unique':
        query = { url: `${target.url}?soak=${n}`, cache: '1' };
        break;
      case 'json':
        query = { ...query, response_type: 'json', format: pick(random, ['png', 'webp']) };
        fetchFile = random() < 0.5;
        break;
      case 'base64':
        query = { ...query, response_type: 'base64', format: 'jpeg' };
        break;
      case 'invalid_selector':
        query = { ...query, selector: 'main[[' };
        break;
      case 'boxless_selector':
        query = { ...query, selector: 'title' };
        break;
      case 'unreachable':
      case 'content_unreachable':
        query = { url: unreachableUrl };
        break;
      case 'blocked':
        query = { url: 'http://127.0.0.1:1/' };
        break;
      case 'invalid_param':
        query = { ...query, format: 'bmp' };
        break;
      case 'content_markdown':
        query = { ...query, include_markdown: 'true', include_html: pick(random, ['true', 'false']) };
        break;
      case 'content_defuddle':
        query = { ...query, include_markdown: 'true', use_defuddle: 'true' };
        break;
      case 'content_sitemap':
        query = { ...query, include_sitemap: 'true' };
        break;
      case 'content_cache':
      case 'analyze_cache':
        query = { url: site.target(Math.floor(random() * 6)).url, cache: '1' };
        break;
      case 'analyze_custom':
        query = { ...query, custom_response: ANALYZE_FIELDS };
        break;
      case 'async_capture':
        query = { ...query, response_type: 'json', is_async: 'true' };
        fetchFile = random() < 0.5;
        break;
      case 'async_content':
        query = { ...query, include_markdown: 'true', is_async: 'true' };
        break;
      case 'async_analyze':
        query = { ...query, is_async: 'true' };
        break;
    }
    loopback(query.url ?? '');
    calls.push({
      kind,
      path: `/v1/${KINDS[kind].engine}?${new URLSearchParams(query)}`,
      hosted: query.response_type !== undefined,
      fetchFile,
      async: query.is_async === 'true',
    });
  }
  return calls;
}

interface HostedJson {
  readonly screenshot_url: string;
  readonly size: number;
}

interface JobRecord {
  readonly status: 'queued' | 'running' | 'completed' | 'failed';
  readonly result: unknown;
  readonly error: unknown;
}

/** How often a job is polled, and how long the soak waits for one before counting it as lost. */
const JOB_POLL_MS = 200;
const JOB_WAIT_LIMIT_MS = 300_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GETs the hosted file a JSON capture answered with; its status. */
async function fetchHostedFile(http: Pool, origin: string, hosted: HostedJson): Promise<number> {
  const url = new URL(hosted.screenshot_url);
  if (url.origin !== origin) throw new Error(`hosted file outside the service: ${hosted.screenshot_url}`);
  const response = await http.request({ method: 'GET', path: `${url.pathname}${url.search}` });
  await response.body.arrayBuffer();
  return response.statusCode;
}

/** Polls a job until it ends; its last record (still running when the wait limit passed). */
async function awaitJob(http: Pool, key: string, jobId: string): Promise<JobRecord> {
  const until = performance.now() + JOB_WAIT_LIMIT_MS;
  for (;;) {
    const response = await http.request({
      method: 'GET',
      path: `/jobs/${encodeURIComponent(jobId)}`,
      headers: { 'x-api-key': key },
    });
    const body = await response.body.text();
    if (response.statusCode !== 200)
      throw new Error(`GET /jobs/${jobId} answered ${response.statusCode}: ${body}`);
    const job = JSON.parse(body) as JobRecord;
    if (job.status === 'completed' || job.status === 'failed' || performance.now() > until) return job;
    await sleep(JOB_POLL_MS);
  }
}

/** Makes one call (an async one to its job's end) and reads the whole answer; never throws. */
export async function performCall(
  http: Pool,
  origin: string,
  key: string,
  call: PlannedCall,
): Promise<CallOutcome> {
  const started = performance.now();
  const { status: wanted, reachesBrowser } = KINDS[call.kind];
  try {
    const response = await http.request({ method: 'GET', path: call.path, headers: { 'x-api-key': key } });
    const body = Buffer.from(await response.body.arrayBuffer());
    const cacheHit = response.headers['x-webcap-cache'] === 'hit';
    let expected = response.statusCode === wanted;
    let detail = expected ? null : body.toString('utf8', 0, 300);
    let answer: unknown = null;
    if (expected && call.async) {
      const job = await awaitJob(http, key, (JSON.parse(body.toString()) as { job_id: string }).job_id);
      expected = job.status === 'completed';
      if (!expected) detail = `the job ended ${job.status}: ${JSON.stringify(job.error)}`;
      answer = job.result;
    } else if (response.statusCode === 200 && call.hosted) {
      answer = JSON.parse(body.toString());
    }
    const hosted = expected && call.hosted ? (answer as HostedJson) : null;
    const missed = response.statusCode === 200 && response.headers['x-webcap-cache'] === 'miss';
    const stored = hosted?.size ?? (missed ? body.length : 0);
    if (expected && hosted !== null && call.fetchFile) {
      const fileStatus = await fetchHostedFile(http, origin, hosted);
      expected = fileStatus === 200;
      if (!expected) detail = `the hosted file answered ${fileStatus}`;
    }
    return {
      kind: call.kind,
      status: response.statusCode,
      expected,
      cacheHit,
      rendered: reachesBrowser && !cacheHit,
      latencyMs: performance.now() - started,
      storedBytes: stored,
      detail,
    };
  } catch (error) {
    return {
      kind: call.kind,
      status: 0,
      expected: false,
      cacheHit: false,
      rendered: reachesBrowser,
      latencyMs: performance.now() - started,
      storedBytes: 0,
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}
