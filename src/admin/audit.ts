import { getAccountBySlug } from '../billing/accounts.js';
import type { Db } from '../store/db.js';
import { timeOrderedId } from '../store/ids.js';
import { olderThan, type Page, type PageRequest, pageOf } from '../store/pages.js';
import type { AuditLogTable } from '../store/schema.js';
import type { AdminDeps } from './deps.js';

/** Who acts: a console user, the admin token in the console, the admin API, or the CLI. */
export interface Actor {
  readonly kind: AuditLogTable['actor_kind'];
  /** The console user's id; null for the other kinds. */
  readonly id: string | null;
  readonly email: string | null;
  /** The client's address; null from the CLI. */
  readonly ip: string | null;
}

/** `webcap admin ...`: whoever has a shell and the database. */
export const CLI_ACTOR: Actor = { kind: 'cli', id: null, email: null, ip: null };

/** The admin API, behind WEBCAP_ADMIN_TOKEN. */
export function adminApiActor(ip: string): Actor {
  return { kind: 'admin_api', id: null, email: null, ip };
}

/** What the audit log records (docs/console.md, "Audit log"). */
export type AuditAction =
  | 'session.sign_in'
  | 'session.sign_in_failed'
  | 'session.sign_in_locked'
  | 'session.sign_out'
  | 'session.sign_out_everywhere'
  | 'user.password_change'
  | 'user.create'
  | 'user.update'
  | 'user.password_reset'
  | 'user.delete'
  | 'invite.create'
  | 'invite.accept'
  | 'invite.withdraw'
  | 'key.create'
  | 'key.update'
  | 'key.revoke'
  | 'key.rotate_signing_secret'
  | 'webhook_secret.show'
  | 'webhook_secret.rotate'
  | 'job.cancel'
  | 'crawl.cancel'
  | 'batch.cancel'
  | 'account.create'
  | 'account.update'
  | 'pack.add'
  | 'credits.grant';

/** One thing done. `detail` holds plain facts: never a password, a key or a token. */
export interface AuditEvent {
  readonly action: AuditAction;
  readonly accountId: string | null;
  readonly target: string | null;
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** A row of the audit log with its account's slug. */
export interface AuditEntry {
  readonly id: string;
  readonly at: string;
  readonly actor: Omit<Actor, 'ip'>;
  readonly accountSlug: string | null;
  readonly action: string;
  readonly target: string | null;
  readonly ip: string | null;
  readonly detail: Record<string, unknown>;
}

/** The fields of an input that were given, named as the API names them (snake_case), for `detail`. */
export function given(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]),
  );
}

/** Writes one event done by `actor` at `now`. */
export async function writeAudit(db: Db, actor: Actor, event: AuditEvent, now: Date): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: timeOrderedId('aud', now.getTime()),
      created_at: now.toISOString(),
      actor_kind: actor.kind,
      actor_id: actor.id,
      actor_email: actor.email,
      account_id: event.accountId,
      action: event.action,
      target: event.target,
      ip: actor.ip,
      detail: JSON.stringify(event.detail ?? {}),
    })
    .execute();
}

export interface AuditFilter {
  /** Only this account's events. */
  readonly accountId?: string;
  readonly action?: string;
}

/** A page of the audit log, newest first. */
export async function listAudit(db: Db, filter: AuditFilter, page: PageRequest): Promise<Page<AuditEntry>> {
  let query = db
    .selectFrom('audit_log')
    .leftJoin('accounts', 'accounts.id', 'audit_log.account_id')
    .selectAll('audit_log')
    .select('accounts.slug as account_slug')
    .orderBy('audit_log.created_at', 'desc')
    .orderBy('audit_log.id', 'desc')
    .limit(page.limit + 1);
  if (filter.accountId !== undefined) query = query.where('audit_log.account_id', '=', filter.accountId);
  if (filter.action !== undefined) query = query.where('audit_log.action', '=', filter.action);
  if (page.before !== undefined) {
    query = query.where(olderThan('audit_log.created_at', 'audit_log.id', page.before));
  }
  const rows = await query.execute();
  return pageOf(
    rows,
    page.limit,
    (row) => ({ at: row.created_at, id: row.id }),
    (row) => ({
      id: row.id,
      at: row.created_at,
      actor: { kind: row.actor_kind, id: row.actor_id, email: row.actor_email },
      accountSlug: row.account_slug,
      action: row.action,
      target: row.target,
      ip: row.ip,
      detail: JSON.parse(row.detail) as Record<string, unknown>,
    }),
  );
}

/** Writes an event done by the operation's actor, now. */
export function audit(deps: AdminDeps, event: AuditEvent): Promise<void> {
  return writeAudit(deps.db, deps.actor, event, deps.clock());
}

/** The audit log, or one account's (not_found when it does not exist), filtered by action, a page at a time. */
export async function readAudit(
  deps: Pick<AdminDeps, 'db'>,
  filter: { readonly accountSlug?: string; readonly action?: string },
  page: PageRequest,
): Promise<Page<AuditEntry>> {
  const accountId =
    filter.accountSlug === undefined ? undefined : (await getAccountBySlug(deps.db, filter.accountSlug)).id;
  return listAudit(deps.db, { accountId, action: filter.action }, page);
}

/** What anyone can add to the audit log without an account: kept for a retention, not for good. */
const SIGN_IN_REFUSALS = [
  'session.sign_in_failed',
  'session.sign_in_locked',
] as const satisfies readonly AuditAction[];

/**
 * Deletes the audit rows of failed sign-ins and of the locks they started that are older than
 * `retentionMs` at `now`; returns how many. Every other action is kept for good.
 */
export async function pruneSignInRefusals(db: Db, now: Date, retentionMs: number): Promise<number> {
  const result = await db
    .deleteFrom('audit_log')
    .where('action', 'in', SIGN_IN_REFUSALS)
    .where('created_at', '<', new Date(now.getTime() - retentionMs).toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
