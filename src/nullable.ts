import { type TSchema, Type } from 'typebox';

/**
 * `T | null`. Null comes first on purpose: with the coercing validator, a value tried against
 * a string or integer branch first would be coerced ("" or 0) instead of staying null.
 */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([Type.Null(), schema]);
}
