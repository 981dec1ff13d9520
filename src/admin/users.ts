import { Type } from 'typebox';
import { getAccountBySlug } from '../billing/accounts.js';
import { invalidParam, WebcapError } from '../errors.js';
import { type Db, unlessTaken } from '../store/db.js';
import { newId } from '../store/ids.js';
import type { ConsoleRole, ConsoleUsersTable } from '../store/schema.js';
import type { Actor } from './audit.js';
import { audit, given } from './audit.js';
import type { AdminDeps } from './deps.js';
import { checkPassword, generatePassword, hashPassword } from './passwords.js';
import { endSessionsOfUser } from './sessions.js';

/** A console user as the operations return it; never the password or its hash. */
export interface ConsoleUser {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: ConsoleRole;
  readonly active: boolean;
  /** Null for operators. */
  readonly account: { readonly id: string; readonly name: string; readonly slug: string } | null;
  readonly createdAt: string;
  readonly lastSignInAt: string | null;
}

/** Owners and members belong to an account; operators to none. */
export type AccountRole = Exclude<ConsoleRole, 'operator'>;

/** The roles as parameters and answers name them: an account's owner or member, or an operator (no account). */
export const RoleSchema = Type.Enum(['owner', 'member', 'operator']);

/** The roles an account's people can have. */
export const AccountRoleSchema = Type.Enum(['owner', 'member']);

/** The account a door may act in: an owner acts on the users of their account only (others are 404). */
export interface UserScope {
  readonly accountId: string;
}

export interface NewUser {
  readonly email: string;
  readonly name?: string;
  readonly role: ConsoleRole;
  /** Required for an owner or member; absent for an operator. */
  readonly accountSlug?: string;
  /** Chosen by the operator; absent: one is generated and returned once. */
  readonly password?: string;
}

export interface UserPatch {
  readonly name?: string;
  readonly role?: ConsoleRole;
  readonly active?: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const EMAIL_MAX_CHARS = 254;

/** The email as stored: trimmed and lower case (emails are case-insensitive here); a 400 naming `param` when it is not one. */
export function normalizeEmail(raw: string, param = 'email'): string {
  const email = raw.trim().toLowerCase();
  if (email.length > EMAIL_MAX_CHARS || !EMAIL.test(email)) {
    throw invalidParam(param, 'must be an email address');
  }
  return email;
}

/** A display name: trimmed, or the email's local part when none is given. */
function nameOf(name: string | undefined, email: string): string {
  return name?.trim() || (email.split('@')[0] ?? email);
}

/** A new user's credential epoch: their first password's. */
export const FIRST_CREDENTIAL_EPOCH = 0;

type UserRow = ConsoleUsersTable & { account_name: string | null; account_slug: string | null };

function usersQuery(db: Db) {
  return db
    .selectFrom('console_users')
    .leftJoin('accounts', 'accounts.id', 'console_users.account_id')
    .selectAll('console_users')
    .select(['accounts.name as account_name', 'accounts.slug as account_slug']);
}

function fromUserRow(row: UserRow): ConsoleUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    active: row.active === 1,
    account:
      row.account_id === null
        ? null
        : { id: row.account_id, name: row.account_name ?? '', slug: row.account_slug ?? '' },
    createdAt: row.created_at,
    lastSignInAt: row.last_sign_in_at,
  };
}

/** The user with this id (within the scope, when one is given); not_found otherwise. */
export async function getUser(db: Db, id: string, scope?: UserScope): Promise<ConsoleUser> {
  const row = await usersQuery(db).where('console_users.id', '=', id).executeTakeFirst();
  if (row === undefined || (scope !== undefined && row.account_id !== scope.accountId)) {
    throw new WebcapError('not_found', `no user ${id}`);
  }
  return fromUserRow(row);
}

/** The user's row with its hash, by email; undefined when nobody has it. */
export function findUserRowByEmail(db: Db, email: string): Promise<ConsoleUsersTable | undefined> {
  return db.selectFrom('console_users').selectAll().where('email', '=', email).executeTakeFirst();
}

/** Whose place in the password queue an operation takes: the client's address, or the door's kind (the CLI). */
export function queueSourceOf(actor: Pick<Actor, 'kind' | 'ip'>): string {
  return actor.ip ?? actor.kind;
}

/** A 409 unless nobody has this email yet. */
export async function checkEmailFree(db: Db, email: string): Promise<void> {
  if ((await findUserRowByEmail(db, email)) !== undefined) {
    throw new WebcapError('conflict', `a user with email ${email} exists`);
  }
}

/** Stores a user whose password is already hashed; a taken email is a 409. */
export async function insertUser(
  db: Db,
  user: {
    readonly email: string;
    readonly name: string;
    readonly role: ConsoleRole;
    readonly accountId: string | null;
    readonly passwordHash: string;
  },
  now: Date,
): Promise<string> {
  const stamp = now.toISOString();
  const id = newId('usr');
  await unlessTaken(
    () =>
      db
        .insertInto('console_users')
        .values({
          id,
          account_id: user.accountId,
          email: user.email,
          name: user.name,
          role: user.role,
          password_hash: user.passwordHash,
          active: 1,
          created_at: stamp,
          updated_at: stamp,
          last_sign_in_at: null,
          credential_epoch: FIRST_CREDENTIAL_EPOCH,
        })
        .execute(),
    `a user with email ${user.email} exists`,
  );
  return id;
}

/** The account a role needs: one for an owner or member, none for an operator (400 otherwise). */
async function accountForRole(db: Db, role: ConsoleRole, accountSlug: string | undefined) {
  if (role === 'operator') {
    if (accountSlug !== undefined) throw invalidParam('account', 'must not be given for an operator');
    return null;
  }
  if (accountSlug === undefined) throw invalidParam('account', `is required for an ${role}`);
  return getAccountBySlug(db, accountSlug);
}

/**
 * Creates a user (operators: CLI, admin API, operator console). Without a password one is
 * generated and returned, once; a taken email is a 409.
 */
export async function createUser(
  deps: AdminDeps,
  input: NewUser,
): Promise<{ user: ConsoleUser; password: string | null }> {
  const email = normalizeEmail(input.email);
  if (input.password !== undefined) checkPassword(input.password, 'password');
  const account = await accountForRole(deps.db, input.role, input.accountSlug);
  const password = input.password ?? generatePassword();
  const id = await insertUser(
    deps.db,
    {
      email,
      name: nameOf(input.name, email),
      role: input.role,
      accountId: account?.id ?? null,
      passwordHash: await hashPassword(password, queueSourceOf(deps.actor)),
    },
    deps.clock(),
  );
  await audit(deps, {
    action: 'user.create',
    accountId: account?.id ?? null,
    target: id,
    detail: { email, role: input.role },
  });
  return { user: await getUser(deps.db, id), password: input.password === undefined ? password : null };
}

/** Every user, or those of one account (not_found when it does not exist), oldest first. */
export async function listUsers(
  deps: Pick<AdminDeps, 'db'>,
  filter: { readonly accountSlug?: string; readonly accountId?: string } = {},
): Promise<ConsoleUser[]> {
  let query = usersQuery(deps.db).orderBy('console_users.created_at').orderBy('console_users.id');
  if (filter.accountSlug !== undefined) {
    const account = await getAccountBySlug(deps.db, filter.accountSlug);
    query = query.where('console_users.account_id', '=', account.id);
  }
  if (filter.accountId !== undefined) query = query.where('console_users.account_id', '=', filter.accountId);
  return (await query.execute()).map(fromUserRow);
}

/** How many console users each account has, by account id. */
export async function countUsersByAccount(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('console_users')
    .select((eb) => ['account_id', eb.fn.countAll<number>().as('n')])
    .where('account_id', 'is not', null)
    .groupBy('account_id')
    .execute();
  return new Map(rows.flatMap((row) => (row.account_id === null ? [] : [[row.account_id, Number(row.n)]])));
}

/**
 * Runs `change` with the account's lock held (the bump of lock_seq that reservations take too),
 * after checking that an active owner would remain: the last active owner of an account cannot
 * be demoted, deactivated or deleted (409), even by two owners acting at once.
 */
async function keepingAnOwner(
  deps: AdminDeps,
  user: ConsoleUser,
  losesOwner: boolean,
  change: (db: Db) => Promise<void>,
): Promise<void> {
  if (user.account === null || user.role !== 'owner' || !user.active || !losesOwner) {
    await change(deps.db);
    return;
  }
  const accountId = user.account.id;
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('accounts')
      .set((eb) => ({ lock_seq: eb('lock_seq', '+', 1) }))
      .where('id', '=', accountId)
      .execute();
    const others = await trx
      .selectFrom('console_users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('role', '=', 'owner')
      .where('active', '=', 1)
      .where('id', '!=', user.id)
      .executeTakeFirstOrThrow();
    if (Number(others.n) === 0) {
      throw new WebcapError('conflict', 'the account would be left without an active owner');
    }
    await change(trx);
  });
}

/**
 * Applies the fields present in the patch. A role moves within an account (owner, member) or stays
 * operator; a user made inactive has their sessions ended.
 */
export async function updateUser(
  deps: AdminDeps,
  id: string,
  patch: UserPatch,
  scope?: UserScope,
): Promise<ConsoleUser> {
  const user = await getUser(deps.db, id, scope);
  if (patch.role !== undefined && (patch.role === 'operator') !== (user.role === 'operator')) {
    throw invalidParam('role', "cannot move between operator and an account's roles");
  }
  const name = patch.name?.trim();
  if (name === '') throw invalidParam('name', 'must not be empty');
  const losesOwner = (patch.role !== undefined && patch.role !== 'owner') || patch.active === false;
  const changes: Partial<ConsoleUsersTable> = { updated_at: deps.clock().toISOString() };
  if (name !== undefined) changes.name = name;
  if (patch.role !== undefined) changes.role = patch.role;
  if (patch.active !== undefined) changes.active = patch.active ? 1 : 0;
  await keepingAnOwner(deps, user, losesOwner, async (db) => {
    await db
      .updateTable('console_users')
      // Deactivation moves the credential on: a session opened by a sign-in racing it never lives.
      .set((eb) =>
        patch.active === false ? { ...changes, credential_epoch: eb('credential_epoch', '+', 1) } : changes,
      )
      .where('id', '=', id)
      .execute();
    if (patch.active === false) await endSessionsOfUser(db, id);
  });
  await audit(deps, {
    action: 'user.update',
    accountId: user.account?.id ?? null,
    target: id,
    detail: given({ name, role: patch.role, active: patch.active }),
  });
  return getUser(deps.db, id);
}

/** Deletes a user and their sessions; the last active owner stays (409). */
export async function deleteUser(deps: AdminDeps, id: string, scope?: UserScope): Promise<void> {
  const user = await getUser(deps.db, id, scope);
  await keepingAnOwner(deps, user, true, async (db) => {
    await endSessionsOfUser(db, id);
    await db.deleteFrom('console_users').where('id', '=', id).execute();
  });
  await audit(deps, {
    action: 'user.delete',
    accountId: user.account?.id ?? null,
    target: id,
    detail: { email: user.email },
  });
}

/**
 * Sets a user's password (the operator's reset): the one given, or a generated one returned once.
 * Every session of the user ends, and any a sign-in is opening.
 */
export async function resetPassword(
  deps: AdminDeps,
  id: string,
  password?: string,
): Promise<{ user: ConsoleUser; password: string | null }> {
  if (password !== undefined) checkPassword(password, 'password');
  const user = await getUser(deps.db, id);
  const chosen = password ?? generatePassword();
  const hash = await hashPassword(chosen, queueSourceOf(deps.actor));
  await setPasswordHash(deps.db, id, hash, deps.clock());
  await audit(deps, { action: 'user.password_reset', accountId: user.account?.id ?? null, target: id });
  return { user, password: password === undefined ? chosen : null };
}

/**
 * Stores a new password hash for the user and moves their credential epoch on, in one transaction
 * with the end of their sessions but `keep` (the session changing its own password, which moves
 * to the new epoch). With `expectedEpoch`, only while the credential is still that one: false
 * when it has changed meanwhile, and nothing is written.
 */
export async function setPasswordHash(
  db: Db,
  id: string,
  passwordHash: string,
  now: Date,
  options: { readonly keep?: string; readonly expectedEpoch?: number } = {},
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    let update = trx
      .updateTable('console_users')
      .set((eb) => ({
        password_hash: passwordHash,
        updated_at: now.toISOString(),
        credential_epoch: eb('credential_epoch', '+', 1),
      }))
      .where('id', '=', id);
    if (options.expectedEpoch !== undefined)
      update = update.where('credential_epoch', '=', options.expectedEpoch);
    const row = await update.returning('credential_epoch').executeTakeFirst();
    if (row === undefined) return false;
    if (options.keep !== undefined) {
      await trx
        .updateTable('console_sessions')
        .set({ credential_epoch: row.credential_epoch })
        .where('id', '=', options.keep)
        .where('user_id', '=', id)
        .execute();
    }
    await endSessionsOfUser(trx, id, options.keep);
    return true;
  });
}
