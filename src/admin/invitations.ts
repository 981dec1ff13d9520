import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { WebcapError } from '../errors.js';
import type { Db } from '../store/db.js';
import { newId } from '../store/ids.js';
import { audit, writeAudit } from './audit.js';
import type { AdminDeps } from './deps.js';
import { checkPassword, hashPassword } from './passwords.js';
import { type AccountRole, checkEmailFree, insertUser, normalizeEmail } from './users.js';

/** How long an invitation link can be used (docs/console.md). */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** What an invitation link shows whoever opens it. */
export interface Invitation {
  readonly email: string;
  readonly role: AccountRole;
  readonly account: { readonly id: string; readonly name: string; readonly slug: string };
  readonly expiresAt: string;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Invites someone into an account (its owner, from the console): returns the one-time token of
 * the link, which only this answer holds (its SHA-256 is stored). An email that already has a user
 * is a 409. webcap sends no email: the owner hands the link over.
 */
export async function createInvitation(
  deps: AdminDeps,
  input: { readonly accountId: string; readonly email: string; readonly role: AccountRole },
): Promise<{ token: string; invitation: Invitation }> {
  const email = normalizeEmail(input.email);
  await checkEmailFree(deps.db, email);
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
 * user's id; the door signs them in.
 */
export async function acceptInvitation(
  deps: { readonly db: Db; readonly clock: Clock },
  token: string,
  input: { readonly name: string; readonly password: string; readonly ip: string },
): Promise<{ userId: string; invitation: Invitation }> {
  checkPassword(input.password, 'password');
  const now = deps.clock();
  const invitation = await showInvitation(deps.db, token, now);
  const passwordHash = await hashPassword(input.password);
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
    );
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
  return { userId, invitation };
}
