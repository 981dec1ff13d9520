import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../src/config.js';
import { openStore, type Store } from '../src/store/db.js';
import { resolveSigningSecret } from '../src/store/signing-secret.js';
import { DIALECTS, dropDatabase, freshDatabase } from './helpers/databases.js';

describe.each(DIALECTS)('signing secret on %s', (dialect) => {
  const opened: Store[] = [];
  let database: DatabaseConfig;
  const open = async () => {
    const store = await openStore(database);
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await dropDatabase(database);
  });

  it('uses WEBCAP_SIGNING_SECRET when set and stores nothing', async () => {
    database = freshDatabase(dialect);
    const store = await open();
    const configured = 'x'.repeat(40);
    expect(await resolveSigningSecret(store.db, configured)).toBe(configured);
    expect(await store.db.selectFrom('settings').selectAll().execute()).toEqual([]);
  });

  it('generates one secret that every process sharing the database agrees on, even when they race', async () => {
    database = freshDatabase(dialect);
    // Two handles with their own connections stand for two processes starting at once.
    const first = await open();
    const second = await open();
    const secrets = await Promise.all(
      [first, second, first, second, second, first].map((store) => resolveSigningSecret(store.db, null)),
    );
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await first.db.selectFrom('settings').selectAll().execute()).toEqual([
      { key: 'signing_secret', value: secrets[0] },
    ]);
    // A restart reads the same one back.
    const restarted = await open();
    expect(await resolveSigningSecret(restarted.db, null)).toBe(secrets[0]);
  });
});
