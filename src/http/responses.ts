import { type TSchema, Type } from 'typebox';
import { KeyQuotas } from './responses/account.js';
import { Nullable } from './schemas.js';

/*
 * Response schemas (STYLE.md example 11): every route declares its success body and the
 * {"error"} body of each status it can return, so that /openapi.json describes what callers get
 * and Fastify serializes with them. Success bodies list every field: a field missing here would
 * be dropped from the answer, which the routes' tests would see.
 */

/** The one error body (spec "Errors"; DESIGN.md §2): the spec's message, detail after ': '. */
export const ErrorBody = Type.Object(
  { error: Type.String({ description: "the spec's message, then ': ' and the detail" }) },
  { additionalProperties: false },
);

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Bad Request: a parameter is missing or wrong (named), or the page could not be loaded',
  401: 'Invalid API Key (missing, unknown, inactive, expired), or Rate limit exceeded for the API key',
  402: 'Insufficient credits: no subscription quota, pack or credits left',
  403: 'Forbidden: account deactivated, or an invalid file link',
  404: 'Not Found',
  405: 'Method Not Allowed: HEAD on a billable endpoint',
  409: 'Conflict',
  413: 'Payload Too Large',
  500: 'Internal Error, including timeouts; retryable, never billed',
  503: 'Service Unavailable: busy, or a dependency is down; retry after Retry-After',
};

/** The error responses of the given statuses, each the one {"error"} body with what it means. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((status) => [status, { ...ErrorBody, description: ERROR_MEANINGS[status] ?? 'Error' }]),
  );
}

/** Errors every billable call can answer, besides its own. */
export const BILLABLE_ERRORS = [400, 401, 402, 403, 405, 500, 503] as const;

/** An account as the admin API shows it. */
export const AccountBody = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  active: Type.Boolean(),
  stats_enabled: Type.Boolean(),
  monthly_quota: Nullable(Type.Integer()),
  per_second: Nullable(Type.Integer()),
  per_minute: Nullable(Type.Integer()),
  billing_anchor: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
});

/** An API key as the admin API shows it; never the key itself, but once, at creation. */
export const KeyBody = Type.Object({
  id: Type.String(),
  account: Type.String(),
  account_id: Type.String(),
  alias: Type.String(),
  category: Type.String(),
  prefix: Type.String(),
  active: Type.Boolean(),
  expires_at: Nullable(Type.String()),
  revoked_at: Nullable(Type.String()),
  quotas: KeyQuotas,
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const CreatedKeyBody = Type.Object({
  ...KeyBody.properties,
  key: Type.String({ description: 'the API key; shown only in this answer' }),
});

export const PackBody = Type.Object({
  id: Type.String(),
  account: Type.String(),
  title: Type.String(),
  total: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
  purchased_at: Type.String(),
});

export const GrantBody = Type.Object({
  id: Type.String(),
  account: Type.String(),
  amount: Type.Integer(),
  note: Type.String(),
  granted_at: Type.String(),
  credits: Type.Object({ given: Type.Integer(), consumed: Type.Integer() }),
});

export const LedgerBody = Type.Object({
  account: Type.String(),
  totals: Type.Object({
    committed: Type.Object({ subscription: Type.Integer(), pack: Type.Integer(), credit: Type.Integer() }),
    reserved: Type.Integer(),
    released: Type.Integer(),
  }),
  entries: Type.Array(
    Type.Object({
      id: Type.String(),
      key_id: Type.String(),
      engine: Type.String(),
      source: Type.String(),
      pack_id: Nullable(Type.String()),
      period_start: Nullable(Type.String()),
      status: Type.String(),
      created_at: Type.String(),
      settled_at: Nullable(Type.String()),
    }),
  ),
});

/** An account's webhook signing secret (admin API). */
export const WebhookSecretBody = Type.Object(
  { account: Type.String(), webhook_secret: Type.String() },
  { additionalProperties: false },
);
