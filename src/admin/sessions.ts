import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { type Account, fromAccountRow } from '../billing/accounts.js';
import type { Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import type { ConsoleRole } from '../store/schema.js';
import { pruneInvitations } from './invitations.js';
import { pruneFailures } from './sign-in-throttle.js';

/** Who a session belongs to: a console user, or the operator signed in with the admin token (no id, no email). */
export interface SessionPerson {
  readonly id: string | null;
  readonly email: string | null;
  readonly name: string;
  readonly role: ConsoleRole;
  /** The account of an owner or member; null for an operator. */
  readonly account: Account | null;
}

/** A live console session. */
export interface ConsoleSession {
  /** SHA-256 of its token: the row's id. */
  readonly id: string;
  readonly person: SessionPerson;
  /** When it ends unless used again: the earlier of its idle and its absolute expiry. */
  readonly expiresAt: Date;
}

export interface SessionSettings {
  /** CONSOLE_SESSION_IDLE_MINUTES. */
  readonly idleMs: number;
  /** CONSOLE_SESSION_MAX_HOURS. */
  readonly maxMs: number;
  /** The service's signing secret: the CSRF tokens and the admin token's digest are keyed with it. */
  readonly signingSecret: string;
  /** WEBCAP_ADMIN_TOKEN; null: nobody signs in with a token, and sessions opened with one end. */
  readonly adminToken: string | null;
}

/** The credential a sign-in was checked against: the user and their credential epoch then. */
export interface UserCredential {
  readonly userId: string;
  readonly epoch: number;
}

/** A session just opened and its token, which goes into the cookie and nowhere else. */
export interface SignedIn {
  readonly token: string;
  readonly session: ConsoleSession;
}

/** A session's last use is written at most this often: a page's many requests cost one write. */
const TOUCH_EVERY_MS = 60_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function equalText(a: string, b: string): boolean {
  // Digests have equal lengths whatever was sent, so the comparison takes the same time.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** Ends every session of a user (password changed or reset, user deactivated or deleted), but `except`. */
export async function endSessionsOfUser(db: Db, userId: string, except?: string): Promise<void> {
  let query = db.deleteFrom('console_sessions').where('user_id', '=', userId);
  if (except !== undefined) query = query.where('id', '!=', except);
  await query.execute();
}

/**
 * Deletes the sessions past their end or idle too long, the sign-in failures no lock or count
 * needs any more, and the invitations past their expiry (the upkeep's, periodically): the tables
 * hold live rows only.
 */
export async function pruneConsoleRows(db: Db, now: Date, idleMs: number): Promise<void> {
  const stamp = now.toISOString();
  await db
    .deleteFrom('console_sessions')
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', stamp),
        eb('last_seen_at', '<=', new Date(now.getTime() - idleMs).toISOString()),
      ]),
    )
    .execute();
  await pruneFailures(db, now);
  await pruneInvitations(db, now);
}

/**
 * The console's sessions, kept as rows so that any process serves any session: a random token
 * in the cookie, only its SHA-256 stored; an idle and an absolute expiry; the CSRF token of each
 * (an HMAC of its token under the service's signing secret, so it is never stored either).
 */
export class ConsoleSessions {
  private readonly adminTokenDigest: string | null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SessionSettings,
  ) {
    this.adminTokenDigest =
      settings.adminToken === null ? null : this.keyed('admin token', settings.adminToken);
  }

  private keyed(purpose: string, value: string): string {
    return createHmac('sha256', this.settings.signingSecret)
      .update(`webcap console ${purpose}\n${value}`)
      .digest('base64url');
  }

  /** Whether `given` is WEBCAP_ADMIN_TOKEN (false when none is set), compared in constant time. */
  isAdminToken(given: string): boolean {
    return this.settings.adminToken !== null && equalText(given, this.settings.adminToken);
  }

  /**
   * Opens a session for a user, or (null) for the admin token; returns its token, for the cookie
   * only. A user's session opens only while the credential it was checked against is still theirs
   * (the same epoch, the user active), in the one statement that inserts it; undefined otherwise.
   */
  async start(credential: UserCredential | null): Promise<SignedIn | undefined> {
    const now = this.clock();
    const token = randomBytes(32).toString('base64url');
    const row = {
      id: sha256(token),
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.settings.maxMs).toISOString(),
    };
    if (credential === null) {
      await this.db
        .insertInto('console_sessions')
        .values({ ...row, user_id: null, admin_token_digest: this.adminTokenDigest, credential_epoch: null })
        .execute();
    } else {
      const text = (value: string) => sql<string>`cast(${value} as text)`;
      const inserted = await this.db
        .insertInto('console_sessions')
        .columns([
          'id',
          'user_id',
          'admin_token_digest',
          'credential_epoch',
          'created_at',
          'last_seen_at',
          'expires_at',
        ])
        .expression(
          this.db
            .selectFrom('console_users')
            .select([
              text(row.id).as('id'),
              'console_users.id as user_id',
              sql<null>`null`.as('admin_token_digest'),
              'console_users.credential_epoch',
              text(row.created_at).as('created_at'),
              text(row.last_seen_at).as('last_seen_at'),
              text(row.expires_at).as('expires_at'),
            ])
            .where('console_users.id', '=', credential.userId)
            .where('console_users.credential_epoch', '=', credential.epoch)
            .where('console_users.active', '=', 1),
        )
        .executeTakeFirst();
      if (inserted.numInsertedOrUpdatedRows !== 1n) return undefined;
    }
    const session = await this.find(token);
    return session === undefined ? undefined : { token, session };
  }

  /**
   * The live session of a cookie's token, its last use recorded; undefined when there is none:
   * unknown, idle or past its end, its user or account deactivated, its user's password changed
   * or reset since it was opened (another credential epoch), or opened with an admin token
   * that is no longer the configured one (an ended session's row is deleted).
   */
  async find(token: string | undefined): Promise<ConsoleSession | undefined> {
    if (token === undefined || !TOKEN.test(token)) return undefined;
    const id = sha256(token);
    const row = await this.db
      .selectFrom('console_sessions')
      .leftJoin('console_users', 'console_users.id', 'console_sessions.user_id')
      .select([
        'console_sessions.user_id',
        'console_sessions.admin_token_digest',
        'console_sessions.last_seen_at',
        'console_sessions.expires_at',
        'console_sessions.credential_epoch',
        'console_users.credential_epoch as user_epoch',
        'console_users.email',
        'console_users.name',
        'console_users.role',
        'console_users.active as user_active',
        'console_users.account_id',
      ])
      .where('console_sessions.id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const now = this.clock();
    const idleEnd = Date.parse(row.last_seen_at) + this.settings.idleMs;
    const end = Date.parse(row.expires_at);
    const account = row.account_id === null ? null : await this.account(row.account_id);
    let person: SessionPerson | undefined;
    if (row.user_id === null) {
      const digest = row.admin_token_digest;
      if (digest !== null && this.adminTokenDigest !== null && equalText(digest, this.adminTokenDigest)) {
        person = { id: null, email: null, name: 'Operator', role: 'operator', account: null };
      }
    } else if (
      row.user_active === 1 &&
      row.credential_epoch === row.user_epoch &&
      row.email !== null &&
      row.role !== null &&
      (row.account_id === null || account?.active === true)
    ) {
      person = { id: row.user_id, email: row.email, name: row.name ?? '', role: row.role, account };
    }
    if (person === undefined || now.getTime() >= idleEnd || now.getTime() >= end) {
      await this.end(id);
      return undefined;
    }
    if (now.getTime() - Date.parse(row.last_seen_at) >= TOUCH_EVERY_MS) {
      await this.db
        .updateTable('console_sessions')
        .set({ last_seen_at: now.toISOString() })
        .where('id', '=', id)
        .execute();
    }
    return { id, person, expiresAt: new Date(Math.min(end, now.getTime() + this.settings.idleMs)) };
  }

  private async account(id: string): Promise<Account | null> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : fromAccountRow(row);
  }

  /** Ends one session (sign-out). */
  async end(id: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('id', '=', id).execute();
  }

  /** Ends every session of the session's person: the user's, or every admin-token session. */
  async endEverywhere(session: ConsoleSession): Promise<void> {
    if (session.person.id !== null) {
      await endSessionsOfUser(this.db, session.person.id);
      return;
    }
    await this.db.deleteFrom('console_sessions').where('user_id', 'is', null).execute();
  }

  /** The CSRF token of a session's token: what the page sends back in x-csrf-token. */
  csrfToken(token: string): string {
    return this.keyed('csrf', token);
  }

  /** Whether `given` is the session token's CSRF token, compared in constant time. */
  csrfMatches(token: string, given: string | undefined): boolean {
    return given !== undefined && equalText(given, this.csrfToken(token));
  }
}
