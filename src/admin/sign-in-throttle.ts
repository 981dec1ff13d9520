import { sql } from 'kysely';
import type { Db } from '../store/db.js';

/*
 * Failed sign-ins, counted in the database so that every process sees the same counts
 * (docs/console.md, "Brute force"): per email, 5 failures in a row lock it for 30 s, doubling
 * with each further failure up to 15 min; per client address, 30 failures within 15 min lock it
 * for 15 min. A lock refuses even the right password; attempts refused by a lock are not
 * counted (they were never checked), so a lock ends when its time is up.
 */

interface Rule {
  /** Failures counted together: an email's run restarts after a day, an address's after 15 min. */
  readonly windowMs: number;
  /** How long the `failures`-th failure locks the subject for; 0: not yet. */
  readonly lockMs: (failures: number) => number;
}

const MINUTE = 60_000;
const MAX_LOCK_MS = 15 * MINUTE;

const EMAIL: Rule = {
  windowMs: 24 * 60 * MINUTE,
  lockMs: (failures) => (failures < 5 ? 0 : Math.min(30_000 * 2 ** Math.min(failures - 5, 20), MAX_LOCK_MS)),
};

const ADDRESS: Rule = {
  windowMs: 15 * MINUTE,
  lockMs: (failures) => (failures < 30 ? 0 : MAX_LOCK_MS),
};

/** The subjects a sign-in attempt is counted under. */
export interface Attempt {
  /** The email tried; absent for the admin token. */
  readonly email?: string;
  readonly ip: string;
}

/** A lock a failure started. */
export interface Lock {
  readonly scope: 'email' | 'address';
  readonly until: Date;
}

function subjects(attempt: Attempt): { subject: string; scope: Lock['scope']; rule: Rule }[] {
  const list: { subject: string; scope: Lock['scope']; rule: Rule }[] = [
    { subject: `ip:${attempt.ip}`, scope: 'address', rule: ADDRESS },
  ];
  if (attempt.email !== undefined)
    list.push({ subject: `email:${attempt.email}`, scope: 'email', rule: EMAIL });
  return list;
}

/** Whole seconds until the attempt's subjects are all unlocked; null when none is locked now. */
export async function lockedForSeconds(db: Db, attempt: Attempt, now: Date): Promise<number | null> {
  const rows = await db
    .selectFrom('console_sign_in_failures')
    .select('locked_until')
    .where(
      'subject',
      'in',
      subjects(attempt).map((s) => s.subject),
    )
    .where('locked_until', '>', now.toISOString())
    .execute();
  const until = Math.max(0, ...rows.map((row) => Date.parse(row.locked_until ?? '')));
  return until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : null;
}

/** Counts a failed attempt under each of its subjects; returns the locks it started. */
export async function countFailure(db: Db, attempt: Attempt, now: Date): Promise<Lock[]> {
  const stamp = now.toISOString();
  const locks: Lock[] = [];
  for (const { subject, scope, rule } of subjects(attempt)) {
    const restart = new Date(now.getTime() - rule.windowMs).toISOString();
    const stale = sql<boolean>`console_sign_in_failures.first_failed_at < ${restart}`;
    // One statement, so that failures counted at once by several processes all count.
    const row = await db
      .insertInto('console_sign_in_failures')
      .values({ subject, failures: 1, first_failed_at: stamp, locked_until: null })
      .onConflict((conflict) =>
        conflict.column('subject').doUpdateSet({
          failures: sql<number>`case when ${stale} then 1 else console_sign_in_failures.failures + 1 end`,
          first_failed_at: sql<string>`case when ${stale} then ${stamp} else console_sign_in_failures.first_failed_at end`,
        }),
      )
      .returning('failures')
      .executeTakeFirstOrThrow();
    const lockMs = rule.lockMs(Number(row.failures));
    if (lockMs > 0) {
      const until = new Date(now.getTime() + lockMs);
      await db
        .updateTable('console_sign_in_failures')
        .set({ locked_until: until.toISOString() })
        .where('subject', '=', subject)
        .execute();
      locks.push({ scope, until });
    }
  }
  return locks;
}

/** A success clears the email's count (the address's stays: it counts every email tried from there). */
export async function clearFailures(db: Db, email: string): Promise<void> {
  await db.deleteFrom('console_sign_in_failures').where('subject', '=', `email:${email}`).execute();
}

/** Deletes the failures no rule counts any more (past the longest window) and that lock nothing now. */
export async function pruneFailures(db: Db, now: Date): Promise<void> {
  const oldest = new Date(now.getTime() - Math.max(EMAIL.windowMs, ADDRESS.windowMs)).toISOString();
  await db
    .deleteFrom('console_sign_in_failures')
    .where('first_failed_at', '<', oldest)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())]))
    .execute();
}
