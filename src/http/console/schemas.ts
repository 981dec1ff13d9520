import { type Static, type TSchema, Type } from 'typebox';
import type { ConsoleSessions } from '../../admin/sessions.js';
import { Nullable } from '../../nullable.js';
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

const Role = Type.Union([Type.Literal('owner'), Type.Literal('member'), Type.Literal('operator')]);

/** The signed-in person, the CSRF token to send with every change, and when the session ends unless used. */
export const SessionSchema = Type.Object({
  user: Type.Object({
    id: Nullable(Type.String()),
    email: Nullable(Type.String()),
    name: Type.String(),
    role: Role,
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
