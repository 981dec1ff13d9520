import createClient, { type Client } from 'openapi-fetch';
import { errorFromResponse, WebcapError } from './errors.js';
import type { FromSchema, JsonSchema } from './json-schema.js';
import type { paths } from './openapi.js';
import { type RetryPolicy, retryingFetch, sleep } from './retry.js';
import type {
  Analysis,
  AnalyzeParams,
  CacheState,
  CaptureJson,
  CaptureJsonResult,
  CaptureParams,
  CaptureResult,
  ContentData,
  ContentParams,
  CrawlAccepted,
  CrawlPage,
  CrawlParams,
  CrawlRecord,
  ExtractData,
  ExtractParams,
  JobAccepted,
  JobKind,
  JobParams,
  JobRecord,
  LegacyAnalyzeParams,
  LegacyCaptureParams,
  LegacyContentParams,
  MapBody,
  MapParams,
  StatsParams,
  StatsSnapshot,
  Usage,
  WebsiteCrawlerData,
  WebsiteCrawlerJson,
  WebsiteCrawlerParams,
  WebsiteCrawlerResult,
  WebsiteCrawlerSource,
} from './types.js';

export interface WebcapOptions {
  /** The service's address; a self-hosted server's own, with a key it issued. */
  readonly baseUrl?: string;
  /** The account's API key (sent as `x-api-key`, or `x-access-key` on the unversioned endpoints). */
  readonly apiKey?: string;
  /** Tries after the first on 500, 503 and network errors (default 2); 0 turns retries off. */
  readonly retries?: number;
  /** The first backoff's upper bound in ms (default 500); each next one doubles, with full jitter. */
  readonly retryBaseDelayMs?: number;
  /** The longest wait between tries in ms (default 30 000): a longer Retry-After is not waited. */
  readonly retryMaxDelayMs?: number;
  /** The fetch to use (default: the runtime's global fetch). */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Aborts every call of this client, and their retry waits. */
  readonly signal?: AbortSignal;
}

/** Per call: a signal that aborts the call, its retries and its waits. */
export interface CallOptions {
  readonly signal?: AbortSignal;
}

/** A content answer: the envelope's `data` and whether the cache served it. */
export interface ContentResult {
  readonly data: ContentData;
  readonly cache: CacheState;
}

/** An analysis answer: its data (custom fields typed as asked), the cache state, the analyzer used. */
export interface AnalyzeResult<Field extends string = never> {
  readonly data: Analysis<Field>;
  readonly cache: CacheState;
  /** The analyzer that answered (`x-webcap-analyzer`). */
  readonly analyzer: string | null;
}

/**
 * An extract answer: the data asked for (typed from the schema when one was given in the call),
 * the warnings beside it, and the cache state.
 */
export interface ExtractResult<Data = ExtractData['data']> extends Omit<ExtractData, 'data'> {
  readonly data: Data;
  readonly cache: CacheState;
}

/** A map answer: its body (Firecrawl's `{success, links}` with `total`, `truncated`, `warnings`) and the cache state. */
export interface MapResult {
  readonly data: MapBody;
  readonly cache: CacheState;
}

export interface SubmitOptions extends CallOptions {
  /** Receives the signed job record when the job ends (verify it with `verifyWebhook`). */
  readonly webhookUrl?: string;
  /**
   * Makes the submission safe to send again: within 24 h the same key and parameters answer the
   * first job. One is generated per submission when absent, so the SDK's own retries never queue twice.
   */
  readonly idempotencyKey?: string;
}

export interface WaitOptions extends CallOptions {
  /** Give up after this long (default 300 000 ms): a WebcapError of kind `timeout`. */
  readonly timeoutMs?: number;
  /** The first pause between polls (default 500 ms); it grows by half each poll, to at most 5 s. */
  readonly pollMs?: number;
}

const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const MAX_POLL_MS = 5000;

type Api = Client<paths>;
interface Answer<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/** The answer's data, or the WebcapError of its error status. */
function ok<T>(answer: Answer<T>): T {
  if (answer.error !== undefined || !answer.response.ok)
    throw errorFromResponse(answer.response, answer.error);
  return answer.data as T;
}

function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

function cacheOf(response: Response): CacheState {
  const value = response.headers.get('x-webcap-cache');
  return value === 'hit' || value === 'miss' ? value : null;
}

function isJson(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').startsWith('application/json');
}

/**
 * Whether a call's parameters go in a JSON body rather than the query string: a page sent as
 * `html` or `markdown` would soon outgrow the server's URL length.
 */
function inBody(params: { readonly html?: string; readonly markdown?: string }): boolean {
  return params.html !== undefined || params.markdown !== undefined;
}

/** A capture answer, read as bytes: the file, or the JSON it is when the parameters asked for JSON. */
function captureResult(answer: Answer<ArrayBuffer>): CaptureResult {
  const bytes = new Uint8Array(ok(answer));
  const { response } = answer;
  const cache = cacheOf(response);
  if (isJson(response)) {
    return { kind: 'json', data: JSON.parse(new TextDecoder().decode(bytes)) as CaptureJson, cache };
  }
  const warning = response.headers.get('x-webcap-warning');
  return {
    kind: 'file',
    bytes,
    contentType: (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0] ?? '',
    cache,
    warnings: warning === null ? [] : warning.split('; '),
  };
}

/** The operations on asynchronous jobs. */
export class WebcapJobs {
  readonly #client: Webcap;
  readonly #api: Api;

  /** @internal */
  constructor(client: Webcap, api: Api) {
    this.#client = client;
    this.#api = api;
  }

  /** `GET /jobs/{job_id}`: the job's record (free). */
  async get(jobId: string, options: CallOptions = {}): Promise<JobRecord> {
    return ok(
      await this.#api.GET('/jobs/{job_id}', {
        params: { path: { job_id: jobId } },
        signal: this.#client.signalFor(options),
      }),
    );
  }

  /** `DELETE /jobs/{job_id}`: cancels a queued job (it ends `failed`, 409 Cancelled); 409 once it runs. */
  async cancel(jobId: string, options: CallOptions = {}): Promise<JobRecord> {
    return ok(
      await this.#api.DELETE('/jobs/{job_id}', {
        params: { path: { job_id: jobId } },
        signal: this.#client.signalFor(options),
      }),
    );
  }

  /**
   * Queues a call (`is_async=true`) and answers at once with its job id. It carries an
   * Idempotency-Key (the caller's, or one generated for this submission), so a retried submission
   * is queued once; one unit is reserved now and billed only if the job completes.
   */
  async submit<K extends JobKind>(
    kind: K,
    params: JobParams[K],
    options: SubmitOptions = {},
  ): Promise<JobAccepted> {
    const signal = this.#client.signalFor(options);
    const headers = { 'idempotency-key': options.idempotencyKey ?? crypto.randomUUID() };
    const asyncFields = {
      is_async: true as const,
      ...(options.webhookUrl === undefined ? {} : { webhook_url: options.webhookUrl }),
    };
    const answer = await this.#send(kind, params, asyncFields, headers, signal);
    if (answer.response.status !== 202) {
      ok(answer);
      throw new WebcapError(`expected 202 for an async submission, got ${answer.response.status}`, {
        kind: 'http',
        status: answer.response.status,
        body: answer.data,
      });
    }
    const accepted = answer.data as unknown as Omit<JobAccepted, 'replayed'>;
    return { ...accepted, replayed: answer.response.headers.get('idempotent-replayed') === 'true' };
  }

  /** One submission, on the path of its kind (analyze as a JSON body, the others in the query). */
  #send(
    kind: JobKind,
    params: JobParams[JobKind],
    asyncFields: { is_async: true; webhook_url?: string },
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<Answer<unknown>> {
    switch (kind) {
      case 'capture': {
        const query = { ...(params as CaptureParams), ...asyncFields };
        return inBody(query)
          ? this.#api.POST('/v1/capture', { body: query, headers, signal })
          : this.#api.GET('/v1/capture', { params: { query }, headers, signal });
      }
      case 'content': {
        const query = { ...(params as ContentParams), ...asyncFields };
        return inBody(query)
          ? this.#api.POST('/v1/content', { body: query, headers, signal })
          : this.#api.GET('/v1/content', { params: { query }, headers, signal });
      }
      case 'analyze':
        return this.#api.POST('/v1/analyze', {
          body: { ...(params as AnalyzeParams<string>), ...asyncFields },
          headers,
          signal,
        });
      case 'extract':
        return this.#api.POST('/v1/extract', {
          body: { ...(params as ExtractParams), ...asyncFields },
          headers,
          signal,
        });
      case 'website-crawler':
        return this.#api.GET('/v1/website/crawler', {
          params: { query: { ...(params as WebsiteCrawlerParams), ...asyncFields } },
          headers,
          signal,
        });
      case 'map':
        return this.#api.POST('/v1/map', {
          body: { ...(params as MapParams), ...asyncFields },
          headers,
          signal,
        });
      default:
        // Reached only from untyped callers.
        return Promise.reject(new RangeError(`unknown job kind ${JSON.stringify(kind)}`));
    }
  }

  /**
   * Polls the job until it is `completed` or `failed` and answers that record (a failed job is an
   * answer, not an exception: its `error` says why). Pauses grow from `pollMs` to 5 s; past
   * `timeoutMs` it throws a WebcapError of kind `timeout` (the job itself goes on).
   */
  async wait(jobId: string, options: WaitOptions = {}): Promise<JobRecord> {
    const signal = this.#client.signalFor(options);
    const timeoutMs = options.timeoutMs ?? 300_000;
    const deadline = Date.now() + timeoutMs;
    let pauseMs = options.pollMs ?? 500;
    for (;;) {
      const job = await this.get(jobId, { signal });
      if (job.status === 'completed' || job.status === 'failed') return job;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new WebcapError(`job ${jobId} is still ${job.status} after ${timeoutMs} ms`, {
          kind: 'timeout',
        });
      }
      await sleep(Math.min(pauseMs, left), signal);
      pauseMs = Math.min(MAX_POLL_MS, pauseMs * 1.5);
    }
  }
}

/** Reading a crawl's pages: where to start and how many per answer. */
export interface CrawlReadOptions extends CallOptions {
  /** From a record's `cursor`; default: the first finished page. */
  readonly cursor?: string;
  /** Pages per answer, 1 to 100 (the server's default is 20); the server also bounds an answer's bytes. */
  readonly limit?: number;
}

export interface CrawlWaitOptions extends CallOptions {
  /** Give up after this long (default 3 600 000 ms): a WebcapError of kind `timeout`; the crawl goes on. */
  readonly timeoutMs?: number;
  /** The pause between polls (default 1000 ms). */
  readonly intervalMs?: number;
  /** Called with each record polled (its counts say how far the crawl is), e.g. for a progress bar. */
  readonly onPoll?: (record: CrawlRecord) => void;
}

/** The most pages one answer of `GET /v1/crawl/{crawl_id}` lists. */
const MAX_CRAWL_PAGES_PER_ANSWER = 100;
const LIVE_CRAWL = new Set(['queued', 'running']);

/**
 * Whole-site crawls (`/v1/crawl`): each page fetched is billed one unit; reading and cancelling
 * are free. The contract's single-page crawler is `Webcap.websiteCrawler`.
 */
export class WebcapCrawls {
  readonly #client: Webcap;
  readonly #api: Api;

  /** @internal */
  constructor(client: Webcap, api: Api) {
    this.#client = client;
    this.#api = api;
  }

  /**
   * `POST /v1/crawl`: starts a crawl and answers its id at once (202). One unit is held now, so a
   * spent balance is a 402 here. It carries an Idempotency-Key (the caller's, or one generated for
   * this start), so a retried start begins one crawl; `replayed` says an earlier one was answered.
   */
  async start(
    params: CrawlParams,
    options: CallOptions & Pick<SubmitOptions, 'idempotencyKey'> = {},
  ): Promise<CrawlAccepted & { readonly replayed: boolean }> {
    const answer = await this.#api.POST('/v1/crawl', {
      body: params,
      headers: { 'idempotency-key': options.idempotencyKey ?? crypto.randomUUID() },
      signal: this.#client.signalFor(options),
    });
    const accepted = ok(answer as Answer<unknown>) as CrawlAccepted;
    return { ...accepted, replayed: answer.response.headers.get('idempotent-replayed') === 'true' };
  }

  /** `GET /v1/crawl/{crawl_id}` (free): the record with the finished pages after `cursor`. */
  async get(crawlId: string, options: CrawlReadOptions = {}): Promise<CrawlRecord> {
    const query = {
      ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    };
    return ok(
      await this.#api.GET('/v1/crawl/{crawl_id}', {
        params: { path: { crawl_id: crawlId }, query },
        signal: this.#client.signalFor(options),
      }),
    );
  }

  /**
   * Every finished page after `cursor`, in the order they finished, following the record's
   * cursor from answer to answer. It ends at the last page finished so far: on a live crawl,
   * `wait` first to read them all.
   */
  async *pages(crawlId: string, options: CrawlReadOptions = {}): AsyncGenerator<CrawlPage, void, undefined> {
    let cursor = options.cursor;
    const limit = options.limit ?? MAX_CRAWL_PAGES_PER_ANSWER;
    for (;;) {
      const record = await this.get(crawlId, { cursor, limit, signal: options.signal });
      yield* record.pages;
      if (record.next === null || record.cursor === null || record.pages.length === 0) return;
      cursor = record.cursor;
    }
  }

  /** `DELETE /v1/crawl/{crawl_id}` (free): no page starts after it; pages running finish and are billed. 409 once ended. */
  async cancel(crawlId: string, options: CallOptions = {}): Promise<CrawlRecord> {
    return ok(
      await this.#api.DELETE('/v1/crawl/{crawl_id}', {
        params: { path: { crawl_id: crawlId } },
        signal: this.#client.signalFor(options),
      }),
    );
  }

  /**
   * Polls the crawl until it has ended (not `queued` or `running`) and no page of it is still
   * running, and answers that record (with its first page at most: `pages` reads them all). An
   * ended crawl is an answer whatever its status; past `timeoutMs` it throws a WebcapError of
   * kind `timeout` and the crawl goes on.
   */
  async wait(crawlId: string, options: CrawlWaitOptions = {}): Promise<CrawlRecord> {
    const signal = this.#client.signalFor(options);
    const timeoutMs = options.timeoutMs ?? 3_600_000;
    const intervalMs = options.intervalMs ?? 1000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await this.get(crawlId, { limit: 1, signal });
      options.onPoll?.(record);
      if (!LIVE_CRAWL.has(record.status) && record.counts.running === 0) return record;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new WebcapError(`crawl ${crawlId} is still ${record.status} after ${timeoutMs} ms`, {
          kind: 'timeout',
        });
      }
      await sleep(Math.min(intervalMs, left), signal);
    }
  }
}

/** The unversioned endpoints (`/capture`, `/content`, `/analyze`), keyed with `x-access-key`. */
export class WebcapLegacy {
  readonly #client: Webcap;
  readonly #api: Api;
  readonly #headers: Record<string, string>;

  /** @internal */
  constructor(client: Webcap, api: Api, apiKey: string | undefined) {
    this.#client = client;
    this.#api = api;
    this.#headers = apiKey === undefined ? {} : { 'x-access-key': apiKey };
  }

  /** `GET /capture`: the file, or its JSON description. */
  async capture(params: LegacyCaptureParams, options: CallOptions = {}): Promise<CaptureResult> {
    return captureResult(
      await this.#api.GET('/capture', {
        params: { query: params as LegacyCaptureParams & { access_key: string } },
        headers: this.#headers,
        parseAs: 'arrayBuffer',
        signal: this.#client.signalFor(options),
      }),
    );
  }

  /** `GET /content`: the envelope's data and the cache state. */
  async content(params: LegacyContentParams, options: CallOptions = {}): Promise<ContentResult> {
    const answer = await this.#api.GET('/content', {
      params: { query: params as LegacyContentParams & { access_key: string } },
      headers: this.#headers,
      signal: this.#client.signalFor(options),
    });
    return { data: (ok(answer) as { data: ContentData }).data, cache: cacheOf(answer.response) };
  }

  /** `POST /analyze`: the analysis with the custom fields asked for. */
  async analyze<Field extends string = never>(
    params: LegacyAnalyzeParams<Field>,
    options: CallOptions = {},
  ): Promise<AnalyzeResult<Field>> {
    const answer = await this.#api.POST('/analyze', {
      body: params as LegacyAnalyzeParams<Field> & { access_key: string },
      headers: this.#headers,
      signal: this.#client.signalFor(options),
    });
    return {
      data: (ok(answer) as unknown as { data: Analysis<Field> }).data,
      cache: cacheOf(answer.response),
      analyzer: answer.response.headers.get('x-webcap-analyzer'),
    };
  }
}

/**
 * A query string as the API reads it: a list of plain values repeated (`wait_until=a&wait_until=b`),
 * an object or a list of objects (`headers`, `cookies`) as its JSON text, anything else as text.
 */
function serializeQuery(query: Readonly<Record<string, unknown>>): string {
  const pairs: string[] = [];
  const add = (name: string, value: string) =>
    pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    const plainList =
      Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null);
    if (plainList) for (const item of value) add(name, String(item));
    else if (typeof value === 'object') add(name, JSON.stringify(value));
    else add(name, String(value));
  }
  return pairs.join('&');
}

/**
 * A client of one webcap server. Every method throws a WebcapError for an error answer (or the
 * caller's abort reason); 500, 503 and network failures are tried again as `retries` says.
 */
export class Webcap {
  readonly jobs: WebcapJobs;
  /** Whole-site crawls (`/v1/crawl`). */
  readonly crawl: WebcapCrawls;
  readonly legacy: WebcapLegacy;
  readonly #api: Api;
  readonly #signal: AbortSignal | undefined;

  constructor(options: WebcapOptions = {}) {
    const policy: RetryPolicy = {
      retries: options.retries ?? 2,
      baseDelayMs: options.retryBaseDelayMs ?? 500,
      maxDelayMs: options.retryMaxDelayMs ?? 30_000,
    };
    if (!Number.isInteger(policy.retries) || policy.retries < 0) {
      throw new RangeError('retries must be a whole number, 0 or more');
    }
    for (const [name, value] of [
      ['retryBaseDelayMs', policy.baseDelayMs],
      ['retryMaxDelayMs', policy.maxDelayMs],
    ] as const) {
      if (!Number.isFinite(value) || value < 0)
        throw new RangeError(`${name} must be a number of ms, 0 or more`);
    }
    const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    if (!isHttpUrl(baseUrl))
      throw new RangeError(`baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
    const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    this.#api = createClient<paths>({
      baseUrl,
      querySerializer: serializeQuery,
      fetch: retryingFetch(baseFetch, policy),
      headers: options.apiKey === undefined ? {} : { 'x-api-key': options.apiKey },
    });
    this.#signal = options.signal;
    this.jobs = new WebcapJobs(this, this.#api);
    this.crawl = new WebcapCrawls(this, this.#api);
    this.legacy = new WebcapLegacy(this, this.#api, options.apiKey);
  }

  /** @internal The client's signal and the call's, either of which aborts the call. */
  signalFor(options: CallOptions): AbortSignal | undefined {
    const signals = [this.#signal, options.signal].filter((signal) => signal !== undefined);
    return signals.length <= 1 ? signals[0] : AbortSignal.any(signals);
  }

  /**
   * `GET /v1/capture` (`POST` with `html` or `markdown`): the image or PDF bytes, or the JSON
   * answer (`response_type=json|base64`, `s3_url`).
   */
  capture(
    params: CaptureParams & { response_type: 'json' | 'base64' },
    options?: CallOptions,
  ): Promise<CaptureJsonResult>;
  capture(params: CaptureParams, options?: CallOptions): Promise<CaptureResult>;
  async capture(params: CaptureParams, options: CallOptions = {}): Promise<CaptureResult> {
    const signal = this.signalFor(options);
    return captureResult(
      inBody(params)
        ? await this.#api.POST('/v1/capture', { body: params, parseAs: 'arrayBuffer', signal })
        : await this.#api.GET('/v1/capture', { params: { query: params }, parseAs: 'arrayBuffer', signal }),
    );
  }

  /**
   * `GET /v1/content` (`POST` with `html` or `markdown`): the page's metadata, links and (as
   * asked) HTML, Markdown, sitemap.
   */
  async content(params: ContentParams, options: CallOptions = {}): Promise<ContentResult> {
    const signal = this.signalFor(options);
    const answer = inBody(params)
      ? await this.#api.POST('/v1/content', { body: params, signal })
      : await this.#api.GET('/v1/content', { params: { query: params }, signal });
    return { data: (ok(answer) as { data: ContentData }).data, cache: cacheOf(answer.response) };
  }

  /** `POST /v1/analyze`: the analysis, with each `custom_response` field typed as a string. */
  async analyze<Field extends string = never>(
    params: AnalyzeParams<Field>,
    options: CallOptions = {},
  ): Promise<AnalyzeResult<Field>> {
    const answer = await this.#api.POST('/v1/analyze', { body: params, signal: this.signalFor(options) });
    return {
      data: (ok(answer) as unknown as { data: Analysis<Field> }).data,
      cache: cacheOf(answer.response),
      analyzer: answer.response.headers.get('x-webcap-analyzer'),
    };
  }

  /**
   * `POST /v1/extract`: the page as the data a JSON Schema describes (`schema`, its type read from
   * the schema written in the call; a required field the page does not state is null without a
   * model), or its fields by selector rules (`extract_rules`, null or [] where a rule matched nothing).
   */
  async extract<const S extends JsonSchema>(
    params: ExtractParams<S> & { readonly schema: S },
    options?: CallOptions,
  ): Promise<ExtractResult<FromSchema<S>>>;
  async extract(params: ExtractParams, options?: CallOptions): Promise<ExtractResult>;
  async extract(params: ExtractParams, options: CallOptions = {}): Promise<ExtractResult> {
    const answer = await this.#api.POST('/v1/extract', { body: params, signal: this.signalFor(options) });
    const { data, warnings } = ok(answer) as ExtractData;
    return { data, ...(warnings === undefined ? {} : { warnings }), cache: cacheOf(answer.response) };
  }

  /**
   * `GET /v1/website/crawler`: one page's raw response (no browser), as JSON about it, or its HTML
   * with `return_page_source`. The whole-site crawl is `crawl`.
   */
  websiteCrawler(
    params: WebsiteCrawlerParams & { return_page_source: true },
    options?: CallOptions,
  ): Promise<WebsiteCrawlerSource>;
  websiteCrawler(
    params: WebsiteCrawlerParams & { return_page_source?: false },
    options?: CallOptions,
  ): Promise<WebsiteCrawlerJson>;
  websiteCrawler(params: WebsiteCrawlerParams, options?: CallOptions): Promise<WebsiteCrawlerResult>;
  async websiteCrawler(
    params: WebsiteCrawlerParams,
    options: CallOptions = {},
  ): Promise<WebsiteCrawlerResult> {
    const answer = await this.#api.GET('/v1/website/crawler', {
      params: { query: params },
      parseAs: 'text',
      signal: this.signalFor(options),
    });
    const text = ok(answer);
    if (isJson(answer.response)) {
      return { kind: 'json', data: (JSON.parse(text) as { data: WebsiteCrawlerData }).data };
    }
    const status = answer.response.headers.get('x-webcap-target-status');
    return { kind: 'html', html: text, targetStatus: status === null ? null : Number(status) };
  }

  /** `POST /v1/map`: a site's URLs from its sitemaps and its start page's links, without rendering. */
  async map(params: MapParams, options: CallOptions = {}): Promise<MapResult> {
    const answer = await this.#api.POST('/v1/map', { body: params, signal: this.signalFor(options) });
    // Without is_async the answer is the map (202 is a job's, which `jobs.submit` asks for).
    return { data: ok(answer) as MapBody, cache: cacheOf(answer.response) };
  }

  /** `GET /v1/usage`: the account's balances, limits and key (free). */
  async usage(options: CallOptions = {}): Promise<Usage> {
    return ok(await this.#api.GET('/v1/usage', { signal: this.signalFor(options) }));
  }

  /** `GET /v1/stats`: the platform's one-hour health for an engine or a path (free). */
  async stats(params: StatsParams, options: CallOptions = {}): Promise<StatsSnapshot> {
    return ok(
      await this.#api.GET('/v1/stats', { params: { query: params }, signal: this.signalFor(options) }),
    );
  }
}
