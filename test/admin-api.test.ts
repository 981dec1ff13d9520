import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/billing/keys.js';
import { DIALECTS } from './helpers/databases.js';
import { ADMIN_TOKEN, meteredProbe, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

describe.each(DIALECTS)('admin HTTP API on %s', (dialect) => {
  let t: TestRuntime;
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const call = (options: InjectOptions) =>
    t.runtime.app.inject({ ...options, headers: { ...headers, ...options.headers } });

  beforeAll(async () => {
    t = await startTestRuntime(dialect);
    const { app } = t.runtime;
    app.get('/v1/probe', { config: { auth: 'v1' } }, async (request) => ({
      account: request.auth?.account.slug,
    }));
    app.get('/v1/billable', { config: { auth: 'v1', engine: 'probe' } }, (request) =>
      meteredProbe(t, request, async () => ({ ok: true })),
    );
  });
  afterAll(() => t?.close());

  it('refuses a missing or wrong token with 401', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${ADMIN_TOKEN}`, ADMIN_TOKEN]) {
      const res = await t.runtime.app.inject({
        url: '/admin/v1/accounts',
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'Invalid API Key: admin token missing or wrong' });
    }
  });

  it('creates, lists, shows and updates accounts with every field', async () => {
    const created = await call({
      method: 'POST',
      url: '/admin/v1/accounts',
      payload: { name: 'Acme Corp', slug: 'acme', monthly_quota: 500, per_second: 5, stats_enabled: true },
    });
    expect(created.statusCode).toBe(201);
    const account = created.json();
    expect(account).toEqual({
      id: expect.stringMatching(/^acc_/),
      name: 'Acme Corp',
      slug: 'acme',
      active: true,
      stats_enabled: true,
      monthly_quota: 500,
      per_second: 5,
      per_minute: null,
      billing_anchor: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(new Date(account.created_at).toISOString()).toBe(account.created_at);

    const again = await call({
      method: 'POST',
      url: '/admin/v1/accounts',
      payload: { name: 'X', slug: 'acme' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Conflict: account slug acme is taken' });

    const list = await call({ url: '/admin/v1/accounts' });
    expect(list.json().accounts.map((a: { slug: string }) => a.slug)).toEqual(['acme']);

    const updated = await call({
      method: 'PATCH',
      url: '/admin/v1/accounts/acme',
      payload: { per_second: null, per_minute: 60, monthly_quota: 1000, active: false },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      per_second: null,
      per_minute: 60,
      monthly_quota: 1000,
      active: false,
    });
    const shown = await call({ url: '/admin/v1/accounts/acme' });
    expect(shown.json()).toEqual(updated.json());

    const missing = await call({ url: '/admin/v1/accounts/nobody' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Not Found: no account nobody' });
  });

  it('concurrent creates of one account slug: exactly one 201, the others 409 with an {"error"} body', async () => {
    const creates = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call({ method: 'POST', url: '/admin/v1/accounts', payload: { name: `Race ${i}`, slug: 'race' } }),
      ),
    );
    const statuses = creates.map((res) => res.statusCode).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const res of creates.filter((r) => r.statusCode === 409)) {
      expect(res.json()).toEqual({ error: 'Conflict: account slug race is taken' });
    }
    const accounts = (await call({ url: '/admin/v1/accounts' })).json().accounts;
    expect(accounts.filter((a: { slug: string }) => a.slug === 'race')).toHaveLength(1);
  });

  it('concurrent creates of one key: one is stored, the others are conflicts', async () => {
    const { db } = t.runtime.store;
    await call({ method: 'POST', url: '/admin/v1/accounts', payload: { name: 'K', slug: 'key-race' } });
    const plaintext = 'wc_test_the-same-key-for-everyone';
    const creates = await Promise.allSettled(
      Array.from({ length: 8 }, () => createKey(db, { accountSlug: 'key-race', plaintext }, new Date())),
    );
    expect(creates.filter((c) => c.status === 'fulfilled')).toHaveLength(1);
    for (const failed of creates.filter((c) => c.status === 'rejected')) {
      expect(failed.reason).toMatchObject({ code: 'conflict', detail: 'that key is already in use' });
    }
  });

  it('creates a key shown once, which then authenticates, and updates and revokes it', async () => {
    await call({ method: 'POST', url: '/admin/v1/accounts', payload: { name: 'Keys', slug: 'keys' } });
    const created = await call({
      method: 'POST',
      url: '/admin/v1/keys',
      payload: {
        account: 'keys',
        alias: 'ci',
        category: 'production',
        expires: '2999-12-31',
        quotas: { daily: 100, monthly: 2000 },
      },
    });
    expect(created.statusCode).toBe(201);
    const record = created.json();
    expect(record).toEqual({
      id: expect.stringMatching(/^key_/),
      account: 'keys',
      account_id: expect.stringMatching(/^acc_/),
      alias: 'ci',
      category: 'production',
      prefix: record.key.slice(0, 12),
      active: true,
      expires_at: '2999-12-31T00:00:00.000Z',
      revoked_at: null,
      quotas: { total: null, daily: 100, weekly: null, monthly: 2000 },
      signed_only: false,
      has_signing_secret: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      key: expect.stringMatching(/^wc_live_[A-Za-z0-9_-]{32}$/),
      signing_secret: expect.stringMatching(/^wcs_[A-Za-z0-9_-]{43}$/),
    });

    const probe = await t.runtime.app.inject({ url: '/v1/probe', headers: { 'x-api-key': record.key } });
    expect(probe.json()).toEqual({ account: 'keys' });

    const listed = await call({ url: '/admin/v1/keys?account=keys' });
    expect(listed.json().keys).toHaveLength(1);
    expect(listed.json().keys[0]).not.toHaveProperty('key');
    expect(listed.json().keys[0]).not.toHaveProperty('signing_secret');
    expect(JSON.stringify(listed.json())).not.toContain(record.key);
    expect(JSON.stringify(listed.json())).not.toContain(record.signing_secret);

    const off = await call({
      method: 'PATCH',
      url: `/admin/v1/keys/${record.id}`,
      payload: { active: false },
    });
    expect(off.json()).toMatchObject({ active: false, revoked_at: null });
    const rejected = await t.runtime.app.inject({ url: '/v1/probe', headers: { 'x-api-key': record.key } });
    expect(rejected.json()).toEqual({ error: 'Invalid API Key: key is inactive' });

    const on = await call({
      method: 'PATCH',
      url: `/admin/v1/keys/${record.id}`,
      payload: { active: true, quotas: { daily: null }, expires: null },
    });
    expect(on.json()).toMatchObject({
      active: true,
      expires_at: null,
      quotas: { daily: null, monthly: 2000 },
    });

    const revoked = await call({ method: 'POST', url: `/admin/v1/keys/${record.id}/revoke` });
    expect(revoked.json()).toMatchObject({ active: false, revoked_at: expect.any(String) });
    const back = await call({
      method: 'PATCH',
      url: `/admin/v1/keys/${record.id}`,
      payload: { active: true },
    });
    expect(back.statusCode).toBe(409);
    expect(back.json()).toEqual({ error: `Conflict: key ${record.id} is revoked and cannot be reactivated` });

    const noAccount = await call({ method: 'POST', url: '/admin/v1/keys', payload: { account: 'nobody' } });
    expect(noAccount.statusCode).toBe(404);
    expect(noAccount.json()).toEqual({ error: 'Not Found: no account nobody' });
    const badDate = await call({
      method: 'POST',
      url: '/admin/v1/keys',
      payload: { account: 'keys', expires: 'soon' },
    });
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json().error).toMatch(/^Bad Request: expires /);
  });
  it('takes 0 as 0 and null as null: a key quota of 0 allows no call, a cap of 0 is refused, never read as no limit', async () => {
    await call({
      method: 'POST',
      url: '/admin/v1/accounts',
      payload: { name: 'Zero', slug: 'zero', monthly_quota: 10 },
    });
    const key = (await call({ method: 'POST', url: '/admin/v1/keys', payload: { account: 'zero' } })).json();
    const zero = await call({
      method: 'PATCH',
      url: `/admin/v1/keys/${key.id}`,
      payload: { quotas: { daily: 0 } },
    });
    expect(zero.statusCode).toBe(200);
    expect(zero.json().quotas).toEqual({ total: null, daily: 0, weekly: null, monthly: null });
    const refused = await t.runtime.app.inject({ url: '/v1/billable', headers: { 'x-api-key': key.key } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded for the API key: quota daily' });
    const cleared = await call({
      method: 'PATCH',
      url: `/admin/v1/keys/${key.id}`,
      payload: { quotas: { daily: null } },
    });
    expect(cleared.json().quotas.daily).toBeNull();

    for (const cap of ['per_second', 'per_minute']) {
      const none = await call({ method: 'PATCH', url: '/admin/v1/accounts/zero', payload: { [cap]: 0 } });
      expect(none.statusCode, cap).toBe(400);
      expect(none.json().error).toMatch(new RegExp(`^Bad Request: ${cap} `));
      const unset = await call({ method: 'PATCH', url: '/admin/v1/accounts/zero', payload: { [cap]: null } });
      expect(unset.json()[cap]).toBeNull();
    }
    const noPlan = await call({
      method: 'PATCH',
      url: '/admin/v1/accounts/zero',
      payload: { monthly_quota: 0 },
    });
    expect(noPlan.json().monthly_quota).toBe(0);
  });

  it('adds packs, grants credits and reads the ledger after billable calls', async () => {
    await call({ method: 'POST', url: '/admin/v1/accounts', payload: { name: 'L', slug: 'ledger' } });
    const { key } = (
      await call({ method: 'POST', url: '/admin/v1/keys', payload: { account: 'ledger' } })
    ).json();
    const pack = await call({
      method: 'POST',
      url: '/admin/v1/accounts/ledger/packs',
      payload: { total: 1, title: 'Starter', purchased_at: '2026-02-01T00:00:00Z' },
    });
    expect(pack.statusCode).toBe(201);
    expect(pack.json()).toEqual({
      id: expect.stringMatching(/^pack_/),
      account: 'ledger',
      title: 'Starter',
      total: 1,
      used: 0,
      remaining: 1,
      purchased_at: '2026-02-01T00:00:00.000Z',
    });
    const grant = await call({
      method: 'POST',
      url: '/admin/v1/accounts/ledger/credits',
      payload: { amount: 2, note: 'goodwill' },
    });
    expect(grant.statusCode).toBe(201);
    expect(grant.json()).toEqual({
      id: expect.stringMatching(/^cred_/),
      account: 'ledger',
      amount: 2,
      note: 'goodwill',
      granted_at: expect.any(String),
      credits: { given: 2, consumed: 0 },
    });

    for (let i = 0; i < 2; i++) {
      const res = await t.runtime.app.inject({ url: '/v1/billable', headers: { 'x-api-key': key } });
      expect(res.statusCode).toBe(200);
    }
    const ledger = (await call({ url: '/admin/v1/accounts/ledger/ledger?limit=10' })).json();
    expect(ledger.account).toBe('ledger');
    expect(ledger.totals).toEqual({
      committed: { subscription: 0, pack: 1, credit: 1 },
      reserved: 0,
      released: 0,
    });
    expect(ledger.entries.map((e: { source: string; status: string }) => [e.source, e.status])).toEqual(
      expect.arrayContaining([
        ['pack', 'committed'],
        ['credit', 'committed'],
      ]),
    );
    expect(ledger.entries).toHaveLength(2);
    const packs = (await call({ url: '/admin/v1/accounts/ledger/packs' })).json();
    expect(packs.packs).toEqual([{ ...pack.json(), used: 1, remaining: 0 }]);

    const zero = await call({
      method: 'POST',
      url: '/admin/v1/accounts/ledger/credits',
      payload: { amount: 0 },
    });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().error).toMatch(/^Bad Request: amount /);
    const nobody = await call({
      method: 'POST',
      url: '/admin/v1/accounts/nobody/packs',
      payload: { total: 5 },
    });
    expect(nobody.statusCode).toBe(404);
    expect(nobody.json()).toEqual({ error: 'Not Found: no account nobody' });
  });
});

describe('admin HTTP API without WEBCAP_ADMIN_TOKEN', () => {
  it('is not mounted at all', async () => {
    const t = await startTestRuntime('sqlite', { env: { WEBCAP_ADMIN_TOKEN: '' } });
    try {
      const res = await t.runtime.app.inject({
        url: '/admin/v1/accounts',
        headers: { authorization: 'Bearer x' },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Not Found' });
    } finally {
      await t.close();
    }
  });
});
