import { type Static, type TSchema, Type } from 'typebox';

const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * `T | null`. A scalar is one schema whose `type` lists both (`["null", "integer"]`), not a union:
 * with the coercing validator (app.ts: `coerceTypes`), each branch of a union is tried with
 * coercion, so a null branch took 0, "" and false as null (a key's daily quota of 0 became no
 * quota at all) and an integer branch took null as 0. Ajv coerces a value only when no listed
 * type matches it, so 0 stays 0 and null stays null; "" and false, which match neither, still
 * become null, the first type listed. Objects and arrays, which Ajv never coerces, stay a union.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && SCALARS.has(type)) {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: ['null', type] });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([Type.Null(), schema]));
}
