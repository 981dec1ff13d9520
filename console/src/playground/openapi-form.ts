/*
 * The playground's forms, made at run time from the OpenAPI document the service serves
 * (GET /openapi.json), so that a parameter added to a route's schema shows up by itself.
 */

/** The parts of a JSON Schema the routes' TypeBox schemas use. */
export interface JsonSchema {
  /** One type, or several (`["null", "integer"]` for a nullable one). */
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
  readonly items?: JsonSchema;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly pattern?: string;
  readonly default?: unknown;
  readonly description?: string;
}

interface ParameterObject {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema?: JsonSchema;
}

interface OperationObject {
  readonly summary?: string;
  readonly tags?: readonly string[];
  readonly parameters?: readonly ParameterObject[];
  readonly requestBody?: { readonly content?: Readonly<Record<string, { readonly schema?: JsonSchema }>> };
}

/** The part of the served document the playground reads. */
export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>;
}

/**
 * How a parameter is entered: `boolean` as default/true/false (an unchecked box could not send the
 * `false` of a flag whose default is true), `list` as comma-separated values, `json` as JSON text.
 */
export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'list' | 'json';

export interface FormField {
  readonly name: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly description: string;
  /** The allowed values of a `choice`. */
  readonly options: readonly string[];
  readonly defaultValue: string | null;
  readonly minimum: number | null;
  readonly maximum: number | null;
  readonly maxLength: number | null;
}

export interface PlaygroundOperation {
  /** `GET /v1/capture`: unique in the document. */
  readonly id: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly summary: string;
  /** Query parameters (GET) or the JSON body's fields (POST). */
  readonly fields: readonly FormField[];
  readonly bodyIsJson: boolean;
}

/** Fields that carry a key: the playground never asks for one, the session's key id stands in. */
const KEY_FIELDS = new Set(['x_api_key', 'access_key']);

/** What a schema is entered as. */
export function fieldKind(schema: JsonSchema): FieldKind {
  if (schema.anyOf !== undefined) {
    // TypeBox's flags are `boolean | "1" | "0"`; a choice of constants is an enum spelled long.
    if (schema.anyOf.some((s) => s.type === 'boolean')) return 'boolean';
    if (enumValues(schema).length > 0) return 'choice';
    return 'json';
  }
  if (schema.enum !== undefined) return 'choice';
  // A nullable scalar is entered as its scalar: a blank field already sends nothing.
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'boolean':
      return 'boolean';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'array':
      return 'list';
    case 'string':
      return 'text';
    default:
      return 'json';
  }
}

function enumValues(schema: JsonSchema): string[] {
  if (schema.enum !== undefined) return schema.enum.map(String);
  if (schema.anyOf === undefined) return [];
  const nested = schema.anyOf.map(enumValues);
  return nested.every((values) => values.length > 0) ? nested.flat() : [];
}

function formField(name: string, schema: JsonSchema, required: boolean, description?: string): FormField {
  const kind = fieldKind(schema);
  return {
    name,
    kind,
    required,
    description: description ?? schema.description ?? '',
    options: kind === 'choice' ? enumValues(schema) : [],
    defaultValue: schema.default === undefined ? null : String(schema.default),
    minimum: schema.minimum ?? null,
    maximum: schema.maximum ?? null,
    maxLength: schema.maxLength ?? null,
  };
}

/**
 * The v1 operations a person can try: every GET and POST under /v1/ without a path parameter (a
 * hosted file's link is not something to type), in the document's order, key fields left out.
 */
export function playgroundOperations(document: OpenApiDocument): PlaygroundOperation[] {
  const operations: PlaygroundOperation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/') || path.includes('{')) continue;
    for (const method of ['get', 'post'] as const) {
      const operation = methods[method];
      if (operation === undefined) continue;
      const body = operation.requestBody?.content?.['application/json']?.schema;
      const fields =
        body === undefined
          ? (operation.parameters ?? [])
              .filter((p) => p.in === 'query')
              .map((p) => formField(p.name, p.schema ?? {}, p.required === true, p.description))
          : Object.entries(body.properties ?? {}).map(([name, schema]) =>
              formField(name, schema, body.required?.includes(name) === true),
            );
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method === 'get' ? 'GET' : 'POST',
        path,
        summary: operation.summary ?? path,
        fields: fields.filter((f) => !KEY_FIELDS.has(f.name)),
        bodyIsJson: body !== undefined,
      });
    }
  }
  return operations;
}

/** What the form holds: the text of each field; '' is "not given". */
export type FormValues = Readonly<Record<string, string>>;

/** A value as the API takes it in a JSON body. */
export type BodyValue = string | number | boolean | readonly string[] | Record<string, unknown>;

/** A call ready to send: the parameters with their types (the query sends them as text). */
export interface PlaygroundCall {
  readonly operation: PlaygroundOperation;
  /** The given parameters, in the form's order, typed. */
  readonly params: ReadonlyArray<readonly [string, BodyValue]>;
}

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** A field's text as its typed value, or why it is not one. */
function typedValue(field: FormField, text: string): BodyValue | FieldError {
  const fail = (message: string): FieldError => ({ field: field.name, message: `${field.name} ${message}` });
  switch (field.kind) {
    case 'boolean':
      if (text === 'true' || text === 'false') return text === 'true';
      return fail('must be true or false');
    case 'integer':
    case 'number': {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value)) return fail('must be a number');
      if (field.kind === 'integer' && !Number.isInteger(value)) return fail('must be a whole number');
      if (field.minimum !== null && value < field.minimum) return fail(`must be >= ${field.minimum}`);
      if (field.maximum !== null && value > field.maximum) return fail(`must be <= ${field.maximum}`);
      return value;
    }
    case 'choice':
      return field.options.includes(text) ? text : fail(`must be one of ${field.options.join(', ')}`);
    case 'list':
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'json':
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          return fail('must be a JSON object');
        }
        return parsed as Record<string, unknown>;
      } catch {
        return fail('must be a JSON object');
      }
    case 'text':
      if (field.maxLength !== null && text.length > field.maxLength) {
        return fail(`must be at most ${field.maxLength} characters`);
      }
      return text;
  }
}

function isFieldError(value: BodyValue | FieldError): value is FieldError {
  return typeof value === 'object' && value !== null && 'message' in value && 'field' in value;
}

/**
 * The call the form describes, or the first field that is missing or malformed (the server
 * checks everything again; this only spares a billed-nothing round trip for a typo).
 */
export function buildCall(
  operation: PlaygroundOperation,
  values: FormValues,
): { call: PlaygroundCall } | { error: FieldError } {
  const params: Array<readonly [string, BodyValue]> = [];
  for (const field of operation.fields) {
    const text = values[field.name] ?? '';
    if (text.trim() === '') {
      if (field.required) return { error: { field: field.name, message: `${field.name} is required` } };
      continue;
    }
    const value = typedValue(field, field.kind === 'text' ? text : text.trim());
    if (isFieldError(value)) return { error: value };
    if (Array.isArray(value) && value.length === 0) continue;
    params.push([field.name, value]);
  }
  return { call: { operation, params } };
}

/** A typed value as query text: objects as JSON (the API's rule for custom_response in a query). */
function queryText(value: BodyValue): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'object') return [JSON.stringify(value)];
  return [String(value)];
}

/** The query string of a GET call (lists repeated), without the leading `?`. */
export function queryString(call: PlaygroundCall): string {
  const search = new URLSearchParams();
  for (const [name, value] of call.params) {
    for (const text of queryText(value)) search.append(name, text);
  }
  return search.toString();
}

/** The path and query a GET call is sent to, or the path of a POST. */
export function callTarget(call: PlaygroundCall): string {
  if (call.operation.bodyIsJson) return call.operation.path;
  const query = queryString(call);
  return query === '' ? call.operation.path : `${call.operation.path}?${query}`;
}

/** The JSON body of a POST call. */
export function callBody(call: PlaygroundCall): Record<string, BodyValue> {
  return Object.fromEntries(call.params);
}

/** The value a parameter was given, if any. */
export function paramValue(call: PlaygroundCall, name: string): BodyValue | undefined {
  return call.params.find(([given]) => given === name)?.[1];
}
