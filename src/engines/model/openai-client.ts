import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Agent, request } from 'undici';
import { WebcapError } from '../../errors.js';

/**
 * The one client of the operator's model: any OpenAI-compatible chat-completions endpoint
 * (ANALYZE_OPENAI_*, docs/analyze.md), used by the analyzer and the schema extractor alike. It
 * holds the transport (retries with backoff, a bounded body, one deadline per answer) and the
 * loop every structured use needs: ask, read the JSON, check it, and once tell the model why its
 * answer was refused. The endpoint is trusted configuration, reached directly (not through the
 * network guard, which polices callers' URLs; it may well be on localhost), and no caller can
 * choose it.
 */

/** How the answer's format is asked for: structured output, JSON mode, or only in words. */
export type OutputMode = 'json_schema' | 'json_object' | 'prompt';

export interface ChatMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

/** The operator's model endpoint and how to talk to it (ANALYZE_OPENAI_*, docs/analyze.md). */
export interface OpenAiConfig {
  /** Base URL of an OpenAI-compatible API, up to and including /v1 (its /chat/completions is called). */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer`; null sends none (a local server). */
  readonly apiKey: string | null;
  readonly model: string;
  readonly output: OutputMode;
  /** Deadline of a whole answer: every attempt and the repair round together. */
  readonly timeoutMs: number;
  /** Further attempts of a request after a 5xx or a network error. */
  readonly retries: number;
  /** Tokens the page may take in the prompt. */
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  /** Null leaves the server's default (some reasoning models accept no other). */
  readonly temperature: number | null;
  /** The name the server knows the output limit by: newer OpenAI models take only max_completion_tokens. */
  readonly maxTokensParam: 'max_tokens' | 'max_completion_tokens';
}

/** An answer checked: the value to return, or why it was refused (told to the model in the repair round). */
export type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly why: string };

/** One structured question to the model. */
export interface StructuredAsk<T> {
  /** Names the schema in structured output (`response_format.json_schema.name`). */
  readonly schemaName: string;
  /** The answer's JSON Schema, sent as structured output in json_schema mode; it must suit strict mode. */
  readonly schema: object;
  /** The messages of a round; `rejection` says why the previous answer was refused, null in the first. */
  messages(rejection: string | null): ChatMessage[];
  /** Checks the parsed JSON object of an answer. */
  check(answer: unknown): Checked<T> | Promise<Checked<T>>;
}

export interface ModelClient {
  /**
   * The first answer, then one repair round told why it was refused: the accepted value, or why
   * the second answer was refused (the caller words that failure). Within `timeoutMs` in all, else
   * a `timeout` error; a model that cannot be reached, refuses the request (4xx) or answers
   * something that is not a chat completion is an `internal` error naming the `purpose`.
   */
  structured<T>(ask: StructuredAsk<T>): Promise<Checked<T>>;
  /** Lets go of the connections it keeps. */
  close(): Promise<void>;
}

// A chat completion of a few thousand tokens is a few KB; this only stops a runaway server.
const MAX_RESPONSE_BYTES = 4_194_304;
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 4_000;

interface Completion {
  readonly content: string | null;
  readonly finishReason: string | null;
}

/** The JSON object in a model's text: from its first `{` to its last `}` (models wrap JSON in fences and words). */
function parseAnswer(completion: Completion): Checked<unknown> {
  const { content } = completion;
  if (content === null) return { ok: false, why: 'the answer had no text' };
  if (completion.finishReason === 'length')
    return { ok: false, why: 'the answer was cut at the output token limit' };
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start === -1 || end < start) return { ok: false, why: 'the answer held no JSON object' };
  try {
    return { ok: true, value: JSON.parse(content.slice(start, end + 1)) };
  } catch {
    return { ok: false, why: 'the answer was not valid JSON' };
  }
}

async function readBounded(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw new Error(`the model's response is larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** What a chat-completions response says, or null when it is not one. */
function completionOf(json: unknown): Completion | null {
  const choice = (json as { choices?: unknown })?.choices;
  const first = Array.isArray(choice) ? (choice[0] as Record<string, unknown> | undefined) : undefined;
  const message = first?.message as Record<string, unknown> | undefined;
  if (message === undefined || message === null) return null;
  return {
    content: typeof message.content === 'string' ? message.content : null,
    finishReason: typeof first?.finish_reason === 'string' ? first.finish_reason : null,
  };
}

/**
 * A client of the configured endpoint. `purpose` ('analysis', 'extraction') names the model in
 * logs and in the errors it throws ("the analysis model failed").
 */
export function openAiClient(config: OpenAiConfig, purpose: string, logger?: Logger): ModelClient {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (config.apiKey !== null) headers.authorization = `Bearer ${config.apiKey}`;

  const failed = (why: string, cause?: unknown) =>
    new WebcapError('internal', `the ${purpose} model failed`, { cause: cause ?? new Error(why) });

  /** One chat completion, retried after 5xx and network errors (never after 4xx) until the deadline. */
  async function complete(
    messages: ChatMessage[],
    schema: { name: string; schema: object },
    deadline: number,
  ): Promise<Completion> {
    const body = JSON.stringify({
      model: config.model,
      messages,
      [config.maxTokensParam]: config.maxOutputTokens,
      ...(config.temperature === null ? {} : { temperature: config.temperature }),
      ...(config.output === 'json_schema'
        ? {
            response_format: {
              type: 'json_schema',
              json_schema: { name: schema.name, strict: true, schema: schema.schema },
            },
          }
        : config.output === 'json_object'
          ? { response_format: { type: 'json_object' } }
          : {}),
    });
    let lastError: unknown = null;
    for (let attempt = 0; attempt <= config.retries; attempt++) {
      if (attempt > 0) {
        const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
        const wait = backoff / 2 + Math.random() * (backoff / 2);
        if (Date.now() + wait >= deadline) break;
        await sleep(wait);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      try {
        const response = await request(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: agent,
          signal: AbortSignal.timeout(remaining),
        });
        const text = await readBounded(response.body);
        if (response.statusCode >= 500) {
          lastError = new Error(`HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
          logger?.warn({ status: response.statusCode, attempt }, `${purpose} model answered a server error`);
          continue;
        }
        if (response.statusCode >= 400) {
          logger?.error(
            { status: response.statusCode, body: text.slice(0, 500) },
            `${purpose} model refused the request`,
          );
          throw failed(`HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
        }
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        const completion = completionOf(json);
        if (completion === null) throw failed(`not a chat completion: ${text.slice(0, 300)}`);
        return completion;
      } catch (error) {
        if (error instanceof WebcapError) throw error;
        lastError = error;
        logger?.warn({ err: error, attempt }, `${purpose} model could not be reached`);
      }
    }
    if (Date.now() >= deadline - 1) {
      throw new WebcapError('timeout', `the ${purpose} model took longer than ${config.timeoutMs} ms`, {
        cause: lastError,
      });
    }
    throw failed(`the ${purpose} model could not be reached`, lastError);
  }

  return {
    async structured<T>(ask: StructuredAsk<T>): Promise<Checked<T>> {
      const deadline = Date.now() + config.timeoutMs;
      const schema = { name: ask.schemaName, schema: ask.schema };
      let rejection: string | null = null;
      // The first answer, then one repair round told what was wrong with it.
      for (let round = 0; round < 2; round++) {
        const parsed = parseAnswer(await complete(ask.messages(rejection), schema, deadline));
        const checked = parsed.ok ? await ask.check(parsed.value) : parsed;
        if (checked.ok) return checked;
        rejection = checked.why;
        logger?.warn({ round, rejection }, `${purpose} model answered outside the schema`);
      }
      return { ok: false, why: rejection as string };
    },
    close: () => agent.close(),
  };
}
