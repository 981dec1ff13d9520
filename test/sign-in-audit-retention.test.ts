import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneSignInRefusals } from '../src/admin/audit.js';
import { createAccount } from '../src/billing/accounts.js';
import { addUser } from './helpers/console.js';
import { DIALECTS } from './helpers/databases.js';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * Issue 32, item 5: anyone can add a row to the audit log with a wrong password, and those rows
 * were kept for good. Failed sign-ins and the locks they start are kept for
 * CONSOLE_SIGN_IN_FAILURE_AUDIT_DAYS (90 by default); every other action for good.
 */
const PASSWORD = 'correct horse battery';
const DAY = 86_400_000;

describe.each(DIALECTS)('failed sign-ins in the audit log on %s', (dialect) => {
  let t: TestRuntime;
  let now = Date.parse('2026-11-01T10:00:00Z');
  const actions = async () =>
    (
      await t.runtime.store.db
        .selectFrom('audit_log')
        .select(['action', 'created_at'])
        .orderBy('id')
        .execute()
    ).map((row) => `${row.action} ${row.created_at.slice(0, 10)}`);
  const signIn = (password: string) =>
    t.runtime.app.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: 'ana@example.com', password },
    });

  beforeAll(async () => {
    t = await startTestRuntime(dialect, { clock: () => new Date(now) });
    await createAccount(t.runtime.store.db, { name: 'Acme', slug: 'acme' }, new Date(now));
  });
  afterAll(() => t?.close());

  it('are deleted past their retention with the locks they started; the rest stays', async () => {
    expect(t.config.console.signInFailureAuditMs).toBe(90 * DAY);
    await addUser(t, { email: 'ana@example.com', role: 'owner', accountSlug: 'acme', password: PASSWORD });
    for (let i = 0; i < 5; i += 1) expect((await signIn('wrong password here')).statusCode).toBe(401);
    now += 3_600_000;
    expect((await signIn(PASSWORD)).statusCode).toBe(200);
    now += 90 * DAY;
    expect((await signIn('wrong password again')).statusCode).toBe(401);
    const before = await actions();
    expect(before.filter((a) => a.startsWith('session.sign_in_failed'))).toHaveLength(6);
    expect(before).toContain('session.sign_in_locked 2026-11-01');

    const deleted = await pruneSignInRefusals(
      t.runtime.store.db,
      new Date(now),
      t.config.console.signInFailureAuditMs,
    );
    expect(deleted).toBe(6);
    const after = await actions();
    expect(after.filter((a) => a.startsWith('session.'))).toEqual([
      'session.sign_in 2026-11-01',
      'session.sign_in_failed 2027-01-30',
    ]);
    // addUser writes on the real clock: kept whatever its date.
    expect(after.filter((a) => a.startsWith('user.create'))).toHaveLength(1);
  });
});
