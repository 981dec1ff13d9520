import createClient, { type Client } from 'openapi-fetch';
import { errorFromResponse, WebcapError } from './errors.js';
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
  CrawlData,
  CrawlJson,
  CrawlParams,
  CrawlResult,
  CrawlSource,
  JobAccepted,
  JobKind,
  JobParams,
  JobRecord,
  LegacyAnalyzeParams,
  LegacyCaptureParams,
  LegacyContentParams,
  StatsParams,
  StatsSnapshot,
  Usage,
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
      case 'crawl':
        return this.#api.GET('/v1/website/crawler', {
          params: { query: { ...(params as CrawlParams), ...asyncFields } },
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

  /** `GET /v1/website/crawler`: JSON about the raw response, or its HTML with `return_page_source`. */
  crawl(params: CrawlParams & { return_page_source: true }, options?: CallOptions): Promise<CrawlSource>;
  crawl(params: CrawlParams & { return_page_source?: false }, options?: CallOptions): Promise<CrawlJson>;
  crawl(params: CrawlParams, options?: CallOptions): Promise<CrawlResult>;
  async crawl(params: CrawlParams, options: CallOptions = {}): Promise<CrawlResult> {
    const answer = await this.#api.GET('/v1/website/crawler', {
      params: { query: params },
      parseAs: 'text',
      signal: this.signalFor(options),
    });
    const text = ok(answer);
    if (isJson(answer.response)) {
      return { kind: 'json', data: (JSON.parse(text) as { data: CrawlData }).data };
    }
    const status = answer.response.headers.get('x-webcap-target-status');
    return { kind: 'html', html: text, targetStatus: status === null ? null : Number(status) };
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
