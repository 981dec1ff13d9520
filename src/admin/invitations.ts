import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { WebcapError } from '../errors.js';
import type { Db } from '../store/db.js';
import { newId } from '../store/ids.js';
import { audit, writeAudit } from './audit.js';
import type { AdminDeps } from './deps.js';
import { checkPassword, hashPassword } from './passwords.js';
import type { UserCredential } from './sessions.js';
import { type AccountRole, FIRST_CREDENTIAL_EPOCH, insertUser, normalizeEmail } from './users.js';

/** How long an invitation link can be used (docs/console.md). */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** What an invitation link shows whoever opens it. */
export interface Invitation {
  readonly email: string;
  readonly role: AccountRole;
  readonly account: { readonly id: string; readonly name: string; readonly slug: string };
  readonly expiresAt: string;
}

/** An invitation not yet used nor expired, as its account's owners see it: never its token. */
export interface PendingInvitation {
  readonly id: string;
  readonly email: string;
  readonly role: AccountRole;
  readonly createdAt: string;
  readonly expiresAt: string;
  /** The owner who made it; null once that user is deleted. */
  readonly invitedBy: { readonly id: string; readonly email: string; readonly name: string } | null;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Invites someone into an account (its owner, from the console): returns the one-time token of
 * the link, which only this answer holds (its SHA-256 is stored). webcap sends no email: the owner
 * hands the link over. An email that already has a console user, in any account, is invited all the
 * same: a 409 here told any owner whether anyone had a user (docs/security.md, "Invitations");
 * accepting such an invitation is what fails.
 */
export async function createInvitation(
  deps: AdminDeps,
  input: { readonly accountId: string; readonly email: string; readonly role: AccountRole },
): Promise<{ token: string; invitation: Invitation }> {
  const email = normalizeEmail(input.email);
  const now = deps.clock();
  const token = randomBytes(32).toString('base64url');
  const id = newId('inv');
  await deps.db
    .insertInto('console_invitations')
    .values({
      id,
      token_hash: hashToken(token),
      account_id: input.accountId,
      email,
      role: input.role,
      created_by: deps.actor.id,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
      accepted_at: null,
    })
    .execute();
  await audit(deps, {
    action: 'invite.create',
    accountId: input.accountId,
    target: id,
    detail: { email, role: input.role },
  });
  return { token, invitation: await showInvitation(deps.db, token, now) };
}

/** The invitation of a link at `now`; 404 when it is unknown, used, expired, or its account deactivated. */
export async function showInvitation(db: Db, token: string, now: Date): Promise<Invitation> {
  const row = await db
    .selectFrom('console_invitations')
    .innerJoin('accounts', 'accounts.id', 'console_invitations.account_id')
    .select([
      'console_invitations.email',
      'console_invitations.role',
      'console_invitations.expires_at',
      'console_invitations.accepted_at',
      'accounts.id as account_id',
      'accounts.name as account_name',
      'accounts.slug as account_slug',
      'accounts.active as account_active',
    ])
    .where('console_invitations.token_hash', '=', hashToken(token))
    .executeTakeFirst();
  if (
    row === undefined ||
    row.accepted_at !== null ||
    row.expires_at <= now.toISOString() ||
    row.account_active !== 1 ||
    row.role === 'operator'
  ) {
    throw new WebcapError('not_found', 'this invitation is unknown, used or expired');
  }
  return {
    email: row.email,
    role: row.role,
    account: { id: row.account_id, name: row.account_name, slug: row.account_slug },
    expiresAt: row.expires_at,
  };
}

/**
 * Accepts an invitation: its user is created with the password chosen, and the invitation is used
 * up, both or neither (two acceptances at once: one wins, the other is a 404). Returns the new
 * user's credential; the door signs them in with it.
 */
export async function acceptInvitation(
  deps: { readonly db: Db; readonly clock: Clock },
  token: string,
  input: { readonly name: string; readonly password: string; readonly ip: string },
): Promise<{ credential: UserCredential; invitation: Invitation }> {
  checkPassword(input.password, 'password');
  const now = deps.clock();
  const invitation = await showInvitation(deps.db, token, now);
  const passwordHash = await hashPassword(input.password, input.ip);
  const userId = await deps.db.transaction().execute(async (trx) => {
    const used = await trx
      .updateTable('console_invitations')
      .set({ accepted_at: now.toISOString() })
      .where('token_hash', '=', hashToken(token))
      .where('accepted_at', 'is', null)
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    if (used.numUpdatedRows !== 1n)
      throw new WebcapError('not_found', 'this invitation is unknown, used or expired');
    const name = input.name.trim() || (invitation.email.split('@')[0] ?? invitation.email);
    return insertUser(
      trx,
      {
        email: invitation.email,
        name,
        role: invitation.role,
        accountId: invitation.account.id,
        passwordHash,
      },
      now,
    ).catch((error: unknown) => {
      // One user per email across accounts: the person already has one and signs in with it.
      if (error instanceof WebcapError && error.code === 'conflict') throw cannotAccept(error);
      throw error;
    });
  });
  await writeAudit(
    deps.db,
    { kind: 'user', id: userId, email: invitation.email, ip: input.ip },
    {
      action: 'invite.accept',
      accountId: invitation.account.id,
      target: userId,
      detail: { role: invitation.role },
    },
    now,
  );
  return { credential: { userId, epoch: FIRST_CREDENTIAL_EPOCH }, invitation };
}

function cannotAccept(cause: WebcapError): WebcapError {
  return new WebcapError(
    'conflict',
    'this invitation cannot be accepted; an email that already has a console user signs in with it',
    { cause },
  );
}

/** The account's invitations not yet used nor expired at `now`, newest first. */
export async function listPendingInvitations(
  deps: Pick<AdminDeps, 'db' | 'clock'>,
  accountId: string,
): Promise<PendingInvitation[]> {
  const rows = await deps.db
    .selectFrom('console_invitations')
    .leftJoin('console_users', 'console_users.id', 'console_invitations.created_by')
    .select([
      'console_invitations.id',
      'console_invitations.email',
      'console_invitations.role',
      'console_invitations.created_at',
      'console_invitations.expires_at',
      'console_users.id as inviter_id',
      'console_users.email as inviter_email',
      'console_users.name as inviter_name',
    ])
    .where('console_invitations.account_id', '=', accountId)
    .where('console_invitations.accepted_at', 'is', null)
    .where('console_invitations.expires_at', '>', deps.clock().toISOString())
    .orderBy('console_invitations.created_at', 'desc')
    .orderBy('console_invitations.id', 'desc')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    // Invitations are made for an account's roles only (createInvitation).
    role: row.role as AccountRole,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    invitedBy:
      row.inviter_id === null
        ? null
        : { id: row.inviter_id, email: row.inviter_email ?? '', name: row.inviter_name ?? '' },
  }));
}

/**
 * Withdraws a pending invitation of the account (its owner, from the console): the row goes, so
 * its link is unknown from then on. 404 for another account's, an unknown, a used or an expired
 * one; of a withdrawal and an acceptance at once, one wins and the other is a 404.
 */
export async function withdrawInvitation(
  deps: AdminDeps,
  input: { readonly accountId: string; readonly id: string },
): Promise<void> {
  const now = deps.clock().toISOString();
  const withdrawn = await deps.db
    .deleteFrom('console_invitations')
    .where('id', '=', input.id)
    .where('account_id', '=', input.accountId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['email', 'role'])
    .executeTakeFirst();
  if (withdrawn === undefined) throw new WebcapError('not_found', `no pending invitation ${input.id}`);
  await audit(deps, {
    action: 'invite.withdraw',
    accountId: input.accountId,
    target: input.id,
    detail: { email: withdrawn.email, role: withdrawn.role },
  });
}

/** Deletes the invitations past their expiry, used or not (the upkeep's): nothing can use them any more. */
export async function pruneInvitations(db: Db, now: Date): Promise<void> {
  await db.deleteFrom('console_invitations').where('expires_at', '<=', now.toISOString()).execute();
}
