import type { FieldSchema } from './check-schema.js';
import type { SchemaExtraction } from './extract-by-schema.js';
import { typesOf } from './strict-schema.js';

/**
 * A model's parsed answer as the caller gets it, before it is validated against the caller's
 * schema: the members the schema names and no others (in JSON mode a model may add some); a null
 * the model wrote for a property the caller did not require made absent, as the built-in
 * extractor leaves it; each property left null or absent named in warnings, worded as the
 * built-in extractor words them (`price: not stated on the page`). A required property keeps its
 * null, and the validator decides whether the caller's schema admits it.
 */

const MAX_WARNINGS = 100;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function define(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

function settle(value: unknown, schema: FieldSchema, path: string, warnings: string[]): unknown {
  const warn = (message: string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push(message);
  };
  const types = typesOf(schema);
  if (Array.isArray(value) && types.includes('array')) {
    const items = schema.items ?? {};
    return value.map((item, index) => settle(item, items, `${path}[${index}]`, warnings));
  }
  if (!isPlainObject(value) || !types.includes('object')) return value;
  if (schema.properties === undefined) {
    warn(
      `${path || 'the answer'}: an object without properties is not filled by the model; list its properties`,
    );
    return {};
  }
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, sub] of Object.entries(schema.properties)) {
    const here = path === '' ? name : `${path}.${name}`;
    const member = Object.hasOwn(value, name) ? value[name] : undefined;
    if (member === undefined || member === null) {
      warn(`${here}: not stated on the page`);
      if (member === null && required.has(name)) define(out, name, null);
    } else {
      define(out, name, settle(member, sub, here, warnings));
    }
  }
  return out;
}

/** The answer settled for the caller's object schema (above); `data` is still to be validated. */
export function settleAnswer(answer: unknown, schema: FieldSchema): SchemaExtraction {
  const warnings: string[] = [];
  const data = settle(answer, schema, '', warnings);
  return { data: data as Record<string, unknown>, warnings };
}
