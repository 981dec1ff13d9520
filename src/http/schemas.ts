import { Type } from 'typebox';

/**
 * A boolean parameter: JSON true/false in bodies, `true|false|1|0` as text in query strings
 * (DESIGN.md §2). The coercing validator turns "true"/"false" into booleans; "1"/"0" stay text.
 */
export const Flag = Type.Union([Type.Boolean(), Type.Union([Type.Literal('1'), Type.Literal('0')])]);

/** The value of an optional Flag; absent is false. */
export function flag(value: boolean | '1' | '0' | undefined): boolean {
  return value === true || value === '1';
}

/** The parameters that make a billable call asynchronous (docs/jobs.md). */
export const asyncFields = {
  is_async: Type.Optional(Flag),
  webhook_url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'http(s) URL that receives the signed job record',
    }),
  ),
};
