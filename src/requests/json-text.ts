import { type Static, type TSchema, type TString, type TUnion, Type } from 'typebox';
import { Value } from 'typebox/value';
import { invalidParam } from '../errors.js';

/**
 * A list or object parameter: the value itself in a JSON body, or the same value as JSON text
 * where only text travels (a query string, a form body, a CLI flag). `maxLength` bounds the text
 * before it is parsed; the parsed value is then held to `schema`'s own bounds.
 */
export function jsonText<T extends TSchema>(
  schema: T,
  maxLength: number,
  description: string,
): TUnion<[T, TString]> {
  return Type.Union(
    [schema, Type.String({ maxLength, description: `${description}, or the same as JSON text` })],
    {
      description,
    },
  );
}

/**
 * The value of a `jsonText` parameter: parsed when it came as text, and checked against `schema`
 * either way; malformed JSON or a value outside the schema is a 400 naming `param` and the first
 * wrong place in it.
 */
export function parseJsonText<T extends TSchema>(
  param: string,
  value: Static<T> | string | undefined,
  schema: T,
): Static<T> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw invalidParam(param, 'is not valid JSON');
    }
  }
  const error = Value.Errors(schema, parsed)[0];
  if (error === undefined) return parsed as Static<T>;
  const where = error.instancePath === '' ? '' : ` at ${error.instancePath}`;
  throw invalidParam(param, `${error.message}${where}`);
}
