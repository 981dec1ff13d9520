import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/billing/accounts.js';
import { createKey } from '../src/billing/keys.js';
import { addUser, asBrowser, type Browser, signIn } from './helpers/console.js';
import { DIALECTS } from './helpers/databases.js';
import { ADMIN_TOKEN, browserPool, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read as plain JSON
type Json = any;

const PASSWORD = 'correct horse battery';

/*
 * The operator console's routes (docs/console.md, "Operator console"), signed in with the admin
 * token or as an operator user: accounts, their people, the request log and calls across
 * accounts, system health and the audit log; refused to an account's people.
 */
describe.each(DIALECTS)('the operator console on %s', (dialect) => {
  let t: TestRuntime;
  let token: Browser;
  let opsUser: Browser;
  let owner: Browser;
  let member: Browser;
  let acmeKey = '';

  const inject = (options: InjectOptions) => t.runtime.app.inject(options);
  const as = (browser: Browser, options: InjectOptions) => inject(asBrowser(browser, options));
  const expectError = (res: LightMyRequestResponse, status: number, error: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toEqual({ error });
  };

  beforeAll(async () => {
    t = await startTestRuntime(dialect, { env: { BROWSER_CONCURRENCY: '3', CONTENT_THREADS: '1' } });
    const { db } = t.runtime.store;
    await createAccount(db, { name: 'Acme', slug: 'acme', monthlyQuota: 100 }, new Date());
    acmeKey = (await createKey(db, { accountSlug: 'acme' }, new Date())).plaintext;
    await addUser(t, { email: 'ana@acme.example', role: 'owner', accountSlug: 'acme', password: PASSWORD });
    await addUser(t, { email: 'bo@acme.example', role: 'member', accountSlug: 'acme', password: PASSWORD });
    await addUser(t, { email: 'ops@example.com', name: 'Olu', role: 'operator', password: PASSWORD });
    token = await signIn(t, { admin_token: ADMIN_TOKEN });
    opsUser = await signIn(t, { email: 'ops@example.com', password: PASSWORD });
    owner = await signIn(t, { email: 'ana@acme.example', password: PASSWORD });
    member = await signIn(t, { email: 'bo@acme.example', password: PASSWORD });
    await inject({ url: '/v1/usage', headers: { 'x-api-key': acmeKey } });
    await t.runtime.requestLog.flush();
  });
  afterAll(() => t?.close());

  describe('happy', () => {
    it('creates an account, lists every account with its remaining, keys, users and calls today, and shows one', async () => {
      const created = await as(token, {
        method: 'POST',
        url: '/console/api/operator/accounts',
        payload: { name: 'Beta', slug: 'beta', monthly_quota: 50, stats_enabled: true },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({
        slug: 'beta',
        monthly_quota: 50,
        stats_enabled: true,
        active: true,
      });
      expectError(
        await as(token, {
          method: 'POST',
          url: '/console/api/operator/accounts',
          payload: { name: 'B', slug: 'beta' },
        }),
        409,
        'Conflict: account slug beta is taken',
      );

      const list = await as(opsUser, { url: '/console/api/operator/accounts' });
      expect(list.statusCode).toBe(200);
      const acme = list.json().items.find((a: Json) => a.slug === 'acme');
      expect(acme).toMatchObject({ name: 'Acme', remaining: 100, keys: 1, users: 2, calls_today: 1 });
      expect(list.json().items.find((a: Json) => a.slug === 'beta')).toMatchObject({
        keys: 0,
        users: 0,
        calls_today: 0,
      });

      const detail = await as(token, { url: '/console/api/operator/accounts/acme' });
      expect(detail.statusCode, detail.body).toBe(200);
      const body = detail.json();
      expect(body.account).toMatchObject({ slug: 'acme' });
      expect(body.usage).toMatchObject({
        remaining: 100,
        balances: [{ source: 'subscription', total: 100 }, { source: 'credit' }],
      });
      expect(body.keys).toHaveLength(1);
      expect(body.keys[0]).toMatchObject({ used: { total: 0 }, last_used_at: expect.any(String) });
      expect(body.keys[0].key).toBeUndefined();
      expect(body.users.map((u: Json) => u.email).sort()).toEqual(['ana@acme.example', 'bo@acme.example']);
      expect(body.packs).toEqual([]);
      expectError(
        await as(token, { url: '/console/api/operator/accounts/nobody' }),
        404,
        'Not Found: no account nobody',
      );
    });

    it("changes an account, adds packs and credits; deactivating it ends its people's sessions; all audited as the operator", async () => {
      const patched = await as(opsUser, {
        method: 'PATCH',
        url: '/console/api/operator/accounts/beta',
        payload: { monthly_quota: 75, per_second: 2, stats_enabled: false },
      });
      expect(patched.json()).toMatchObject({ monthly_quota: 75, per_second: 2, stats_enabled: false });
      const pack = await as(opsUser, {
        method: 'POST',
        url: '/console/api/operator/accounts/beta/packs',
        payload: { total: 10, title: 'Launch' },
      });
      expect(pack.statusCode).toBe(201);
      expect(pack.json()).toMatchObject({ account: 'beta', total: 10, title: 'Launch', remaining: 10 });
      const credits = await as(token, {
        method: 'POST',
        url: '/console/api/operator/accounts/beta/credits',
        payload: { amount: 3, note: 'welcome' },
      });
      expect(credits.statusCode).toBe(201);
      expect(credits.json()).toMatchObject({ account: 'beta', amount: 3, credits: { given: 3 } });

      await addUser(t, { email: 'bea@beta.example', role: 'owner', accountSlug: 'beta', password: PASSWORD });
      const bea = await signIn(t, { email: 'bea@beta.example', password: PASSWORD });
      await as(token, {
        method: 'PATCH',
        url: '/console/api/operator/accounts/beta',
        payload: { active: false },
      });
      expect((await as(bea, { url: '/console/api/session' })).statusCode).toBe(401);
      await as(token, {
        method: 'PATCH',
        url: '/console/api/operator/accounts/beta',
        payload: { active: true },
      });

      const audit = await as(token, { url: '/console/api/operator/audit?account=beta&limit=200' });
      const entries = audit.json().items;
      const by = (action: string) =>
        entries.filter((e: Json) => e.action === action).map((e: Json) => e.actor);
      expect(by('account.create')).toEqual([{ kind: 'admin_token', id: null, email: null }]);
      expect(by('pack.add')).toEqual([
        { kind: 'user', id: opsUser.session.user.id, email: 'ops@example.com' },
      ]);
      expect(by('credits.grant')).toEqual([{ kind: 'admin_token', id: null, email: null }]);
      expect(by('account.update')).toHaveLength(3);
      const actions = await as(token, { url: '/console/api/operator/audit?action=pack.add' });
      expect(actions.json().items.every((e: Json) => e.action === 'pack.add')).toBe(true);
    });

    it("creates an account's console users (a generated password shown once), changes, resets and removes them", async () => {
      const made = await as(token, {
        method: 'POST',
        url: '/console/api/operator/accounts/beta/users',
        payload: { email: 'Cy@Beta.example', name: 'Cy', role: 'member' },
      });
      expect(made.statusCode, made.body).toBe(201);
      const { password, ...user } = made.json();
      expect(user).toMatchObject({
        email: 'cy@beta.example',
        name: 'Cy',
        role: 'member',
        account: { slug: 'beta' },
      });
      const cy = await signIn(t, { email: 'cy@beta.example', password });
      const chosen = await as(token, {
        method: 'POST',
        url: '/console/api/operator/accounts/beta/users',
        payload: { email: 'dee@beta.example', role: 'member', password: 'a chosen password' },
      });
      expect(chosen.json().password).toBeUndefined();
      expectError(
        await as(token, {
          method: 'POST',
          url: '/console/api/operator/accounts/beta/users',
          payload: { email: 'cy@beta.example', role: 'member' },
        }),
        409,
        'Conflict: a user with email cy@beta.example exists',
      );

      const changed = await as(opsUser, {
        method: 'PATCH',
        url: `/console/api/operator/users/${user.id}`,
        payload: { name: 'Cyrus', role: 'owner' },
      });
      expect(changed.json()).toMatchObject({ name: 'Cyrus', role: 'owner' });
      const reset = await as(opsUser, {
        method: 'POST',
        url: `/console/api/operator/users/${user.id}/password`,
      });
      expect(reset.statusCode).toBe(200);
      expect(reset.json().password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect((await as(cy, { url: '/console/api/session' })).statusCode).toBe(401);
      const given = await as(opsUser, {
        method: 'POST',
        url: `/console/api/operator/users/${user.id}/password`,
        payload: { password: 'the next password' },
      });
      expect(given.statusCode).toBe(204);
      await signIn(t, { email: 'cy@beta.example', password: 'the next password' });
      const users = await as(token, { url: '/console/api/operator/users?account=beta' });
      expect(
        users
          .json()
          .items.map((u: Json) => u.email)
          .sort(),
      ).toEqual(['bea@beta.example', 'cy@beta.example', 'dee@beta.example']);
      const everyone = await as(token, { url: '/console/api/operator/users' });
      expect(everyone.json().items.some((u: Json) => u.role === 'operator')).toBe(true);
      expect(
        (await as(token, { method: 'DELETE', url: `/console/api/operator/users/${chosen.json().id}` }))
          .statusCode,
      ).toBe(204);
      expect(
        (await as(token, { method: 'DELETE', url: `/console/api/operator/users/${chosen.json().id}` }))
          .statusCode,
      ).toBe(404);
      const audit = (await as(token, { url: '/console/api/operator/audit?account=beta&limit=200' })).json()
        .items;
      expect(audit.map((e: Json) => e.action)).toEqual(
        expect.arrayContaining(['user.create', 'user.update', 'user.password_reset', 'user.delete']),
      );
      expect(JSON.stringify(audit)).not.toContain(password);
      expect(JSON.stringify(audit)).not.toContain('the next password');
    });

    it('reads the request log and daily calls across accounts, or for one', async () => {
      const requests = await as(token, { url: '/console/api/operator/requests' });
      expect(requests.statusCode).toBe(200);
      expect(requests.json().items[0]).toMatchObject({
        account: 'acme',
        path: '/v1/usage',
        status: 200,
        billed: false,
      });
      expect((await as(token, { url: '/console/api/operator/requests?account=beta' })).json().items).toEqual(
        [],
      );
      expectError(
        await as(token, { url: '/console/api/operator/requests?account=nobody' }),
        404,
        'Not Found: no account nobody',
      );
      const daily = await as(token, { url: '/console/api/operator/usage/daily?days=2' });
      expect(daily.json().days).toHaveLength(2);
      expect(daily.json().days[1]).toMatchObject({ calls: 1, by_engine: { usage: 1 } });
      const beta = await as(token, { url: '/console/api/operator/usage/daily?days=2&account=beta' });
      expect(beta.json().days[1]).toMatchObject({ calls: 0 });
    });

    it('shows the system health from the sources /metrics reads', async () => {
      const res = await as(token, { url: '/console/api/operator/health' });
      expect(res.statusCode, res.body).toBe(200);
      const health = res.json();
      const pool = browserPool(t.runtime).state();
      expect(health.render_pool).toEqual({
        size: 3,
        busy: pool.busy,
        queued: pool.queued,
        rejected_total: pool.rejected,
        browser_restarts_total: Math.max(0, pool.launches - 1),
        launches_total: pool.launches,
        crashes_total: pool.crashes,
        browser: pool.browser,
      });
      expect(health.extractors).toEqual({ threads: 1, busy: 0, queued: 0 });
      expect(health.jobs).toEqual({ queued: await t.runtime.jobs.queued() });
      expect(health.process.uptime_seconds).toBeGreaterThanOrEqual(0);
      expect(health.process.rss_bytes).toBeGreaterThan(0);
      expect(Object.keys(health.engines)).toEqual([
        'capture',
        'content',
        'analyze',
        'extract',
        'map',
        'crawl',
        'website-crawler',
      ]);
    });
  });

  describe('security', () => {
    it("refuses an account's owner and member every operator route (403)", async () => {
      const routes: InjectOptions[] = [
        { url: '/console/api/operator/accounts' },
        { method: 'POST', url: '/console/api/operator/accounts', payload: { name: 'x', slug: 'x' } },
        { url: '/console/api/operator/accounts/acme' },
        {
          method: 'PATCH',
          url: '/console/api/operator/accounts/acme',
          payload: { monthly_quota: 1_000_000 },
        },
        { method: 'POST', url: '/console/api/operator/accounts/acme/packs', payload: { total: 1000 } },
        { method: 'POST', url: '/console/api/operator/accounts/acme/credits', payload: { amount: 1000 } },
        {
          method: 'POST',
          url: '/console/api/operator/accounts/acme/users',
          payload: { email: 'x@acme.example', role: 'owner' },
        },
        { url: '/console/api/operator/users' },
        {
          method: 'PATCH',
          url: `/console/api/operator/users/${owner.session.user.id}`,
          payload: { active: false },
        },
        { method: 'POST', url: `/console/api/operator/users/${owner.session.user.id}/password` },
        { method: 'DELETE', url: `/console/api/operator/users/${member.session.user.id}` },
        { url: '/console/api/operator/requests' },
        { url: '/console/api/operator/usage/daily' },
        { url: '/console/api/operator/health' },
        { url: '/console/api/operator/audit' },
      ];
      for (const browser of [owner, member]) {
        for (const request of routes) {
          expectError(await as(browser, request), 403, 'Forbidden: only an operator may do this');
        }
      }
      expect(
        (await as(token, { url: '/console/api/operator/accounts/acme' })).json().account.monthly_quota,
      ).toBe(100);
      expect((await as(owner, { url: '/console/api/session' })).statusCode).toBe(200);
    });

    it('answers hostile input with a 400 naming the parameter, never a 500', async () => {
      const cases: [InjectOptions, string][] = [
        [
          { method: 'POST', url: '/console/api/operator/accounts', payload: { name: '', slug: 'ok' } },
          'name',
        ],
        [
          {
            method: 'POST',
            url: '/console/api/operator/accounts',
            payload: { name: 'x', slug: 'ok', monthly_quota: -1 },
          },
          'monthly_quota',
        ],
        [
          { method: 'POST', url: '/console/api/operator/accounts', payload: { name: 'x', slug: 'Bad Slug' } },
          'slug',
        ],
        [
          {
            method: 'POST',
            url: '/console/api/operator/accounts',
            payload: { name: 'x', slug: 'ok', billing_anchor: 'never' },
          },
          'billing_anchor',
        ],
        [{ url: '/console/api/operator/accounts/UPPER' }, 'slug'],
        [{ url: `/console/api/operator/accounts/${'s'.repeat(65)}` }, 'slug'],
        [
          { method: 'PATCH', url: '/console/api/operator/accounts/acme', payload: { active: 'yes please' } },
          'active',
        ],
        [
          { method: 'PATCH', url: '/console/api/operator/accounts/acme', payload: { per_minute: 1e12 } },
          'per_minute',
        ],
        [
          { method: 'POST', url: '/console/api/operator/accounts/acme/packs', payload: { total: 0 } },
          'total',
        ],
        [
          { method: 'POST', url: '/console/api/operator/accounts/acme/packs', payload: { total: 'lots' } },
          'total',
        ],
        [
          { method: 'POST', url: '/console/api/operator/accounts/acme/credits', payload: { amount: 1.5 } },
          'amount',
        ],
        [
          {
            method: 'POST',
            url: '/console/api/operator/accounts/acme/users',
            payload: { email: 'x@acme.example', role: 'operator' },
          },
          'role',
        ],
        [
          {
            method: 'POST',
            url: '/console/api/operator/accounts/acme/users',
            payload: { email: 'x@acme.example', role: 'member', password: 'short' },
          },
          'password',
        ],
        [{ method: 'PATCH', url: '/console/api/operator/users/usr_x', payload: { role: 'admin' } }, 'role'],
        [
          {
            method: 'POST',
            url: '/console/api/operator/users/usr_x/password',
            payload: { password: 'p'.repeat(201) },
          },
          'password',
        ],
        [{ url: `/console/api/operator/requests?account=${'a'.repeat(65)}` }, 'account'],
        [{ url: '/console/api/operator/requests?status=99' }, 'status'],
        [{ url: '/console/api/operator/usage/daily?days=100' }, 'days'],
        [{ url: '/console/api/operator/audit?action=' }, 'action'],
        [{ url: '/console/api/operator/audit?before=x' }, 'before'],
        [{ url: '/console/api/operator/audit?extra=1' }, 'extra'],
      ];
      for (const [request, param] of cases) {
        const res = await as(token, request);
        const what = `${request.method ?? 'GET'} ${request.url} ${JSON.stringify(request.payload ?? '')}`;
        expect(res.statusCode, `${what}: ${res.body}`).toBe(400);
        expect(res.json().error, what).toMatch(new RegExp(`^Bad Request: .*${param}`));
      }
    });
  });
});
