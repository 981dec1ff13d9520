import { Ajv, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { invalidParam } from '../../../errors.js';

/**
 * A caller's JSON Schema for extraction, checked and bounded before anything reads it. The subset
 * is what structured-output endpoints (OpenAI's strict mode, llama.cpp's grammars) and the
 * built-in extractor both understand; everything else is refused by name rather than ignored, so
 * that a caller never believes a constraint holds that nothing enforces. No `$ref`, `$id` or
 * `pattern`: no reference leaves the schema and no caller string reaches a regular expression.
 */

export const SCHEMA_MAX_BYTES = 65_536;
export const SCHEMA_MAX_DEPTH = 16;
export const SCHEMA_MAX_PROPERTIES = 500;
/** Values of one `enum`; 64 KB bounds it anyway, this keeps matching cheap. */
export const SCHEMA_MAX_ENUM = 500;

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** One checked (sub)schema: only the keywords allowed below, each of the right shape. */
export interface FieldSchema {
  readonly type?: JsonType | readonly JsonType[];
  readonly properties?: Readonly<Record<string, FieldSchema>>;
  readonly required?: readonly string[];
  readonly items?: FieldSchema;
  readonly enum?: readonly (string | number | boolean | null)[];
  readonly description?: string;
  readonly format?: string;
  readonly title?: string;
  readonly additionalProperties?: boolean;
}

export interface CheckedSchema {
  readonly schema: FieldSchema;
  /** The caller's schema as given: what a model's answer must satisfy. */
  readonly validate: ValidateFunction;
  /**
   * The same schema with `null` admitted everywhere: what the built-in extractor's answer
   * satisfies, since a required field the page does not state is null rather than invented.
   */
  readonly validateFound: ValidateFunction;
}

const KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'description',
  'format',
  'title',
  'additionalProperties',
]);
const TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null',
]);
/** ajv-formats' formats allowed: fixed expressions, none of the caller's. */
const FORMATS: ReadonlySet<string> = new Set([
  'date',
  'date-time',
  'time',
  'email',
  'uri',
  'uri-reference',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Walks the schema once, refusing the first thing out of bounds by its path. */
function checkNode(node: unknown, path: string, depth: number, count: { properties: number }): void {
  if (depth > SCHEMA_MAX_DEPTH) throw invalidParam(path, `is nested deeper than ${SCHEMA_MAX_DEPTH} levels`);
  if (!isPlainObject(node)) throw invalidParam(path, 'must be a JSON Schema object');
  for (const key of Object.keys(node)) {
    if (!KEYWORDS.has(key)) {
      throw invalidParam(`${path}.${key}`, `is not supported: use only ${[...KEYWORDS].join(', ')}`);
    }
  }
  const { type, properties, required, items, enum: values, description, format, title } = node;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (types.length === 0 || types.some((t) => typeof t !== 'string' || !TYPES.has(t))) {
      throw invalidParam(`${path}.type`, `must be one of ${[...TYPES].join(', ')} or a list of them`);
    }
    if (new Set(types).size !== types.length) throw invalidParam(`${path}.type`, 'lists a type twice');
  }
  for (const [key, text] of [
    ['description', description],
    ['title', title],
  ] as const) {
    if (text !== undefined && typeof text !== 'string')
      throw invalidParam(`${path}.${key}`, 'must be a string');
  }
  if (format !== undefined && (typeof format !== 'string' || !FORMATS.has(format))) {
    throw invalidParam(`${path}.format`, `must be one of ${[...FORMATS].join(', ')}`);
  }
  if (node.additionalProperties !== undefined && typeof node.additionalProperties !== 'boolean') {
    throw invalidParam(`${path}.additionalProperties`, 'must be true or false');
  }
  if (values !== undefined) {
    if (!Array.isArray(values) || values.length === 0 || values.length > SCHEMA_MAX_ENUM) {
      throw invalidParam(`${path}.enum`, `must be a list of 1 to ${SCHEMA_MAX_ENUM} values`);
    }
    if (values.some((v) => v !== null && typeof v === 'object')) {
      throw invalidParam(`${path}.enum`, 'must list strings, numbers, booleans or null');
    }
  }
  if (properties !== undefined) {
    if (!isPlainObject(properties)) throw invalidParam(`${path}.properties`, 'must be an object of schemas');
    for (const [name, child] of Object.entries(properties)) {
      if (++count.properties > SCHEMA_MAX_PROPERTIES) {
        throw invalidParam('schema', `has more than ${SCHEMA_MAX_PROPERTIES} properties in all`);
      }
      checkNode(child, `${path}.properties.${name}`, depth + 1, count);
    }
  }
  if (required !== undefined) {
    if (!Array.isArray(required) || required.some((name) => typeof name !== 'string')) {
      throw invalidParam(`${path}.required`, 'must be a list of property names');
    }
    for (const name of required as string[]) {
      if (!isPlainObject(properties) || !Object.hasOwn(properties, name)) {
        throw invalidParam(`${path}.required`, `names ${JSON.stringify(name)}, which is not in properties`);
      }
    }
  }
  if (items !== undefined) checkNode(items, `${path}.items`, depth + 1, count);
  checkApplies(node, path);
}

/**
 * A keyword must come with the type it applies to (`properties` with `object`, `items` with
 * `array`, `format` with `string`), as ajv's strict mode asks: so a schema read here compiles
 * wherever it is compiled later, and a keyword that would silently do nothing is a 400 now.
 */
function checkApplies(node: Record<string, unknown>, path: string): void {
  const types = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type];
  const needs: readonly (readonly [string, JsonType])[] = [
    ['properties', 'object'],
    ['required', 'object'],
    ['additionalProperties', 'object'],
    ['items', 'array'],
    ['format', 'string'],
  ];
  for (const [keyword, type] of needs) {
    if (node[keyword] !== undefined && !types.includes(type)) {
      throw invalidParam(`${path}.${keyword}`, `needs "${type}" in ${path}.type`);
    }
  }
}

/** The schema with `null` added to every `type` and `enum`, for the extractor's answers. */
function admittingNull(node: FieldSchema): FieldSchema {
  const out: Record<string, unknown> = { ...node };
  if (node.type !== undefined) {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    out.type = types.includes('null') ? types : [...types, 'null'];
  }
  if (node.enum !== undefined && !node.enum.includes(null)) out.enum = [...node.enum, null];
  if (node.properties !== undefined) {
    const properties: Record<string, FieldSchema> = {};
    for (const [name, child] of Object.entries(node.properties)) {
      Object.defineProperty(properties, name, { value: admittingNull(child), enumerable: true });
    }
    out.properties = properties;
  }
  if (node.items !== undefined) out.items = admittingNull(node.items);
  return out as FieldSchema;
}

// Strict: a keyword that does not apply to the schema's type is an error, not a silent no-op.
// No loadSchema: with `$ref` refused nothing could be fetched, and nothing is.
// ownProperties: a property named like Object.prototype's (toString, constructor) is not read from it.
const ajv = new Ajv({
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  validateFormats: true,
  ownProperties: true,
});
// The fast mode's expressions: bounded repetitions, no nested quantifiers to backtrack through.
formatsPlugin.default(ajv, { mode: 'fast', formats: [...FORMATS] as never });

/** Compiles once; the schema leaves ajv's cache at once, since every call's schema differs. */
function compile(schema: FieldSchema): ValidateFunction {
  try {
    const validate = ajv.compile(schema);
    ajv.removeSchema(schema);
    return validate;
  } catch (error) {
    throw invalidParam('schema', `is not a valid JSON Schema (${(error as Error).message.slice(0, 200)})`);
  }
}

/**
 * The caller's schema read: an object schema at the top, at most SCHEMA_MAX_BYTES serialized,
 * SCHEMA_MAX_DEPTH levels and SCHEMA_MAX_PROPERTIES properties, only the allowed keywords, each
 * with the type it applies to; any other is a 400 naming its path (`schema.properties.price.pattern`).
 * One linear walk, for the edge: compiling is not (ajv takes ~80 ms for 500 properties), so it is
 * done where extraction runs, by `compileSchema`.
 */
export function readSchema(schema: unknown): FieldSchema {
  if (!isPlainObject(schema)) throw invalidParam('schema', 'must be a JSON Schema object');
  // The walk first: it stops at the depth bound, so serializing after it never recurses deeply.
  checkNode(schema, 'schema', 1, { properties: 0 });
  const bytes = Buffer.byteLength(JSON.stringify(schema), 'utf8');
  if (bytes > SCHEMA_MAX_BYTES) throw invalidParam('schema', `is larger than ${SCHEMA_MAX_BYTES} bytes`);
  if (schema.type !== 'object') throw invalidParam('schema.type', 'must be "object" at the top');
  return schema as FieldSchema;
}

/** Compiled schemas kept per process: a crawl or a batch asks the same schema of every page. */
const COMPILED_KEPT = 16;
const compiled = new Map<string, CheckedSchema>();

/**
 * A schema `readSchema` accepted, compiled with ajv (CPU-bound: extractor processes run it), and
 * kept for the next call with the same schema.
 */
export function compileSchema(schema: FieldSchema): CheckedSchema {
  const key = JSON.stringify(schema);
  const kept = compiled.get(key);
  if (kept !== undefined) {
    compiled.delete(key);
    compiled.set(key, kept);
    return kept;
  }
  const checked = { schema, validate: compile(schema), validateFound: compile(admittingNull(schema)) };
  compiled.set(key, checked);
  if (compiled.size > COMPILED_KEPT) compiled.delete(compiled.keys().next().value as string);
  return checked;
}

/** `readSchema` and `compileSchema` in one. */
export function checkSchema(schema: unknown): CheckedSchema {
  return compileSchema(readSchema(schema));
}
