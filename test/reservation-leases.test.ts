import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../src/billing/accounts.js';
import { createKey } from '../src/billing/keys.js';
import { Reservations } from '../src/billing/reservations.js';
import { createLogger } from '../src/logging.js';
import { DIALECTS } from './helpers/databases.js';
import { meteredProbe, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * A call's reserved unit is held on a lease its process renews (src/billing/reservations.ts): a
 * call running far longer than RESERVATION_HOLD_MS is billed once, and only the unit of a process
 * that stopped renewing (a dead one) is released by the sweep. The clock is the test's: it moves
 * past the hold without waiting, and the renewals (every third of a real hold) are waited for.
 */
const HOLD_MS = 1000;
/** Only a hang waits this long for a renewal that comes every third of HOLD_MS. */
const RENEWAL_WAIT = { timeout: HANG_MS, interval: 50 };

describe.each(DIALECTS)('reservation leases on %s', (dialect) => {
  let t: TestRuntime;
  let now = new Date('2026-05-10T12:00:00Z');
  const clock = () => now;
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  /** How each call of /v1/slow finishes, in the order they started; the test says when. */
  const running: (() => void)[] = [];
  /** Another process on the same database: its sweep renews nothing of the runtime's. */
  let other: Reservations;

  beforeAll(async () => {
    t = await startTestRuntime(dialect, { clock, env: { RESERVATION_HOLD_MS: String(HOLD_MS) } });
    t.runtime.app.get('/v1/slow', { config: { auth: 'v1', engine: 'probe' } }, (request) =>
      meteredProbe(
        t,
        request,
        () => new Promise<{ ok: true }>((done) => running.push(() => done({ ok: true }))),
      ),
    );
    other = new Reservations(t.runtime.store.db, clock, HOLD_MS, createLogger('silent'));
  });
  afterAll(async () => {
    for (const finish of running) finish();
    other?.close();
    await t?.close();
  });

  async function newAccount(slug: string) {
    const { db } = t.runtime.store;
    const account = await createAccount(db, { name: slug, slug, monthlyQuota: 1 }, now);
    const { key, plaintext } = await createKey(db, { accountSlug: slug }, now);
    return { accountId: account.id, keyId: key.id, plaintext };
  }
  /** Starts a call of /v1/slow, its unit reserved and its work running until `finish`. */
  async function slowCall(key: string) {
    const before = running.length;
    const answer = t.runtime.app.inject({ url: '/v1/slow', headers: { 'x-api-key': key } });
    await vi.waitFor(() => expect(running).toHaveLength(before + 1), RENEWAL_WAIT);
    return { answer, finish: running[before] as () => void };
  }
  const held = async (accountId: string) =>
    t.runtime.store.db
      .selectFrom('reservations')
      .select(['id', 'status', 'expires_at'])
      .where('account_id', '=', accountId)
      .execute();
  const usage = async (key: string) =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json();
  const subscriptionUsed = async (accountId: string) =>
    (
      await t.runtime.store.db
        .selectFrom('subscription_usage')
        .select('used')
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).used;

  it('a call running two holds long keeps its unit through every sweep and is billed once', async () => {
    const { accountId, plaintext } = await newAccount('long-call');
    const { answer, finish } = await slowCall(plaintext);
    const [unit] = await held(accountId);
    expect(unit).toMatchObject({ status: 'reserved' });

    // Half a hold at a time: the hold never lapses between two steps, so no sweep races a renewal.
    for (let step = 0; step < 4; step++) {
      advance(HOLD_MS / 2);
      const renewedTo = new Date(now.getTime() + HOLD_MS).toISOString();
      await vi.waitFor(async () => {
        const [row] = await held(accountId);
        expect(new Date(row?.expires_at ?? 0).toISOString()).toBe(renewedTo);
      }, RENEWAL_WAIT);
      expect(await other.releaseExpired()).toBe(0);
      expect(await t.runtime.calls.metering.reservations.releaseExpired()).toBe(0);
    }
    expect(now.getTime() - new Date(unit?.expires_at ?? 0).getTime()).toBe(HOLD_MS);

    finish();
    const res = await answer;
    expect(res.statusCode).toBe(200);
    expect(await held(accountId)).toEqual([expect.objectContaining({ id: unit?.id, status: 'committed' })]);
    expect(await usage(plaintext)).toMatchObject({ total_used: 1, remaining: 0 });
  });

  it("a dead process's unit is released by the sweep, and its late commit bills nothing", async () => {
    const { accountId, keyId, plaintext } = await newAccount('dead-holder');
    const dead = new Reservations(t.runtime.store.db, clock, HOLD_MS, createLogger('silent'));
    const reserved = await dead.reserve({ accountId, keyId, engine: 'probe' });
    if (!reserved.ok) throw new Error(`no unit: ${reserved.reason}`);
    const { id } = reserved.reservation;
    // The process dies: nothing renews its unit from now on.
    dead.close();
    expect(await usage(plaintext)).toMatchObject({ total_used: 1, remaining: 0 });

    advance(HOLD_MS / 2);
    expect(await t.runtime.calls.metering.reservations.releaseExpired()).toBe(0);
    expect(await held(accountId)).toEqual([expect.objectContaining({ id, status: 'reserved' })]);

    advance(HOLD_MS);
    await t.runtime.calls.metering.reservations.releaseExpired();
    expect(await held(accountId)).toEqual([expect.objectContaining({ id, status: 'released' })]);
    expect(await usage(plaintext)).toMatchObject({ total_used: 0, remaining: 1 });

    // The process was only stalled: its late commit and release find the unit settled.
    expect(await dead.commit(id)).toBe(false);
    expect(await dead.release(id)).toBe(false);
    expect(await held(accountId)).toEqual([expect.objectContaining({ id, status: 'released' })]);
    expect(await subscriptionUsed(accountId)).toBe(0);
    expect(await usage(plaintext)).toMatchObject({ total_used: 0, remaining: 1 });

    // The unit given back is spent once by the next call.
    const next = await slowCall(plaintext);
    next.finish();
    expect((await next.answer).statusCode).toBe(200);
    expect(await subscriptionUsed(accountId)).toBe(1);
    expect(await usage(plaintext)).toMatchObject({ total_used: 1, remaining: 0 });
  });
});
