import { fromAccountRow } from '../billing/accounts.js';
import type { Clock } from '../clock.js';
import { WebcapError } from '../errors.js';
import type { Db } from '../store/db.js';
import { type Actor, writeAudit } from './audit.js';
import { checkPassword, hashPassword, spendPasswordCheck, verifyPassword } from './passwords.js';
import type { ConsoleSession, ConsoleSessions } from './sessions.js';
import { type Attempt, clearFailures, countFailure, lockedForSeconds } from './sign-in-throttle.js';
import { findUserRowByEmail, setPasswordHash } from './users.js';

/** What signing in needs, whichever door it comes through. */
export interface SignInDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly sessions: ConsoleSessions;
}

/** A session just opened and its token, which goes into the cookie and nowhere else. */
export interface SignedIn {
  readonly token: string;
  readonly session: ConsoleSession;
}

function locked(seconds: number): WebcapError {
  return new WebcapError('unauthorized', 'too many failed sign-ins; try again later', {
    retryAfterSeconds: seconds,
  });
}

/** Refuses the attempt while one of its subjects is locked, before anything is checked. */
async function refuseWhileLocked(db: Db, attempt: Attempt, now: Date): Promise<void> {
  const seconds = await lockedForSeconds(db, attempt, now);
  if (seconds !== null) throw locked(seconds);
}

/** Counts a failed attempt and writes it, and any lock it starts, to the audit log. */
async function failed(
  deps: SignInDeps,
  actor: Actor,
  attempt: Attempt,
  event: { accountId: string | null; target: string | null; reason: string },
  now: Date,
): Promise<void> {
  const locks = await countFailure(deps.db, attempt, now);
  const { accountId, target } = event;
  await writeAudit(
    deps.db,
    actor,
    { action: 'session.sign_in_failed', accountId, target, detail: { reason: event.reason } },
    now,
  );
  for (const lock of locks) {
    await writeAudit(
      deps.db,
      actor,
      {
        action: 'session.sign_in_locked',
        accountId,
        target,
        detail: { scope: lock.scope, until: lock.until.toISOString() },
      },
      now,
    );
  }
}

/**
 * Signs a console user in with their email and password (docs/console.md): 401 when either is
 * wrong, or while the email or the address is locked by failures (with Retry-After); 403 for a
 * deactivated user or account, told only to whoever knows the password. An unknown email costs
 * the time of a password check, as a wrong password does.
 */
export async function signInWithPassword(
  deps: SignInDeps,
  input: { readonly email: string; readonly password: string; readonly ip: string },
): Promise<SignedIn> {
  const { db } = deps;
  const now = deps.clock();
  const email = input.email.trim().toLowerCase();
  const attempt = { email, ip: input.ip };
  await refuseWhileLocked(db, attempt, now);
  const user = await findUserRowByEmail(db, email);
  const actor: Actor = { kind: 'user', id: user?.id ?? null, email, ip: input.ip };
  if (user === undefined) {
    await spendPasswordCheck(input.password);
    await failed(deps, actor, attempt, { accountId: null, target: null, reason: 'unknown email' }, now);
    throw new WebcapError('unauthorized', 'email or password is wrong');
  }
  if (!(await verifyPassword(user.password_hash, input.password))) {
    const event = { accountId: user.account_id, target: user.id, reason: 'wrong password' };
    await failed(deps, actor, attempt, event, now);
    throw new WebcapError('unauthorized', 'email or password is wrong');
  }
  await clearFailures(db, email);
  if (user.active !== 1) throw new WebcapError('forbidden', 'this user is deactivated');
  if (user.account_id !== null) {
    const account = await db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', user.account_id)
      .executeTakeFirstOrThrow();
    if (!fromAccountRow(account).active) throw new WebcapError('forbidden', 'account deactivated');
  }
  await db
    .updateTable('console_users')
    .set({ last_sign_in_at: now.toISOString() })
    .where('id', '=', user.id)
    .execute();
  const signedIn = await deps.sessions.start(user.id);
  await writeAudit(
    db,
    actor,
    { action: 'session.sign_in', accountId: user.account_id, target: user.id },
    now,
  );
  return signedIn;
}

/** Signs the operator in with WEBCAP_ADMIN_TOKEN: 401 when it is wrong (or unset), or while the address is locked. */
export async function signInWithAdminToken(
  deps: SignInDeps,
  input: { readonly token: string; readonly ip: string },
): Promise<SignedIn> {
  const now = deps.clock();
  const attempt = { ip: input.ip };
  await refuseWhileLocked(deps.db, attempt, now);
  const actor: Actor = { kind: 'admin_token', id: null, email: null, ip: input.ip };
  if (!deps.sessions.isAdminToken(input.token)) {
    await spendPasswordCheck(input.token);
    await failed(deps, actor, attempt, { accountId: null, target: null, reason: 'wrong admin token' }, now);
    throw new WebcapError('unauthorized', 'admin token is wrong');
  }
  const signedIn = await deps.sessions.start(null);
  await writeAudit(deps.db, actor, { action: 'session.sign_in', accountId: null, target: null }, now);
  return signedIn;
}

/** The audit log's actor for what a session does. */
export function sessionActor(session: ConsoleSession, ip: string): Actor {
  const { person } = session;
  return person.id === null
    ? { kind: 'admin_token', id: null, email: null, ip }
    : { kind: 'user', id: person.id, email: person.email, ip };
}

/** Ends the session, or (everywhere) every session of its person. */
export async function signOut(
  deps: SignInDeps,
  session: ConsoleSession,
  ip: string,
  everywhere: boolean,
): Promise<void> {
  if (everywhere) await deps.sessions.endEverywhere(session);
  else await deps.sessions.end(session.id);
  await writeAudit(
    deps.db,
    sessionActor(session, ip),
    {
      action: everywhere ? 'session.sign_out_everywhere' : 'session.sign_out',
      accountId: session.person.account?.id ?? null,
      target: session.person.id,
    },
    deps.clock(),
  );
}

/**
 * Changes a signed-in user's own password: the current one must be right (a wrong one counts as a
 * failed sign-in of their email, and a lock refuses it as it refuses a sign-in); their other
 * sessions end. The admin token has no password to change (403).
 */
export async function changeOwnPassword(
  deps: SignInDeps,
  session: ConsoleSession,
  input: { readonly current: string; readonly next: string; readonly ip: string },
): Promise<void> {
  const { person } = session;
  if (person.id === null || person.email === null) {
    throw new WebcapError('forbidden', 'the admin token has no password to change');
  }
  checkPassword(input.next, 'new_password');
  const now = deps.clock();
  const attempt = { email: person.email, ip: input.ip };
  await refuseWhileLocked(deps.db, attempt, now);
  const user = await findUserRowByEmail(deps.db, person.email);
  const actor = sessionActor(session, input.ip);
  const accountId = person.account?.id ?? null;
  if (user === undefined || !(await verifyPassword(user.password_hash, input.current))) {
    await failed(
      deps,
      actor,
      attempt,
      { accountId, target: person.id, reason: 'wrong current password' },
      now,
    );
    throw new WebcapError('bad_request', 'current_password is wrong');
  }
  await setPasswordHash(deps.db, person.id, await hashPassword(input.next), now);
  await deps.sessions.endEverywhereBut(session);
  await writeAudit(deps.db, actor, { action: 'user.password_change', accountId, target: person.id }, now);
}
