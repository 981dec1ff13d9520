import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, updateAccount } from '../src/billing/accounts.js';
import { KeyCache } from '../src/billing/key-cache.js';
import { createKey, updateKey } from '../src/billing/keys.js';
import { openStore, type Store } from '../src/store/db.js';
import { DIALECTS, dropDatabase, freshDatabase } from './helpers/databases.js';

/*
 * The key cache on a real database. `here` is this process's connection, which the cache reads;
 * `elsewhere` is a second connection to the same database, standing for the CLI or another
 * server process, whose changes this process learns of only by reading again.
 */
describe.each(DIALECTS)('key cache on %s', (dialect) => {
  const database = freshDatabase(dialect);
  let here: Store;
  let elsewhere: Store;
  const now = new Date('2026-06-01T12:00:00Z');
  const TTL_MS = 300;

  beforeAll(async () => {
    here = await openStore(database);
    elsewhere = await openStore(database);
    await createAccount(here.db, { name: 'Acme', slug: 'acme' }, now);
  });
  afterAll(async () => {
    await here?.close();
    await elsewhere?.close();
    await dropDatabase(database);
  });

  const reason = (result: Awaited<ReturnType<KeyCache['verify']>>) => (result.ok ? 'ok' : result.reason);

  it('reuses a record for the TTL: another process’s change applies once it expires', async () => {
    // The cache's own monotonic clock, moved by the test: a slow machine cannot expire the record early.
    let monotonicMs = 0;
    const cache = new KeyCache(here.db, TTL_MS, 10_000, () => monotonicMs);
    const { key, plaintext } = await createKey(here.db, { accountSlug: 'acme' }, now);
    expect(reason(await cache.verify(plaintext, now))).toBe('ok');
    await updateKey(elsewhere.db, key.id, { active: false }, now);
    monotonicMs = TTL_MS - 1;
    expect(reason(await cache.verify(plaintext, now))).toBe('ok');
    monotonicMs = TTL_MS;
    expect(reason(await cache.verify(plaintext, now))).toBe('inactive');
    cache.close();
  });

  it('sees this process’s own key and account changes at once', async () => {
    const cache = new KeyCache(here.db, 60_000);
    const { key, plaintext } = await createKey(here.db, { accountSlug: 'acme' }, now);
    expect(reason(await cache.verify(plaintext, now))).toBe('ok');
    await updateAccount(here.db, 'acme', { active: false }, now);
    expect(reason(await cache.verify(plaintext, now))).toBe('account_inactive');
    await updateAccount(here.db, 'acme', { active: true, perSecond: 7 }, now);
    const back = await cache.verify(plaintext, now);
    expect(back.ok && back.account.perSecond).toBe(7);
    await updateKey(here.db, key.id, { active: false }, now);
    expect(reason(await cache.verify(plaintext, now))).toBe('inactive');
    cache.close();
  });

  it('decides expiry on every call, and never keeps a key it did not find', async () => {
    const cache = new KeyCache(here.db, 60_000);
    const { plaintext } = await createKey(
      here.db,
      { accountSlug: 'acme', expiresAt: '2026-06-01T12:00:01Z' },
      now,
    );
    expect(reason(await cache.verify(plaintext, now))).toBe('ok');
    expect(reason(await cache.verify(plaintext, new Date('2026-06-01T12:00:01Z')))).toBe('expired');

    const unknown = 'wc_test_not-yet-a-key-0123456789abcdef';
    expect(reason(await cache.verify(unknown, now))).toBe('unknown');
    await createKey(elsewhere.db, { accountSlug: 'acme', plaintext: unknown }, now);
    expect(reason(await cache.verify(unknown, now))).toBe('ok');
    cache.close();
  });

  it('reads the database on every call with a TTL of 0', async () => {
    const cache = new KeyCache(here.db, 0);
    const { key, plaintext } = await createKey(here.db, { accountSlug: 'acme' }, now);
    expect(reason(await cache.verify(plaintext, now))).toBe('ok');
    await updateKey(elsewhere.db, key.id, { active: false }, now);
    expect(reason(await cache.verify(plaintext, now))).toBe('inactive');
    cache.close();
  });
});
