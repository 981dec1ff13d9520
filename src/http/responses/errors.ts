import { type TSchema, Type } from 'typebox';
import { ERROR_CATALOGUE } from '../../errors.js';

/*
 * Every route declares its success body and the {"error"} body of each status it can return
 * (STYLE.md example 11), so that /openapi.json describes what callers get and Fastify serializes
 * with them; test/contract.test.ts holds real answers to the document.
 */

/** The one error body (spec "Errors"; DESIGN.md §2): the spec's message, detail after ': '. */
export const ErrorBody = Type.Object(
  { error: Type.String({ description: "the spec's message, then ': ' and the detail" }) },
  { additionalProperties: false },
);

/** What a status means: the catalogue's messages that answer with it (src/errors.ts). */
function meaning(status: number): string {
  const messages = Object.values(ERROR_CATALOGUE)
    .filter((entry) => entry.status === status)
    .map((entry) => entry.message);
  return [...new Set(messages)].join(' | ') || 'Error';
}

/** The error responses of the given statuses, each the one {"error"} body with what it means. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((status) => [status, { ...ErrorBody, description: meaning(status) }]),
  );
}

/** Errors every billable call can answer, besides its own. */
export const BILLABLE_ERRORS = [400, 401, 402, 403, 405, 500, 503] as const;
