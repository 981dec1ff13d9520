import type { FieldSchema, JsonType } from './check-schema.js';

/**
 * A caller's checked schema as a model's structured output takes it (OpenAI's strict mode, which
 * vLLM, llama.cpp and Ollama follow): every object lists all its properties in `required` and has
 * `additionalProperties: false`; a property the caller did not require admits `null`, so that the
 * model can say "not on the page" rather than invent (settle-answer.ts makes those nulls absent).
 *
 * Only `type`, `description`, `enum`, `properties`, `required`, `additionalProperties` and `items`
 * are kept. `title` and `format` are keywords strict mode refuses; what they say is folded into
 * `description` for the model, and ajv still checks the format against the caller's schema.
 *
 * What strict mode cannot express:
 * - an object without `properties` (any members): sent as an object with no members, so it is
 *   answered `{}`, with a warning (settle-answer.ts); list its properties to have them filled;
 * - `additionalProperties: true`: the named properties are asked for and nothing else;
 * - a schema with neither `type` nor `enum` (anything): asked for as text, which it admits.
 * A `type` left out beside `enum` is the types of the enum's values (`properties` and `items`
 * need a `type`: check-schema.ts compiles in ajv's strict mode).
 */

/** What a `format` asks for, in words a model follows (ajv-formats' fast mode checks them after). */
const FORMAT_WORDS: Readonly<Record<string, string>> = {
  date: 'a date as YYYY-MM-DD',
  'date-time': 'a date and time as YYYY-MM-DDTHH:MM:SS with its UTC offset or Z',
  time: 'a time as HH:MM:SS with its UTC offset or Z',
  email: 'an email address',
  uri: 'an absolute URL',
  'uri-reference': 'a URL, absolute or relative',
  hostname: 'a host name',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  uuid: 'a UUID',
};

function define(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** The types a schema stands for: its `type`, else its enum's, else text (above). */
export function typesOf(schema: FieldSchema): readonly JsonType[] {
  if (schema.type !== undefined) return Array.isArray(schema.type) ? schema.type : [schema.type as JsonType];
  if (schema.enum !== undefined) {
    const types = schema.enum.map(
      (value): JsonType => (value === null ? 'null' : (typeof value as JsonType)),
    );
    return [...new Set(types)];
  }
  return ['string'];
}

function description(schema: FieldSchema): string | undefined {
  const said = [schema.title, schema.description]
    .filter((text) => text !== undefined && text !== '')
    .join(': ');
  const format = schema.format === undefined ? undefined : FORMAT_WORDS[schema.format];
  if (format === undefined) return said === '' ? undefined : said;
  return said === '' ? format : `${said} (${format})`;
}

function strict(schema: FieldSchema, nullable: boolean): Record<string, unknown> {
  let types = typesOf(schema);
  if (nullable && !types.includes('null')) types = [...types, 'null'];
  const out: Record<string, unknown> = { type: types.length === 1 ? types[0] : types };
  const text = description(schema);
  if (text !== undefined) out.description = text;
  if (schema.enum !== undefined) {
    out.enum = nullable && !schema.enum.includes(null) ? [...schema.enum, null] : [...schema.enum];
  }
  if (types.includes('object')) {
    const properties: Record<string, unknown> = {};
    const required = new Set(schema.required ?? []);
    for (const [name, sub] of Object.entries(schema.properties ?? {})) {
      define(properties, name, strict(sub, !required.has(name)));
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  if (types.includes('array')) out.items = strict(schema.items ?? {}, false);
  return out;
}

/** The strict form of a caller's checked object schema (above). */
export function strictSchema(schema: FieldSchema): Record<string, unknown> {
  return strict(schema, false);
}
