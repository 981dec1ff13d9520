import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { acceptInvitation, showInvitation } from '../../admin/invitations.js';
import { PASSWORD_MAX_CHARS } from '../../admin/passwords.js';
import type { ConsoleSessions, SignedIn } from '../../admin/sessions.js';
import { changeOwnPassword, signInWithAdminToken, signInWithPassword, signOut } from '../../admin/sign-in.js';
import { AccountRoleSchema } from '../../admin/users.js';
import { invalidParam, WebcapError } from '../../errors.js';
import type { AppDeps } from '../deps.js';
import { errors } from '../responses/errors.js';
import { signInOf } from './access.js';
import { SessionSchema, sessionJson } from './schemas.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';

const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_CHARS });
const Email = Type.String({ minLength: 1, maxLength: 254 });

const SignInBody = Type.Object(
  {
    email: Type.Optional(Email),
    password: Type.Optional(Password),
    admin_token: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);

const PasswordBody = Type.Object(
  { current_password: Password, new_password: Password },
  { additionalProperties: false },
);

const InviteParams = Type.Object(
  { token: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' }) },
  { additionalProperties: false },
);

const AcceptBody = Type.Object(
  { name: Type.String({ maxLength: 200 }), password: Password },
  { additionalProperties: false },
);

const InvitationSchema = Type.Object({
  email: Type.String(),
  role: AccountRoleSchema,
  account: Type.Object({ name: Type.String(), slug: Type.String() }),
  expires_at: Type.String(),
});

/**
 * Signing in and out (email and password, or the admin token), the session, sign-out
 * everywhere, the password change, and the invitation links (docs/console.md, "Session").
 */
export function sessionRoutes(deps: AppDeps, sessions: ConsoleSessions): FastifyPluginAsyncTypebox {
  const signInDeps = { db: deps.store.db, clock: deps.clock, sessions };
  const opened = (request: FastifyRequest, reply: FastifyReply, { token, session }: SignedIn) => {
    setSessionCookie(deps, request, reply, token);
    return sessionJson(sessions, { token, session });
  };
  return async (app) => {
    app.post(
      '/console/api/session',
      {
        config: { console: 'public' },
        schema: {
          hide: true,
          body: SignInBody,
          response: { 200: SessionSchema, ...errors(400, 401, 403, 503) },
        },
      },
      async (request, reply) => {
        const { email, password, admin_token: adminToken } = request.body;
        if (adminToken !== undefined) {
          if (email !== undefined || password !== undefined) {
            throw invalidParam('admin_token', 'is sent alone, without email and password');
          }
          return opened(
            request,
            reply,
            await signInWithAdminToken(signInDeps, { token: adminToken, ip: request.ip }),
          );
        }
        if (email === undefined) throw invalidParam('email', 'is required');
        if (password === undefined) throw invalidParam('password', 'is required');
        return opened(
          request,
          reply,
          await signInWithPassword(signInDeps, { email, password, ip: request.ip }),
        );
      },
    );

    app.get(
      '/console/api/session',
      {
        config: { console: 'session' },
        schema: { hide: true, response: { 200: SessionSchema, ...errors(401) } },
      },
      async (request) => sessionJson(sessions, signInOf(request)),
    );

    const ended = { hide: true, response: { 204: Type.Null(), ...errors(400, 401, 403) } };
    app.delete(
      '/console/api/session',
      { config: { console: 'session' }, schema: ended },
      async (request, reply) => {
        await signOut(signInDeps, signInOf(request).session, request.ip, false);
        clearSessionCookie(deps, request, reply);
        return reply.code(204).send(null);
      },
    );
    app.post(
      '/console/api/session/everywhere',
      { config: { console: 'session' }, schema: ended },
      async (request, reply) => {
        await signOut(signInDeps, signInOf(request).session, request.ip, true);
        clearSessionCookie(deps, request, reply);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/console/api/password',
      {
        config: { console: 'session' },
        schema: {
          hide: true,
          body: PasswordBody,
          response: { 204: Type.Null(), ...errors(400, 401, 403, 409, 503) },
        },
      },
      async (request, reply) => {
        await changeOwnPassword(signInDeps, signInOf(request).session, {
          current: request.body.current_password,
          next: request.body.new_password,
          ip: request.ip,
        });
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/console/api/invites/:token',
      {
        config: { console: 'public' },
        schema: {
          hide: true,
          params: InviteParams,
          response: { 200: InvitationSchema, ...errors(400, 404) },
        },
      },
      async (request) => {
        const invitation = await showInvitation(deps.store.db, request.params.token, deps.clock());
        return {
          email: invitation.email,
          role: invitation.role,
          account: { name: invitation.account.name, slug: invitation.account.slug },
          expires_at: invitation.expiresAt,
        };
      },
    );

    app.post(
      '/console/api/invites/:token/accept',
      {
        config: { console: 'public' },
        schema: {
          hide: true,
          params: InviteParams,
          body: AcceptBody,
          response: { 200: SessionSchema, ...errors(400, 401, 403, 404, 409, 503) },
        },
      },
      async (request, reply) => {
        const { credential } = await acceptInvitation(signInDeps, request.params.token, {
          name: request.body.name,
          password: request.body.password,
          ip: request.ip,
        });
        const signedIn = await sessions.start(credential);
        // Reset or deactivated by an operator in the instant since: the user exists; they sign in.
        if (signedIn === undefined) throw new WebcapError('unauthorized', 'sign in');
        return opened(request, reply, signedIn);
      },
    );
  };
}
