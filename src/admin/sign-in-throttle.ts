import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../store/db.js';

/*
 * Sign-in attempts, counted in the database so that every process sees the same counts
 * (docs/console.md, "Brute force"): per email, 5 failures in a row lock it for 30 s, doubling
 * with each further failure up to 15 min; per client address, 30 failures within 15 min lock it
 * for 15 min. A lock refuses even the right password.
 *
 * An attempt takes its slot under each subject before its password is checked, in one statement
 * per subject that counts it and says whether it may be checked: a burst of concurrent attempts
 * gets exactly as many checks as the rule allows, whichever process serves them. The slot that
 * reaches a lock's count sets the lock as it is taken, so that nothing more is checked while it
 * is being checked; a success gives the slots back (and the lock its slot set), a failure keeps
 * them. Attempts refused by a lock are not counted (they were never checked), so a lock ends
 * when its time is up.
 */

interface Rule {
  /** Attempts counted together: an email's run restarts after a day, an address's after 15 min. */
  readonly windowMs: number;
  /** The count whose slot sets the first lock. */
  readonly lockAt: number;
  /** How long the lockAt-th slot locks for, then the next, ...; the last repeats. */
  readonly locksMs: readonly number[];
}

const MINUTE = 60_000;

const EMAIL: Rule = {
  windowMs: 24 * 60 * MINUTE,
  lockAt: 5,
  // 30 s doubling with each further failure, up to 15 min.
  locksMs: [30_000, 60_000, 120_000, 240_000, 480_000, 15 * MINUTE],
};

const ADDRESS: Rule = { windowMs: 15 * MINUTE, lockAt: 30, locksMs: [15 * MINUTE] };

/** The subjects a sign-in attempt is counted under. */
export interface Attempt {
  /** The email tried; absent for the admin token. */
  readonly email?: string;
  readonly ip: string;
}

/** A lock a slot set: it holds if the attempt fails. */
export interface Lock {
  readonly scope: 'email' | 'address';
  readonly until: Date;
}

interface Subject {
  readonly subject: string;
  readonly scope: Lock['scope'];
  readonly rule: Rule;
}

/** One slot taken: the run it counts in, and the lock it set, if any. */
interface Slot extends Subject {
  readonly runStart: string;
  readonly lockedUntil: string | null;
}

/** The attempt's slots: it may be checked. */
export interface Slots {
  readonly slots: readonly Slot[];
}

/** What taking the slots gives: the slots, or how long the attempt's subjects stay locked. */
export type Admission =
  | { readonly admitted: true; readonly slots: Slots }
  | { readonly admitted: false; readonly lockedForSeconds: number };

function subjects(attempt: Attempt): Subject[] {
  const list: Subject[] = [{ subject: `ip:${attempt.ip}`, scope: 'address', rule: ADDRESS }];
  if (attempt.email !== undefined)
    list.push({ subject: `email:${attempt.email}`, scope: 'email', rule: EMAIL });
  return list;
}

/** The lock (ISO instant) a count's slot sets, as SQL over the count expression; null below lockAt. */
function lockFor(count: RawBuilder<number>, rule: Rule, now: Date): RawBuilder<string | null> {
  const until = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const last = rule.locksMs.length - 1;
  const whens = [
    sql`when ${count} >= ${rule.lockAt + last} then ${until(rule.locksMs[last] ?? 0)}`,
    ...rule.locksMs.slice(0, last).map((ms, i) => sql`when ${count} = ${rule.lockAt + i} then ${until(ms)}`),
  ];
  return sql<string | null>`case ${sql.join(whens, sql` `)} else null end`;
}

/** Takes the slot under one subject in one statement; undefined when a lock refuses it. */
async function takeSlot(db: Db, subject: Subject, now: Date): Promise<Slot | undefined> {
  const stamp = now.toISOString();
  const restart = new Date(now.getTime() - subject.rule.windowMs).toISOString();
  const stale = sql<boolean>`console_sign_in_failures.first_failed_at < ${restart}`;
  const count = sql<number>`case when ${stale} then 1 else console_sign_in_failures.failures + 1 end`;
  // Counting and deciding in one upsert: concurrent attempts, in any process, each see the
  // count the others left, and the DO UPDATE's WHERE refuses any while a lock holds (no row).
  const row = await db
    .insertInto('console_sign_in_failures')
    .values({
      subject: subject.subject,
      failures: 1,
      first_failed_at: stamp,
      // A run's first slot locks nothing: every rule locks later.
      locked_until: null,
    })
    .onConflict((conflict) =>
      conflict
        .column('subject')
        .doUpdateSet({
          failures: count,
          first_failed_at: sql<string>`case when ${stale} then ${stamp} else console_sign_in_failures.first_failed_at end`,
          locked_until: lockFor(count, subject.rule, now),
        })
        .where((eb) =>
          eb.or([
            eb('console_sign_in_failures.locked_until', 'is', null),
            eb('console_sign_in_failures.locked_until', '<=', stamp),
          ]),
        ),
    )
    .returning(['first_failed_at', 'locked_until'])
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { ...subject, runStart: row.first_failed_at, lockedUntil: row.locked_until };
}

/** Whole seconds until the subject's lock ends, at least 1. */
async function lockedFor(db: Db, subject: Subject, now: Date): Promise<number> {
  const row = await db
    .selectFrom('console_sign_in_failures')
    .select('locked_until')
    .where('subject', '=', subject.subject)
    .executeTakeFirst();
  const until = Date.parse(row?.locked_until ?? '');
  return Number.isNaN(until) ? 1 : Math.max(1, Math.ceil((until - now.getTime()) / 1000));
}

/**
 * Takes the attempt's slot under each of its subjects before anything is checked: admitted with
 * the slots, or refused with the seconds until the lock that refused it ends (the slots taken
 * before it given back).
 */
export async function takeSlots(db: Db, attempt: Attempt, now: Date): Promise<Admission> {
  const taken: Slot[] = [];
  for (const subject of subjects(attempt)) {
    const slot = await takeSlot(db, subject, now);
    if (slot === undefined) {
      await giveBack(db, { slots: taken });
      return { admitted: false, lockedForSeconds: await lockedFor(db, subject, now) };
    }
    taken.push(slot);
  }
  return { admitted: true, slots: { slots: taken } };
}

/** The locks the slots set: they hold now that the attempt failed. */
export function locksOf(slots: Slots): Lock[] {
  return slots.slots.flatMap(({ scope, lockedUntil }) =>
    lockedUntil === null ? [] : [{ scope, until: new Date(lockedUntil) }],
  );
}

/**
 * Gives the slots of an attempt that did not fail back: an email's count is cleared (a success
 * ends its run), an address's loses this slot (it counts failures only), and a lock a slot set
 * is lifted.
 */
export async function giveBack(db: Db, slots: Slots): Promise<void> {
  for (const slot of slots.slots) {
    if (slot.scope === 'email') {
      await db.deleteFrom('console_sign_in_failures').where('subject', '=', slot.subject).execute();
      continue;
    }
    const mine = slot.lockedUntil;
    await db
      .updateTable('console_sign_in_failures')
      .set({
        failures: sql<number>`case when failures > 0 then failures - 1 else 0 end`,
        locked_until:
          mine === null
            ? sql<string | null>`locked_until`
            : sql<string | null>`case when locked_until = ${mine} then null else locked_until end`,
      })
      .where('subject', '=', slot.subject)
      // Within the run it was taken in: a run restarted since owes it nothing.
      .where('first_failed_at', '=', slot.runStart)
      .execute();
  }
}

/** Deletes the counts no rule reads any more (past the longest window) and that lock nothing now. */
export async function pruneFailures(db: Db, now: Date): Promise<void> {
  const oldest = new Date(now.getTime() - Math.max(EMAIL.windowMs, ADDRESS.windowMs)).toISOString();
  await db
    .deleteFrom('console_sign_in_failures')
    .where('first_failed_at', '<', oldest)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())]))
    .execute();
}
