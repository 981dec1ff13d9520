import { Type } from 'typebox';
import type { ExtractBy } from '../engines/extract/extract-data.js';
import { RULES_LIMITS, rulesOf } from '../engines/extract/rules-bounds.js';
import {
  readSchema,
  SCHEMA_MAX_BYTES,
  SCHEMA_MAX_DEPTH,
  SCHEMA_MAX_PROPERTIES,
} from '../engines/extract/schema/check-schema.js';
import { invalidParam } from '../errors.js';
import { jsonText } from './json-text.js';

/** Characters of a caller's extraction prompt. */
export const PROMPT_MAX_CHARS = 4000;

/**
 * The ways of asking for structured data, one place for every door that takes them: /v1/extract,
 * and the `json` format of /v1/content, crawls and batches (docs/extract.md).
 */
export const extractionFields = {
  schema: Type.Optional(
    jsonText(
      Type.Object({}, { additionalProperties: true }),
      SCHEMA_MAX_BYTES,
      `a JSON Schema of the answer: an object schema; keywords type (nullable as ["string","null"]), properties, required, items, enum, description, title, format, additionalProperties; at most ${SCHEMA_MAX_BYTES} bytes, ${SCHEMA_MAX_DEPTH} levels and ${SCHEMA_MAX_PROPERTIES} properties`,
    ),
  ),
  prompt: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: PROMPT_MAX_CHARS,
      description:
        'with schema: what the model should look for (the built-in extractor, without a model, reads no prompt)',
    }),
  ),
  extract_rules: Type.Optional(
    jsonText(
      Type.Object({}, { additionalProperties: true }),
      RULES_LIMITS.bytes,
      `field name → CSS selector (its text), or → {selector, type: text|html|attribute|list|object, attribute, output: nested rules}; at most ${RULES_LIMITS.rules} rules, ${RULES_LIMITS.depth} levels, ${RULES_LIMITS.bytes} bytes, selectors of ${RULES_LIMITS.selectorChars} characters`,
    ),
  ),
};

interface ExtractionInput {
  readonly schema?: unknown;
  readonly prompt?: string;
  readonly extract_rules?: unknown;
}

/** The schema parameter as an object: JSON text is parsed within its byte bound first. */
function schemaOf(raw: unknown) {
  let value = raw;
  if (typeof raw === 'string') {
    if (Buffer.byteLength(raw) > SCHEMA_MAX_BYTES) {
      throw invalidParam('schema', `is larger than ${SCHEMA_MAX_BYTES} bytes`);
    }
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidParam('schema', 'is not valid JSON');
    }
  }
  return readSchema(value);
}

/**
 * What the caller asked to extract, checked and bounded (a 400 naming the parameter and the place
 * in it), or null when it asked for nothing: `schema` (with an optional `prompt`) or
 * `extract_rules`, never both. The schema is read here, in one linear walk; it is compiled where
 * the extraction runs.
 */
export function extractByOf(input: ExtractionInput): ExtractBy | null {
  if (input.schema !== undefined && input.extract_rules !== undefined) {
    throw invalidParam('schema', 'and extract_rules cannot be given together: give one of them');
  }
  if (input.prompt !== undefined && input.schema === undefined) {
    throw invalidParam('prompt', 'is read with schema: give a schema too');
  }
  if (input.schema !== undefined) {
    return { kind: 'schema', schema: schemaOf(input.schema), prompt: input.prompt ?? null };
  }
  if (input.extract_rules !== undefined) return { kind: 'rules', rules: rulesOf(input.extract_rules) };
  return null;
}

/**
 * The `json` format's extraction (content, crawls): json in formats asks for a schema or rules,
 * and a schema or rules ask for json in formats; either alone is a 400 naming what is missing.
 */
export function jsonFormatOf(input: ExtractionInput, jsonAsked: boolean): ExtractBy | null {
  const by = extractByOf(input);
  if (jsonAsked && by === null) {
    throw invalidParam('formats', 'json needs schema or extract_rules: give one of them');
  }
  if (!jsonAsked && by !== null) {
    throw invalidParam(
      by.kind === 'schema' ? 'schema' : 'extract_rules',
      'is read with formats=json: add json to formats',
    );
  }
  return by;
}
