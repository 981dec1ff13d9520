import { Ajv, type ValidateFunction } from 'ajv';
import type { AnalysisFields } from '../extractive.js';
import type { AnalyzerAnswer } from './analyzer.js';

/**
 * The one JSON Schema of a model's answer: the fixed fields an analyzer writes and the caller's
 * custom fields, all required, nothing else. It is sent to the model (structured output, or in the
 * prompt) and every answer is validated against it. Item counts are bounded in the schema; string
 * lengths are not (OpenAI's strict mode refuses maxLength): answers are cut to ANSWER_LIMITS after.
 */
export const ANSWER_LIMITS = Object.freeze({
  summaryChars: 1_000,
  valuePropositionChars: 500,
  keyFeatures: 8,
  categories: 3,
  useCases: 5,
  itemChars: 200,
  targetAudienceChars: 300,
  customChars: 1_000,
});

const FIXED_PROPERTIES: Record<keyof AnalysisFields, object> = {
  summary: {
    type: 'string',
    description: 'What the page is about, in two or three sentences.',
  },
  valueProposition: {
    type: 'string',
    description: 'What the page or its product promises its reader, in one sentence.',
  },
  keyFeatures: {
    type: 'array',
    items: { type: 'string' },
    maxItems: ANSWER_LIMITS.keyFeatures,
    description: 'The main features, products or offerings the page describes, each a short phrase.',
  },
  categories: {
    type: 'array',
    items: { type: 'string' },
    maxItems: ANSWER_LIMITS.categories,
    description: 'The kind of site and its topics, most specific first.',
  },
  useCases: {
    type: 'array',
    items: { type: 'string' },
    maxItems: ANSWER_LIMITS.useCases,
    description: 'What a reader would use this for, each a short phrase.',
  },
  targetAudience: {
    type: 'string',
    description: 'Who the page is written for.',
  },
};

export type AnswerSchema = Readonly<Record<string, unknown>>;

/** The answer's schema for these custom fields (name → the caller's meaning). */
export function answerSchema(customFields: Readonly<Record<string, string>>): AnswerSchema {
  const properties: Record<string, object> = { ...FIXED_PROPERTIES };
  for (const [name, meaning] of Object.entries(customFields)) {
    Object.defineProperty(properties, name, {
      value: { type: 'string', description: meaning === '' ? name : meaning },
      enumerable: true,
    });
  }
  return {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

const ajv = new Ajv({ allErrors: true, strict: false });

/**
 * A compiled check of one schema. Every call's custom fields differ, so the schema leaves ajv's
 * cache at once (the compiled function works on without it) rather than piling up there.
 */
export function answerValidator(schema: AnswerSchema): ValidateFunction {
  const validate = ajv.compile(schema);
  ajv.removeSchema(schema);
  return validate;
}

/** The validator's complaints in a few words each, with no value from the answer in them. */
export function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 10)
    .map((error) => `${error.instancePath || 'the answer'} ${error.message ?? 'is invalid'}`)
    .join('; ');
}

/** Trims and cuts a string at a word boundary near `max` characters. */
function cut(text: string, max: number): string {
  const trimmed = text.replace(/\s+/g, ' ').trim();
  if (trimmed.length <= max) return trimmed;
  const at = trimmed.lastIndexOf(' ', max);
  return `${trimmed.slice(0, at > max * 0.6 ? at : max).trimEnd()}…`;
}

function items(list: readonly string[], max: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of list) {
    const text = cut(item, ANSWER_LIMITS.itemChars);
    if (text === '' || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    out.push(text);
    if (out.length === max) break;
  }
  return out;
}

/** A validated answer, trimmed, deduplicated and cut to ANSWER_LIMITS. */
export function normalizeAnswer(
  answer: Record<string, unknown>,
  customFields: Readonly<Record<string, string>>,
): AnalyzerAnswer {
  const text = (name: string) => answer[name] as string;
  const list = (name: string) => answer[name] as string[];
  const custom: Record<string, string> = {};
  for (const name of Object.keys(customFields)) {
    Object.defineProperty(custom, name, {
      value: cut(text(name), ANSWER_LIMITS.customChars),
      enumerable: true,
      writable: true,
    });
  }
  return {
    fields: {
      summary: cut(text('summary'), ANSWER_LIMITS.summaryChars),
      valueProposition: cut(text('valueProposition'), ANSWER_LIMITS.valuePropositionChars),
      keyFeatures: items(list('keyFeatures'), ANSWER_LIMITS.keyFeatures),
      categories: items(list('categories'), ANSWER_LIMITS.categories),
      useCases: items(list('useCases'), ANSWER_LIMITS.useCases),
      targetAudience: cut(text('targetAudience'), ANSWER_LIMITS.targetAudienceChars),
    },
    custom,
  };
}
