import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  getLlama,
  type Llama,
  LlamaCompletion,
  type LlamaGrammar,
  LlamaLogLevel,
  type LlamaModel,
  type Token,
} from 'node-llama-cpp';
import { writeRandomGguf } from './gguf.js';

/** What the server does with one chat-completion request instead of serving it normally. */
export type LlmFault =
  /** Answer this HTTP status with an OpenAI-style {error:{message,type,code}} body (or `body`). */
  | { kind: 'status'; status: number; body?: unknown }
  /** Wait this long, then answer normally (a slow server). */
  | { kind: 'delay'; ms: number }
  /** Generate ignoring response_format: free text from the random model, so invalid output. */
  | { kind: 'ignore-format' }
  /** Answer a well-formed completion whose message content is exactly this. */
  | { kind: 'reply'; content: string }
  /** Destroy the socket without answering (a network error). */
  | { kind: 'drop' };

export interface LlmServerOptions {
  /** The model name the server accepts in `model`; another name gets 404 as real servers do. Default 'tiny-random'. */
  model?: string;
  /** API key it requires as `Authorization: Bearer <key>`; when set, a missing/wrong key is 401. Default: none required. */
  apiKey?: string;
  /**
   * Which response_format types it honours: 'json_schema' (json_schema + json_object), 'json_object'
   * (json_object only; json_schema gets 400 as OpenAI answers for models without it), 'none' (any
   * response_format gets 400). Default 'json_schema'.
   */
  supports?: 'json_schema' | 'json_object' | 'none';
}

export interface RecordedRequest {
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of what the client sent
  readonly body: any;
}

export interface LlmServer {
  /** Base URL including /v1; the server answers POST /v1/chat/completions and GET /v1/models. */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Faults applied to the next chat-completion requests, one per request, in order; once empty, requests are served normally. */
  readonly faults: LlmFault[];
  close(): Promise<void>;
}

/** The context the model declares and the server allocates: prompts are about one token per character. */
const CONTEXT_TOKENS = 8192;
const DEFAULT_MAX_TOKENS = 512;
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/*
 * Tokens that appeared in the last 64 are penalized (as llama.cpp's server can), except JSON's
 * punctuation: without it greedy decoding of random weights cycles ("okokok...") inside a string.
 */
const REPEAT_PENALTY = { lastTokens: 64, penalty: 1.5 };
const UNPENALIZED = ['"', ',', ':', '{', '}', '[', ']'];

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 running a tiny random-weight llama model
 * through node-llama-cpp on the CPU, one generation at a time. Its GGUF is written to a temp dir that
 * is removed as soon as the model is in memory; nothing is downloaded or built.
 */
export async function startLlmServer(options: LlmServerOptions = {}): Promise<LlmServer> {
  const modelName = options.model ?? 'tiny-random';
  const supports = options.supports ?? 'json_schema';
  const llama = await sharedLlama();
  const model = await loadRandomModel(llama).catch(async (error: unknown) => {
    await releaseLlama();
    throw error;
  });
  const context = await model.createContext({ contextSize: CONTEXT_TOKENS, threads: 1, sequences: 1 });
  const sequence = context.getSequence();
  const completion = new LlamaCompletion({ contextSequence: sequence });
  const unpenalized = new Set(
    UNPENALIZED.map((text) => model.tokenize(text, false, 'trimLeadingSpace').at(-1)),
  );
  const grammars = new Map<string, Promise<LlamaGrammar>>();
  const requests: RecordedRequest[] = [];
  const faults: LlmFault[] = [];
  const closing = new AbortController();
  let queue: Promise<unknown> = Promise.resolve();

  /** Runs generations one at a time, in arrival order. */
  function serially<T>(task: () => Promise<T>): Promise<T> {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  }

  function grammarFor(format: ResponseFormat): Promise<LlamaGrammar> | undefined {
    if (format.type === 'json_object') return llama.getGrammarFor('json');
    if (format.type !== 'json_schema') return undefined;
    const key = JSON.stringify(format.schema);
    let grammar = grammars.get(key);
    if (!grammar) {
      grammar = llama
        // biome-ignore lint/suspicious/noExplicitAny: node-llama-cpp types schemas statically; this one comes from the wire
        .createGrammarForJsonSchema(asGrammarSchema(format.schema) as any)
        .then((json) =>
          llama.createGrammar({
            grammar: withoutExponents(json.grammar),
            stopGenerationTriggers: json.stopGenerationTriggers,
            trimWhitespaceSuffix: json.trimWhitespaceSuffix,
          }),
        );
      grammars.set(key, grammar);
    }
    return grammar;
  }

  async function complete(request: ChatRequest, free: boolean, signal: AbortSignal): Promise<Completion> {
    const prompt = promptOf(request.messages);
    const promptTokens = model.tokenize(prompt).length + 1; // + BOS
    if (promptTokens >= CONTEXT_TOKENS) throw new ContextOverflow(promptTokens);
    const maxTokens = Math.min(request.maxTokens ?? DEFAULT_MAX_TOKENS, CONTEXT_TOKENS - promptTokens);
    const grammar = free
      ? undefined
      : await grammarFor(request.responseFormat)?.catch((error: unknown) => {
          throw new InvalidSchema(error instanceof Error ? error.message : String(error));
        });
    return serially(async () => {
      signal.throwIfAborted();
      // Each request starts from an empty context, so the same request gives the same answer.
      await sequence.clearHistory();
      let completionTokens = 0;
      const result = await completion.generateCompletionWithMeta(prompt, {
        grammar,
        maxTokens,
        temperature: request.temperature,
        seed: request.seed,
        repeatPenalty: {
          ...REPEAT_PENALTY,
          punishTokensFilter: (tokens: Token[]) => tokens.filter((token) => !unpenalized.has(token)),
        },
        signal,
        onToken: (tokens) => {
          completionTokens += tokens.length;
        },
      });
      return {
        content: result.response,
        finishReason: result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
        promptTokens,
        completionTokens,
      };
    });
  }

  async function chatCompletions(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const fault = faults.shift();
    if (fault?.kind === 'drop') return void req.socket.destroy();
    if (fault?.kind === 'status') {
      return send(
        res,
        fault.status,
        fault.body ?? errorBody(`simulated ${fault.status}`, 'server_error', null),
      );
    }
    // Stop working for a client that went away (a timeout, say) or a server that is closing.
    const abandoned = new AbortController();
    res.on('close', () => abandoned.abort());
    const signal = AbortSignal.any([abandoned.signal, closing.signal]);
    if (fault?.kind === 'delay') await sleep(fault.ms, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return;
    if (!authorized(req)) return send(res, 401, invalidApiKey());
    const parsed = parseChatRequest(raw);
    if (typeof parsed === 'string') return send(res, 400, errorBody(parsed, 'invalid_request_error', null));
    if (parsed.model !== modelName) return send(res, 404, modelNotFound(parsed.model));
    const unsupported = unsupportedFormat(parsed.responseFormat, supports);
    if (unsupported)
      return send(res, 400, errorBody(unsupported, 'invalid_request_error', null, 'response_format'));
    if (fault?.kind === 'reply') {
      const promptTokens = model.tokenize(promptOf(parsed.messages)).length + 1;
      const completionTokens = model.tokenize(fault.content, false, 'trimLeadingSpace').length;
      const reply: Completion = {
        content: fault.content,
        finishReason: 'stop',
        promptTokens,
        completionTokens,
      };
      return send(res, 200, completionBody(modelName, reply));
    }
    try {
      const result = await complete(parsed, fault?.kind === 'ignore-format', signal);
      send(res, 200, completionBody(modelName, result));
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ContextOverflow) {
        const message =
          `This model's maximum context length is ${CONTEXT_TOKENS} tokens. However, your messages resulted in ` +
          `${error.promptTokens} tokens. Please reduce the length of the messages.`;
        return send(
          res,
          400,
          errorBody(message, 'invalid_request_error', 'context_length_exceeded', 'messages'),
        );
      }
      if (error instanceof InvalidSchema) {
        const message = `Invalid schema for response_format: ${error.message}`;
        return send(res, 400, errorBody(message, 'invalid_request_error', null, 'response_format'));
      }
      throw error;
    }
  }

  function authorized(req: http.IncomingMessage): boolean {
    return options.apiKey === undefined || req.headers.authorization === `Bearer ${options.apiKey}`;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, headers: { ...req.headers }, body: parseJson(raw) });
    if (raw === undefined)
      return send(res, 413, errorBody('Request body too large', 'invalid_request_error', null));
    if (req.method === 'POST' && url.pathname === '/v1/chat/completions')
      return chatCompletions(req, res, raw);
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      if (!authorized(req)) return send(res, 401, invalidApiKey());
      return send(res, 200, {
        object: 'list',
        data: [{ id: modelName, object: 'model', created: 0, owned_by: 'webcap-test' }],
      });
    }
    send(
      res,
      404,
      errorBody(`Unknown request URL: ${req.method} ${url.pathname}`, 'invalid_request_error', 'unknown_url'),
    );
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (closing.signal.aborted) return void res.destroy();
      send(res, 500, errorBody(`internal error: ${String(error)}`, 'server_error', null));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    faults,
    async close() {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      await context.dispose();
      await model.dispose();
      await releaseLlama();
    },
  };
}

type ResponseFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; schema: object };
interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  maxTokens?: number;
  temperature?: number;
  seed?: number;
  /** `text` when the request has none; `present` says whether it had one. */
  responseFormat: ResponseFormat & { present: boolean };
}
interface Completion {
  content: string;
  finishReason: 'stop' | 'length';
  promptTokens: number;
  completionTokens: number;
}

class ContextOverflow extends Error {
  constructor(readonly promptTokens: number) {
    super('context length exceeded');
  }
}

class InvalidSchema extends Error {}

/** Loads a fresh random model; its GGUF exists only while loading (read into memory, not mapped). */
async function loadRandomModel(llama: Llama): Promise<LlamaModel> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webcap-llm-'));
  try {
    const file = path.join(dir, 'tiny-random.gguf');
    await writeRandomGguf(file, { contextLength: CONTEXT_TOKENS });
    return await llama.loadModel({ modelPath: file, gpuLayers: 0, useMmap: false });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/*
 * node-llama-cpp's grammar knows oneOf but not anyOf, and a type list only of scalar types: it turns
 * either into `null`. OpenAI's strict schemas write a nullable field as anyOf [..., {type: null}] or
 * type [..., 'null'], so both become the oneOf that a grammar means anyway.
 */
function asGrammarSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const { anyOf, type, ...rest } = schema as Record<string, unknown>;
  if (Array.isArray(type) && type.some((name) => name === 'object' || name === 'array')) {
    return { oneOf: type.map((name) => asGrammarSchema({ ...rest, type: name })) };
  }
  const converted: Record<string, unknown> = type === undefined ? rest : { ...rest, type };
  const schemas = (value: unknown) => (Array.isArray(value) ? value.map(asGrammarSchema) : value);
  const schemaMap = (value: unknown) =>
    typeof value === 'object' && value !== null
      ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asGrammarSchema(item)]))
      : value;
  for (const key of ['items', 'additionalProperties']) converted[key] &&= asGrammarSchema(converted[key]);
  for (const key of ['prefixItems', 'oneOf']) converted[key] &&= schemas(converted[key]);
  for (const key of ['properties', '$defs']) converted[key] &&= schemaMap(converted[key]);
  if (anyOf !== undefined) converted.oneOf = schemas(anyOf);
  return converted;
}

/*
 * node-llama-cpp's numbers take an exponent of up to 16 digits, integers included: a random model
 * writes `4777E9060606` (Infinity to JSON.parse) and `35e-18` (not an integer). llama.cpp's server
 * writes integers without an exponent; here no number has one, so that what the random model
 * writes is a finite number of the type asked, as a real model's price or count is.
 */
const EXPONENT = ' ([eE] [-+]? ("0" | [1-9] [0-9]{0,15}))?';

function withoutExponents(grammar: string): string {
  return grammar
    .split('\n')
    .map((line) => (/^(integer|fractional)-number-rule ::= /.test(line) ? line.replace(EXPONENT, '') : line))
    .join('\n');
}

/** A simple chat template: the random model has no template of its own and does not care. */
function promptOf(messages: ChatRequest['messages']): string {
  return `${messages.map((message) => `<|${message.role}|>\n${message.content}\n`).join('')}<|assistant|>\n`;
}

/** Validates a body the way OpenAI does, returning the request or the error message. */
function parseChatRequest(raw: string): ChatRequest | string {
  const body = parseJson(raw);
  if (raw.trim() === '' || typeof body === 'string') {
    return "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)";
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'The request body must be a JSON object.';
  if (typeof body.model !== 'string') return "Missing required parameter: 'model'.";
  const messages: unknown = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    return "Invalid 'messages': expected a non-empty array of messages.";
  }
  for (const [index, message] of messages.entries()) {
    if (
      typeof message !== 'object' ||
      message === null ||
      !['system', 'user', 'assistant'].includes(message.role)
    ) {
      return `Invalid value for 'messages[${index}].role': expected one of 'system', 'user' or 'assistant'.`;
    }
    if (typeof message.content !== 'string')
      return `Invalid type for 'messages[${index}].content': expected a string.`;
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null && !(Number.isInteger(maxTokens) && maxTokens > 0)) {
    return "Invalid 'max_tokens': expected a positive integer.";
  }
  const temperature = body.temperature;
  if (
    temperature !== undefined &&
    temperature !== null &&
    !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)
  ) {
    return "Invalid 'temperature': expected a number between 0 and 2.";
  }
  if (body.stream === true) return "'stream' is not supported by this test server.";
  if (body.seed !== undefined && body.seed !== null && !Number.isInteger(body.seed)) {
    return "Invalid 'seed': expected an integer.";
  }
  const responseFormat = parseResponseFormat(body.response_format);
  if (typeof responseFormat === 'string') return responseFormat;
  return {
    model: body.model,
    messages: messages.map((message: { role: string; content: string }) => ({
      role: message.role,
      content: message.content,
    })),
    maxTokens: maxTokens ?? undefined,
    // OpenAI's default temperature is 1; the seed makes sampling repeatable when the client sends none.
    temperature: temperature ?? 1,
    seed: body.seed ?? 0,
    responseFormat,
  };
}

function parseResponseFormat(format: unknown): ChatRequest['responseFormat'] | string {
  if (format === undefined || format === null) return { type: 'text', present: false };
  if (typeof format !== 'object' || Array.isArray(format))
    return "Invalid 'response_format': expected an object.";
  const { type, json_schema: jsonSchema } = format as { type?: unknown; json_schema?: unknown };
  if (type === 'text' || type === 'json_object') return { type, present: true };
  if (type !== 'json_schema') {
    return "Invalid value for 'response_format.type': expected one of 'text', 'json_object' or 'json_schema'.";
  }
  const spec = jsonSchema as { name?: unknown; schema?: unknown } | undefined;
  if (typeof spec !== 'object' || spec === null || typeof spec.name !== 'string') {
    return "Missing required parameter: 'response_format.json_schema.name'.";
  }
  if (typeof spec.schema !== 'object' || spec.schema === null) {
    return "Invalid 'response_format.json_schema.schema': expected an object.";
  }
  return { type, schema: spec.schema, present: true };
}

function unsupportedFormat(
  format: ChatRequest['responseFormat'],
  supports: LlmServerOptions['supports'],
): string | undefined {
  if (!format.present) return undefined;
  if (supports === 'none' || (supports === 'json_object' && format.type === 'json_schema')) {
    return `Invalid parameter: 'response_format' of type '${format.type}' is not supported with this model.`;
  }
  return undefined;
}

function completionBody(model: string, completion: Completion) {
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2, 14)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: completion.content },
        finish_reason: completion.finishReason,
      },
    ],
    usage: {
      prompt_tokens: completion.promptTokens,
      completion_tokens: completion.completionTokens,
      total_tokens: completion.promptTokens + completion.completionTokens,
    },
  };
}

function errorBody(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

function invalidApiKey() {
  return errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
}

function modelNotFound(model: string) {
  return errorBody(
    `The model '${model}' does not exist: model not found.`,
    'invalid_request_error',
    'model_not_found',
  );
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The body as text, or undefined past MAX_BODY_BYTES. */
async function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed body is whatever the client sent
function parseJson(raw: string | undefined): any {
  if (raw === undefined || raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/*
 * One Llama (the native backend) per process, shared by the servers that are open and disposed
 * with the last: getLlama tests the prebuilt binary in a child process, about a second each time.
 */
let llamaUsers = 0;
let llamaInstance: Promise<Llama> | undefined;

function sharedLlama(): Promise<Llama> {
  llamaUsers++;
  llamaInstance ??= getLlama({
    gpu: false,
    // Never build from source nor download llama.cpp: use the prebuilt CPU binary or fail.
    build: 'never',
    skipDownload: true,
    usePrebuiltBinaries: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
    maxThreads: 1,
  });
  return llamaInstance;
}

async function releaseLlama(): Promise<void> {
  llamaUsers--;
  if (llamaUsers > 0 || !llamaInstance) return;
  const llama = await llamaInstance;
  llamaInstance = undefined;
  await llama.dispose();
}
