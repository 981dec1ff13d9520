import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../../admin/audit.js';
import type { AdminDeps } from '../../admin/deps.js';
import type { ConsoleSession, ConsoleSessions } from '../../admin/sessions.js';
import { sessionActor } from '../../admin/sign-in.js';
import type { Account } from '../../billing/accounts.js';
import { keySecretSealer } from '../../billing/signing-secrets.js';
import { WebcapError } from '../../errors.js';
import type { AppDeps } from '../deps.js';
import { clearSessionCookie, sessionTokenOf } from './session-cookie.js';

/**
 * Who may call a console route: anyone (signing in, invitations), any signed-in session, an
 * account's people (owner or member), its owners, or an operator.
 */
export type ConsoleAccess = 'public' | 'session' | 'account' | 'owner' | 'operator';

/** A request's signed-in session and its token (the CSRF token is derived from it). */
export interface SignedInRequest {
  readonly session: ConsoleSession;
  readonly token: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every console route: who may call it (http/console/access.ts). */
    console?: ConsoleAccess;
  }
  interface FastifyRequest {
    /** The console session of a console route that needs one, once access.ts let it through. */
    consoleSignIn: SignedInRequest | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the request changes something: what CSRF protection covers. */
export function changesState(request: FastifyRequest): boolean {
  return !SAFE_METHODS.has(request.method);
}

/**
 * Whether an Origin is this service's: the one the request was sent to (its Host, as a browser
 * on this service's pages sends it), or PUBLIC_BASE_URL's. Both: the service may be opened at an
 * address other than the published one (127.0.0.1 for localhost), and behind a proxy that
 * terminates TLS without TRUST_PROXY the request's own protocol is not the page's.
 */
function isOwnOrigin(deps: AppDeps, request: FastifyRequest, origin: string): boolean {
  if (origin === `${request.protocol}://${request.host}`) return true;
  return deps.config.publicBaseUrl !== null && origin === new URL(deps.config.publicBaseUrl).origin;
}

/**
 * The guards of a state change besides the token: an Origin header, when the browser sends one,
 * must be this service's; a body must be JSON (a form or text/plain body is what a cross-site
 * page can send without asking first).
 */
export function checkStateChange(deps: AppDeps, request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin !== undefined && !isOwnOrigin(deps, request, origin)) {
    throw new WebcapError('forbidden', 'cross-origin request refused');
  }
  const length = request.headers['content-length'];
  const hasBody =
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
  const mediaType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (hasBody && mediaType !== 'application/json') {
    throw new WebcapError('bad_request', 'Content-Type must be application/json');
  }
}

/** A 403 unless the request's x-csrf-token is its session's CSRF token. */
export function checkCsrf(sessions: ConsoleSessions, request: FastifyRequest, token: string): void {
  const given = request.headers['x-csrf-token'];
  if (!sessions.csrfMatches(token, typeof given === 'string' ? given : undefined)) {
    throw new WebcapError('forbidden', 'CSRF token missing or wrong');
  }
}

/** The request's live session, or a 401 (and the browser told to drop a cookie that no longer opens one). */
export async function signedIn(
  deps: AppDeps,
  sessions: ConsoleSessions,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<SignedInRequest> {
  const token = sessionTokenOf(deps, request);
  const session = await sessions.find(token);
  if (session === undefined || token === undefined) {
    if (token !== undefined) clearSessionCookie(deps, request, reply);
    throw new WebcapError('unauthorized', 'sign in');
  }
  return { session, token };
}

/** The one check of a console role: what each access asks of the session's person. */
function checkRole(access: ConsoleAccess, session: ConsoleSession): void {
  const { person } = session;
  if (access === 'account' && person.account === null) {
    throw new WebcapError(
      'forbidden',
      "this is an account's view; the operator's are under /console/api/operator",
    );
  }
  if (access === 'owner' && (person.account === null || person.role !== 'owner')) {
    throw new WebcapError('forbidden', "only the account's owners may do this");
  }
  if (access === 'operator' && person.role !== 'operator') {
    throw new WebcapError('forbidden', 'only an operator may do this');
  }
}

/**
 * The console routes' gate, before the body is read: the state-change guards, then the session
 * (401), its CSRF token on a state change (403) and the route's role (403).
 */
export function consoleAccessHook(deps: AppDeps, sessions: ConsoleSessions) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const access = request.routeOptions.config.console;
    if (access === undefined) return;
    const changes = changesState(request);
    if (changes) checkStateChange(deps, request);
    if (access === 'public') return;
    const signIn = await signedIn(deps, sessions, request, reply);
    if (changes) checkCsrf(sessions, request, signIn.token);
    checkRole(access, signIn.session);
    request.consoleSignIn = signIn;
  };
}

/** The session of a route behind the gate. */
export function signInOf(request: FastifyRequest): SignedInRequest {
  if (request.consoleSignIn === null) throw new WebcapError('unauthorized', 'sign in');
  return request.consoleSignIn;
}

/** The account of an account route's session (the gate let only an account's people through). */
export function accountOf(request: FastifyRequest): Account {
  const account = signInOf(request).session.person.account;
  if (account === null) throw new WebcapError('forbidden', "this is an account's view");
  return account;
}

/** The session's person as the audit log's actor. */
export function actorOf(request: FastifyRequest): Actor {
  return sessionActor(signInOf(request).session, request.ip);
}

/** The admin operations' deps, acting as the request's session. */
export function adminAs(deps: AppDeps, request: FastifyRequest): AdminDeps {
  return {
    db: deps.store.db,
    clock: deps.clock,
    jobRetentionMs: deps.config.jobs.retentionMs,
    keySecrets: keySecretSealer(deps.signingSecret),
    actor: actorOf(request),
  };
}
