import { Type } from 'typebox';
import { invalidParam } from '../errors.js';

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

/** The async parameters of a validated request (`asyncFields`). */
export interface AsyncInput {
  readonly is_async?: boolean | '1' | '0';
  readonly webhook_url?: string;
}

/** Whether the call is to run as a job; webhook_url without is_async is a 400. */
export function wantsAsync(input: AsyncInput): boolean {
  const isAsync = flag(input.is_async);
  if (!isAsync && input.webhook_url !== undefined) throw invalidParam('webhook_url', 'needs is_async=true');
  return isAsync;
}
