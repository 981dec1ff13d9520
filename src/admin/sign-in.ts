import { fromAccountRow } from '../billing/accounts.js';
import type { Clock } from '../clock.js';
import { WebcapError } from '../errors.js';
import type { Db } from '../store/db.js';
import { type Actor, writeAudit } from './audit.js';
import type { QueuePlace } from './password-queue.js';
import { checkPassword, hashPassword, passwordPlace, verifyPassword } from './passwords.js';
import type { ConsoleSession, ConsoleSessions, SignedIn } from './sessions.js';
import { type Attempt, giveBack, type Lock, locksOf, type Slots, takeSlots } from './sign-in-throttle.js';
import { findUserRowByEmail, setPasswordHash } from './users.js';

/** What signing in needs, whichever door it comes through. */
export interface SignInDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly sessions: ConsoleSessions;
}

/** What a checked attempt found: right, or wrong with the locks its failure starts. */
type Checked = { readonly right: true } | { readonly right: false; readonly locks: Lock[] };

/**
 * Checks one attempt within the brute-force bounds: a place in the password queue (503 when it is
 * full), then the attempt's slots under its email and address (401 with Retry-After while either
 * is locked), then `check` in the place's turn. A right attempt, or one whose check did not end,
 * gives its slots back; a wrong one keeps them, and the locks they set hold.
 */
async function checkAttempt(
  deps: SignInDeps,
  attempt: Attempt,
  now: Date,
  check: (place: QueuePlace) => Promise<boolean>,
): Promise<Checked> {
  const place = passwordPlace(attempt.ip);
  let slots: Slots | undefined;
  let failed = false;
  try {
    const admission = await takeSlots(deps.db, attempt, now);
    if (!admission.admitted) {
      throw new WebcapError('unauthorized', 'too many failed sign-ins; try again later', {
        retryAfterSeconds: admission.lockedForSeconds,
      });
    }
    slots = admission.slots;
    failed = !(await check(place));
    return failed ? { right: false, locks: locksOf(slots) } : { right: true };
  } finally {
    place.leave();
    if (slots !== undefined && !failed) await giveBack(deps.db, slots);
  }
}

/** Writes a failed attempt, and each lock its failure starts, to the audit log. */
async function auditFailure(
  deps: SignInDeps,
  actor: Actor,
  event: { accountId: string | null; target: string | null; reason: string; locks: readonly Lock[] },
  now: Date,
): Promise<void> {
  const { accountId, target } = event;
  await writeAudit(
    deps.db,
    actor,
    { action: 'session.sign_in_failed', accountId, target, detail: { reason: event.reason } },
    now,
  );
  for (const lock of event.locks) {
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
 * wrong, or while the email or the address is locked by failures (with Retry-After); 503 while
 * the password queue is full; 403 for a deactivated user or account, told only to whoever knows
 * the password. An unknown email costs the time of a password check, as a wrong password does.
 * The session opens only if the password checked is still the user's.
 */
export async function signInWithPassword(
  deps: SignInDeps,
  input: { readonly email: string; readonly password: string; readonly ip: string },
): Promise<SignedIn> {
  const { db } = deps;
  const now = deps.clock();
  const email = input.email.trim().toLowerCase();
  const user = await findUserRowByEmail(db, email);
  const actor: Actor = { kind: 'user', id: user?.id ?? null, email, ip: input.ip };
  const checked = await checkAttempt(deps, { email, ip: input.ip }, now, (place) =>
    verifyPassword(place, user?.password_hash ?? null, input.password),
  );
  if (!checked.right || user === undefined) {
    const locks = checked.right ? [] : checked.locks;
    const event =
      user === undefined
        ? { accountId: null, target: null, reason: 'unknown email', locks }
        : { accountId: user.account_id, target: user.id, reason: 'wrong password', locks };
    await auditFailure(deps, actor, event, now);
    throw new WebcapError('unauthorized', 'email or password is wrong');
  }
  if (user.active !== 1) throw new WebcapError('forbidden', 'this user is deactivated');
  if (user.account_id !== null) {
    const account = await db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', user.account_id)
      .executeTakeFirstOrThrow();
    if (!fromAccountRow(account).active) throw new WebcapError('forbidden', 'account deactivated');
  }
  const signedIn = await deps.sessions.start({ userId: user.id, epoch: user.credential_epoch });
  if (signedIn === undefined) {
    // The password was changed or reset (or the user deactivated) while it was being checked.
    const event = {
      accountId: user.account_id,
      target: user.id,
      reason: 'password changed meanwhile',
      locks: [],
    };
    await auditFailure(deps, actor, event, now);
    throw new WebcapError('unauthorized', 'email or password is wrong');
  }
  await db
    .updateTable('console_users')
    .set({ last_sign_in_at: now.toISOString() })
    .where('id', '=', user.id)
    .execute();
  await writeAudit(
    db,
    actor,
    { action: 'session.sign_in', accountId: user.account_id, target: user.id },
    now,
  );
  return signedIn;
}

/**
 * Signs the operator in with WEBCAP_ADMIN_TOKEN: 401 when it is wrong (or unset), or while the
 * address is locked; 503 while the password queue is full.
 */
export async function signInWithAdminToken(
  deps: SignInDeps,
  input: { readonly token: string; readonly ip: string },
): Promise<SignedIn> {
  const now = deps.clock();
  const actor: Actor = { kind: 'admin_token', id: null, email: null, ip: input.ip };
  const checked = await checkAttempt(deps, { ip: input.ip }, now, async (place) => {
    if (deps.sessions.isAdminToken(input.token)) return true;
    return verifyPassword(place, null, input.token);
  });
  if (!checked.right) {
    const event = { accountId: null, target: null, reason: 'wrong admin token', locks: checked.locks };
    await auditFailure(deps, actor, event, now);
    throw new WebcapError('unauthorized', 'admin token is wrong');
  }
  const signedIn = await deps.sessions.start(null);
  if (signedIn === undefined) throw new Error('an admin-token session just opened could not be read');
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
 * Changes a signed-in user's own password: the current one must be right, checked as a sign-in
 * of their email is (a wrong one counts as a failure, a lock refuses it, the queue bounds it);
 * their other sessions end, and so does any a sign-in is opening, while this one stays. 409 when
 * the password was changed or reset meanwhile. The admin token has no password to change (403).
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
  const user = await findUserRowByEmail(deps.db, person.email);
  const actor = sessionActor(session, input.ip);
  const accountId = person.account?.id ?? null;
  const checked = await checkAttempt(deps, { email: person.email, ip: input.ip }, now, (place) =>
    verifyPassword(place, user?.password_hash ?? null, input.current),
  );
  if (!checked.right || user === undefined) {
    const locks = checked.right ? [] : checked.locks;
    await auditFailure(
      deps,
      actor,
      { accountId, target: person.id, reason: 'wrong current password', locks },
      now,
    );
    throw new WebcapError('bad_request', 'current_password is wrong');
  }
  const hash = await hashPassword(input.next, input.ip);
  const options = { keep: session.id, expectedEpoch: user.credential_epoch };
  if (!(await setPasswordHash(deps.db, person.id, hash, now, options))) {
    throw new WebcapError('conflict', 'the password was changed meanwhile');
  }
  await writeAudit(deps.db, actor, { action: 'user.password_change', accountId, target: person.id }, now);
}
