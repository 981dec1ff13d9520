import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { listAudit } from '../../admin/audit.js';
import {
  createInvitation,
  listPendingInvitations,
  type PendingInvitation,
  withdrawInvitation,
} from '../../admin/invitations.js';
import { AuditEntryJsonSchema, auditEntryJson, UserJsonSchema, userJson } from '../../admin/json.js';
import { AccountRoleSchema, deleteUser, listUsers, updateUser } from '../../admin/users.js';
import { Nullable } from '../../nullable.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { accountOf, adminAs } from './access.js';
import { IdParams, ListOf, PageQuery, pageRequest } from './schemas.js';

const InviteBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254 }), role: AccountRoleSchema },
  { additionalProperties: false },
);

const UserPatch = Type.Object(
  { role: Type.Optional(AccountRoleSchema), active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

const InvitationCreated = Type.Object({
  // Never from the request's Host, which whoever sends the request chooses: a link to their host
  // would hand them the token. Without PUBLIC_BASE_URL the console resolves the path against the
  // address its page was opened at.
  invite_url: Type.String({
    description:
      "the one-time link, shown only in this answer: PUBLIC_BASE_URL's, else its path (`/console/invite/<token>`)",
  }),
  email: Type.String(),
  role: AccountRoleSchema,
  expires_at: Type.String(),
});

/** A pending invitation; never its token, which only the answer that made it held. */
const PendingInvitationSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: AccountRoleSchema,
  created_at: Type.String(),
  expires_at: Type.String(),
  invited_by: Nullable(Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() })),
});

function pendingInvitationJson(invitation: PendingInvitation): Static<typeof PendingInvitationSchema> {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    created_at: invitation.createdAt,
    expires_at: invitation.expiresAt,
    invited_by: invitation.invitedBy,
  };
}

/** The account's people (owners only): the users, invitations made, listed and withdrawn, changes and removals, and the account's audit log. */
export function userRoutes(deps: AppDeps): FastifyPluginAsyncTypebox {
  const config = { console: 'owner' as const };
  return async (app) => {
    app.get(
      '/console/api/users',
      { config, schema: { hide: true, response: { 200: ListOf(UserJsonSchema), ...errors(401, 403) } } },
      async (request) => {
        const users = await listUsers(adminAs(deps, request), { accountId: accountOf(request).id });
        return { items: users.map(userJson).reverse(), next: null };
      },
    );

    app.post(
      '/console/api/invites',
      {
        config,
        schema: {
          hide: true,
          body: InviteBody,
          response: { 201: InvitationCreated, ...errors(400, 401, 403, 413) },
        },
      },
      async (request, reply) => {
        const { token, invitation } = await createInvitation(adminAs(deps, request), {
          accountId: accountOf(request).id,
          email: request.body.email,
          role: request.body.role,
        });
        return reply.code(201).send({
          invite_url: `${deps.config.publicBaseUrl ?? ''}/console/invite/${token}`,
          email: invitation.email,
          role: invitation.role,
          expires_at: invitation.expiresAt,
        });
      },
    );

    app.get(
      '/console/api/invites',
      {
        config,
        schema: { hide: true, response: { 200: ListOf(PendingInvitationSchema), ...errors(401, 403) } },
      },
      async (request) => {
        const pending = await listPendingInvitations(adminAs(deps, request), accountOf(request).id);
        return { items: pending.map(pendingInvitationJson), next: null };
      },
    );

    app.delete(
      '/console/api/invites/:id',
      {
        config,
        schema: {
          hide: true,
          params: IdParams,
          response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await withdrawInvitation(adminAs(deps, request), {
          accountId: accountOf(request).id,
          id: request.params.id,
        });
        return reply.code(204).send(null);
      },
    );

    app.patch(
      '/console/api/users/:id',
      {
        config,
        schema: {
          hide: true,
          params: IdParams,
          body: UserPatch,
          response: { 200: UserJsonSchema, ...errors(400, 401, 403, 404, 409, 413) },
        },
      },
      async (request) =>
        userJson(
          await updateUser(adminAs(deps, request), request.params.id, request.body, {
            accountId: accountOf(request).id,
          }),
        ),
    );

    app.delete(
      '/console/api/users/:id',
      {
        config,
        schema: {
          hide: true,
          params: IdParams,
          response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        await deleteUser(adminAs(deps, request), request.params.id, { accountId: accountOf(request).id });
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/console/api/audit',
      {
        config,
        schema: {
          hide: true,
          querystring: Type.Object(PageQuery, { additionalProperties: false }),
          response: { 200: ListOf(AuditEntryJsonSchema), ...errors(400, 401, 403) },
        },
      },
      async (request) => {
        const page = await listAudit(
          deps.store.db,
          { accountId: accountOf(request).id },
          pageRequest(request.query),
        );
        return { items: page.items.map(auditEntryJson), next: page.next };
      },
    );
  };
}
