import { type Static, type TSchema, Type } from 'typebox';
import { KeyJsonSchema, keyJson } from '../../admin/json.js';
import type { ConsoleSessions } from '../../admin/sessions.js';
import { RoleSchema } from '../../admin/users.js';
import { parseIsoDate } from '../../billing/iso-date.js';
import type { KeyRecord } from '../../billing/keys.js';
import { keyUse } from '../../billing/ledger.js';
import { Nullable } from '../../nullable.js';
import { MAX_ERROR_CHARS, MAX_TARGET_CHARS } from '../../stats/logged-target.js';
import {
  type LoggedRequest,
  lastUsed,
  type RequestFilter,
  type StatusFilter,
} from '../../stats/request-log.js';
import type { Db } from '../../store/db.js';
import type { SignedInRequest } from './access.js';

/*
 * The console API's shared shapes (docs/console.md, "Console API"). Each route declares its
 * answers with them, so Fastify serializes with them and nothing else leaves.
 */

/** Ids of rows (keys, users, jobs): bounded, URL-safe. */
export const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
export const IdParams = Type.Object({ id: Id }, { additionalProperties: false });
export const SlugParams = Type.Object(
  { slug: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9-]+$' }) },
  { additionalProperties: false },
);

/** `limit` (1-200, default 50) and `before` (the previous page's `next`). */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  before: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
};

export const DEFAULT_PAGE = 50;

/** The page a list query asks for. */
export function pageRequest(query: { limit?: number; before?: string }): { limit: number; before?: string } {
  return { limit: query.limit ?? DEFAULT_PAGE, before: query.before };
}

/** A list: `{"items": [...], "next": <cursor or null>}`, newest first. */
export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({ items: Type.Array(item), next: Nullable(Type.String()) });
}

/** The signed-in person, the CSRF token to send with every change, and when the session ends unless used. */
export const SessionSchema = Type.Object({
  user: Type.Object({
    id: Nullable(Type.String()),
    email: Nullable(Type.String()),
    name: Type.String(),
    role: RoleSchema,
    account: Nullable(
      Type.Object({ name: Type.String(), slug: Type.String(), stats_enabled: Type.Boolean() }),
    ),
  }),
  csrf_token: Type.String(),
  expires_at: Type.String(),
});

export function sessionJson(
  sessions: ConsoleSessions,
  signIn: SignedInRequest,
): Static<typeof SessionSchema> {
  const { person, expiresAt } = signIn.session;
  return {
    user: {
      id: person.id,
      email: person.email,
      name: person.name,
      role: person.role,
      account:
        person.account === null
          ? null
          : {
              name: person.account.name,
              slug: person.account.slug,
              stats_enabled: person.account.statsEnabled,
            },
    },
    csrf_token: sessions.csrfToken(signIn.token),
    expires_at: expiresAt.toISOString(),
  };
}

/** A key as lists show it beside what it did: its id, alias and prefix. */
export const KeyRefSchema = Type.Object({ id: Type.String(), alias: Type.String(), prefix: Type.String() });

/** A key as the console shows it: the admin API's key JSON, what it used in its quota windows, and its last call. */
export const ConsoleKeySchema = Type.Object({
  ...KeyJsonSchema.properties,
  used: Type.Object({
    total: Type.Integer(),
    today: Type.Integer(),
    this_week: Type.Integer(),
    this_month: Type.Integer(),
  }),
  last_used_at: Nullable(Type.String()),
});

export type ConsoleKey = Static<typeof ConsoleKeySchema>;

/** The keys' console JSON: each with its use in the windows containing `now` and its last call. */
export async function consoleKeys(db: Db, records: readonly KeyRecord[], now: Date): Promise<ConsoleKey[]> {
  const ids = records.map((record) => record.key.id);
  const [uses, last] = await Promise.all([keyUse(db, ids, now), lastUsed(db, ids)]);
  return records.map((record) => ({
    ...keyJson(record),
    used: uses.get(record.key.id) ?? { total: 0, today: 0, this_week: 0, this_month: 0 },
    last_used_at: last.get(record.key.id) ?? null,
  }));
}

/** A row of the request log (GET /console/api/requests); `account` on the operator's list. */
export const RequestItemSchema = Type.Object({
  id: Type.String(),
  created_at: Type.String(),
  account: Type.Optional(Nullable(Type.String())),
  engine: Type.String(),
  path: Type.String(),
  status: Type.Integer(),
  duration_ms: Type.Integer(),
  billed: Type.Boolean(),
  key: KeyRefSchema,
  target_url: Nullable(
    Type.String({
      maxLength: MAX_TARGET_CHARS,
      description: "the call's target URL, without credentials and with secret-named query values as ***",
    }),
  ),
  error: Nullable(
    Type.String({
      maxLength: MAX_ERROR_CHARS,
      description: 'the error text a failed call was answered with',
    }),
  ),
});

export function requestItemJson(row: LoggedRequest, withAccount: boolean): Static<typeof RequestItemSchema> {
  return {
    id: row.id,
    created_at: row.createdAt,
    ...(withAccount ? { account: row.accountSlug } : {}),
    engine: row.engine,
    path: row.path,
    status: row.status,
    duration_ms: row.durationMs,
    billed: row.billed,
    key: row.key,
    target_url: row.targetUrl,
    error: row.error,
  };
}

/** The request-log filters, checked: `status` a code or a class, `since`/`until` ISO times. */
export const RequestQuery = {
  engine: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  status: Type.Optional(Type.String({ pattern: '^([1-5][0-9][0-9]|[1-5]xx)$' })),
  key_id: Type.Optional(Id),
  since: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  until: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  ...PageQuery,
};

/** The request filter of a request-log query's fields; a 400 naming a time that does not parse. */
export function requestFilterOf(query: {
  engine?: string;
  status?: string;
  key_id?: string;
  since?: string;
  until?: string;
}): RequestFilter {
  const status = query.status;
  return {
    engine: query.engine,
    keyId: query.key_id,
    status: status === undefined ? undefined : /x/.test(status) ? (status as StatusFilter) : Number(status),
    since: query.since === undefined ? undefined : parseIsoDate(query.since, 'since').toISOString(),
    until: query.until === undefined ? undefined : parseIsoDate(query.until, 'until').toISOString(),
  };
}

/** `days` (1-90, default 30) of GET .../usage/daily. */
export const DaysQuery = { days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90 })) };

export const DailyCallsSchema = Type.Object({
  days: Type.Array(
    Type.Object({
      date: Type.String(),
      calls: Type.Integer(),
      billed: Type.Integer(),
      by_engine: Type.Record(Type.String(), Type.Integer()),
      by_status: Type.Record(Type.String(), Type.Integer()),
    }),
  ),
});
