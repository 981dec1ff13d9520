import { type TObject, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import { asJob, type JobSpec } from '../calls/call-spec.js';
import { invalidParam, WebcapError } from '../errors.js';
import { analyzeFields, analyzeRequest } from './analyze.js';
import { captureRequest, v1CaptureFields } from './capture.js';
import { contentRequest, v1ContentFields } from './content.js';
import { extractFields, extractRequest } from './extract.js';

/** The engines a batch runs (docs/crawl.md, "Batch"). */
export const BATCH_ENGINES = ['capture', 'content', 'analyze', 'extract'] as const;
export type BatchEngine = (typeof BATCH_ENGINES)[number];

/** Items of one batch at most. */
export const MAX_BATCH_ITEMS = 1000;

/** An engine's fields as a batch item takes them: its POST body's, without what makes a call a job (the batch is one). */
function itemFields<F extends Record<string, TSchema>>(fields: F): TObject {
  const { is_async: _async, webhook_url: _webhook, ...rest } = fields as Record<string, TSchema>;
  return Type.Object(rest, { additionalProperties: false });
}

const ITEM_SCHEMAS: Readonly<Record<BatchEngine, TObject>> = {
  capture: itemFields(v1CaptureFields),
  content: itemFields(v1ContentFields),
  analyze: itemFields(analyzeFields),
  extract: itemFields(extractFields),
};

const Item = Type.Union([
  Type.String({ minLength: 1, maxLength: 8192, description: 'a page URL' }),
  Type.Object(
    { url: Type.String({ minLength: 1, maxLength: 8192 }) },
    {
      additionalProperties: true,
      description: "a page URL with options of its own, over the batch's `options`",
    },
  ),
]);

/** POST /v1/batch: one engine over many pages, run as jobs. */
export const batchFields = {
  engine: Type.Enum([...BATCH_ENGINES], { description: 'the endpoint each item is a call of' }),
  urls: Type.Array(Item, { minItems: 1, maxItems: MAX_BATCH_ITEMS }),
  options: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: "the engine's parameters (as its POST body takes them) for every item",
      },
    ),
  ),
  max_concurrency: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 256,
      description: 'items at once, default 5 (CRAWL_MAX_CONCURRENCY caps it)',
    }),
  ),
  webhook_url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'http(s) URL that receives batch.started, batch.item, batch.completed and batch.failed',
    }),
  ),
};

/** One validated item: the URL it names and the call it runs, as a job's call (a capture answers JSON). */
export interface BatchItem {
  readonly url: string;
  readonly spec: JobSpec;
}

export interface BatchPlan {
  readonly engine: BatchEngine;
  readonly items: readonly BatchItem[];
  readonly maxConcurrency: number;
  readonly webhookUrl: string | null;
}

/** A parameter's name in an item's error: `urls[3].format`, or `options.format` when the batch's options are wrong. */
function itemParam(index: number, name: string, own: object): string {
  return name in own ? `urls[${index}].${name}` : `options.${name}`;
}

/**
 * The batch's items, each checked against its engine's schema and mapped as its endpoint maps a
 * request; the first wrong one is a 400 naming it. `baseUrl` is where hosted captures are linked from.
 */
export function batchRequest(
  input: {
    readonly engine: BatchEngine;
    readonly urls: readonly (string | { readonly url: string })[];
    readonly options?: object;
    readonly max_concurrency?: number;
    readonly webhook_url?: string;
  },
  maxConcurrency: number,
  baseUrl: string,
): BatchPlan {
  const concurrency = input.max_concurrency ?? Math.min(5, maxConcurrency);
  if (concurrency > maxConcurrency) {
    throw invalidParam('max_concurrency', `is at most ${maxConcurrency} on this service`);
  }
  const schema = ITEM_SCHEMAS[input.engine];
  const items = input.urls.map((raw, index): BatchItem => {
    const own: object = typeof raw === 'string' ? { url: raw } : raw;
    const merged = { ...input.options, ...own };
    const error = Value.Errors(schema, merged)[0];
    if (error !== undefined) {
      const name = error.instancePath.split('/')[1] ?? '';
      const extra = error.params as { additionalProperties?: string[] };
      const named = name === '' ? (extra.additionalProperties?.[0] ?? 'url') : name;
      const message =
        error.schemaPath.endsWith('/additionalProperties') || name === ''
          ? 'is not a parameter of this engine'
          : error.message;
      throw invalidParam(itemParam(index, named, own), message);
    }
    try {
      return { url: String((merged as { url: string }).url), spec: specOf(input.engine, merged, baseUrl) };
    } catch (failure) {
      // The mapping names the parameter; the caller needs the item too.
      if (failure instanceof WebcapError && failure.code === 'bad_request' && failure.detail !== undefined) {
        throw new WebcapError('bad_request', `urls[${index}]: ${failure.detail}`);
      }
      throw failure;
    }
  });
  return {
    engine: input.engine,
    items,
    maxConcurrency: concurrency,
    webhookUrl: input.webhook_url ?? null,
  };
}

function specOf(engine: BatchEngine, input: object, baseUrl: string): JobSpec {
  switch (engine) {
    case 'capture':
      // As a job: its answer is JSON (a hosted link), so screenshot steps have their place.
      return asJob(
        captureRequest({ ...input, is_async: true } as Parameters<typeof captureRequest>[0], 'v1', baseUrl),
      );
    case 'content':
      return contentRequest(input as Parameters<typeof contentRequest>[0], 'v1', baseUrl);
    case 'analyze':
      return analyzeRequest(input as Parameters<typeof analyzeRequest>[0]);
    case 'extract':
      return extractRequest(input as Parameters<typeof extractRequest>[0]);
  }
}
