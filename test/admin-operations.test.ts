import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, showAccount, updateAccount } from '../src/admin/accounts.js';
import { CLI_ACTOR } from '../src/admin/audit.js';
import { grantCredits, listPacks } from '../src/admin/balances.js';
import type { AdminDeps } from '../src/admin/deps.js';
import { createKey, listKeys, revokeKey, updateKey } from '../src/admin/keys.js';
import { keySecretSealer } from '../src/billing/signing-secrets.js';
import { insertJob } from '../src/jobs/job-store.js';
import { openStore, type Store } from '../src/store/db.js';
import { newId } from '../src/store/ids.js';
import { DIALECTS, dropDatabase, freshDatabase, TEST_SERVICE_SECRET } from './helpers/databases.js';

const NOW = new Date('2026-03-01T12:00:00Z');

// src/admin without a transport, as the console will call it: the admin API and CLI tests cover
// the same operations through their doors.
describe.each(DIALECTS)('admin operations on %s', (dialect) => {
  const database = freshDatabase(dialect);
  let store: Store;
  let admin: AdminDeps;

  beforeAll(async () => {
    store = await openStore(database);
    admin = {
      db: store.db,
      clock: () => NOW,
      jobRetentionMs: 3_600_000,
      keySecrets: keySecretSealer(TEST_SERVICE_SECRET),
      actor: CLI_ACTOR,
    };
  });
  afterAll(async () => {
    await store.close();
    await dropDatabase(database);
  });

  /** A queued job of the key, as an async call leaves it. */
  async function queuedJob(accountId: string, keyId: string): Promise<string> {
    const id = newId('job');
    await insertJob(store.db, {
      id,
      account_id: accountId,
      key_id: keyId,
      engine: 'website-crawler',
      path: '/v1/website/crawler',
      reservation_id: newId('res'),
      params: 'sealed',
      params_hash: id,
      idempotency_key: null,
      created_at: NOW.toISOString(),
      expires_at: new Date(NOW.getTime() + 60_000).toISOString(),
      webhook: null,
    });
    return id;
  }

  const jobEnd = (id: string) =>
    store.db
      .selectFrom('jobs')
      .select(['status', 'error_status', 'error_message', 'expires_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('withdrawing a key (made inactive or revoked) or its account ends their queued jobs, and only theirs', async () => {
    const account = await createAccount(admin, { name: 'Jobs', slug: 'jobs' });
    const [off, revoked, other] = [
      await createKey(admin, { accountSlug: 'jobs' }),
      await createKey(admin, { accountSlug: 'jobs' }),
      await createKey(admin, { accountSlug: 'jobs' }),
    ];
    const ofOff = await queuedJob(account.id, off.key.id);
    const ofRevoked = await queuedJob(account.id, revoked.key.id);
    const ofOther = await queuedJob(account.id, other.key.id);
    const withdrawnKey = {
      status: 'failed',
      error_status: 401,
      error_message:
        'Invalid API Key: the key that submitted the job was revoked or deactivated; the job did not run',
      expires_at: new Date(NOW.getTime() + 3_600_000).toISOString(),
    };

    expect((await updateKey(admin, off.key.id, { active: false })).key.active).toBe(false);
    expect(await jobEnd(ofOff)).toEqual(withdrawnKey);
    expect((await jobEnd(ofRevoked)).status).toBe('queued');

    expect((await revokeKey(admin, revoked.key.id)).key.revokedAt).toBe(NOW.toISOString());
    expect(await jobEnd(ofRevoked)).toEqual(withdrawnKey);
    expect((await jobEnd(ofOther)).status).toBe('queued');

    expect((await updateAccount(admin, 'jobs', { active: false })).active).toBe(false);
    expect(await jobEnd(ofOther)).toMatchObject({
      status: 'failed',
      error_status: 403,
      error_message: 'Forbidden: the account was deactivated; the job did not run',
    });
  });

  it('returns plain records: the new key once, with its account', async () => {
    await createAccount(admin, { name: 'Plain', slug: 'plain', monthlyQuota: 10 });
    const created = await createKey(admin, { accountSlug: 'plain', category: 'production' });
    expect(created).toMatchObject({
      accountSlug: 'plain',
      plaintext: expect.stringMatching(/^wc_live_/),
      key: { category: 'production', active: true, createdAt: NOW.toISOString() },
    });
    expect(created.key.prefix).toBe(created.plaintext.slice(0, 12));
    const listed = await listKeys(admin, { accountSlug: 'plain' });
    expect(listed).toEqual([{ key: created.key, accountSlug: 'plain' }]);
    expect(await listPacks(admin, 'plain')).toEqual([]);
  });

  it('refuses with a WebcapError whose code the doors turn into their status', async () => {
    await createAccount(admin, { name: 'Taken', slug: 'taken' });
    await expect(createAccount(admin, { name: 'Again', slug: 'taken' })).rejects.toMatchObject({
      code: 'conflict',
      detail: 'account slug taken is taken',
    });
    await expect(showAccount(admin, 'nobody')).rejects.toMatchObject({
      code: 'not_found',
      detail: 'no account nobody',
    });
    await expect(listKeys(admin, { accountSlug: 'nobody' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(grantCredits(admin, { accountSlug: 'taken', amount: 0 })).rejects.toMatchObject({
      code: 'bad_request',
    });
    const { key } = await createKey(admin, { accountSlug: 'taken' });
    await revokeKey(admin, key.id);
    await expect(updateKey(admin, key.id, { active: true })).rejects.toMatchObject({
      code: 'conflict',
      detail: `key ${key.id} is revoked and cannot be reactivated`,
    });
  });
});
