import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webcap, webcapJson } from './helpers/cli-in-process.js';
import { signIn } from './helpers/console.js';
import { DIALECTS, databaseEnv } from './helpers/databases.js';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * Console users and the audit log through the operator's two other doors: the admin API and
 * `webcap admin` (in this process, on the same database). Every change leaves an audit row
 * naming its door; no password, key or token ever does.
 */
describe.each(DIALECTS)('console users and the audit log from the admin API and the CLI on %s', (dialect) => {
  let t: TestRuntime;
  let env: Record<string, string>;
  const admin = (options: InjectOptions) =>
    t.runtime.app.inject({
      ...options,
      remoteAddress: '10.9.0.1',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...options.headers },
    });
  const auditRows = () => t.runtime.store.db.selectFrom('audit_log').selectAll().execute();

  beforeAll(async () => {
    t = await startTestRuntime(dialect);
    env = databaseEnv(t.config.database, t.dataDir);
    for (const slug of ['acme', 'other']) {
      const res = await admin({ method: 'POST', url: '/admin/v1/accounts', payload: { name: slug, slug } });
      expect(res.statusCode).toBe(201);
    }
  });
  afterAll(() => t?.close());

  describe('the admin API', () => {
    it('creates users: a password given, or one generated and shown once; conflicts and bad roles refused', async () => {
      const owner = await admin({
        method: 'POST',
        url: '/admin/v1/users',
        payload: {
          email: 'Owner@Acme.example',
          name: 'Olga',
          role: 'owner',
          account: 'acme',
          password: 'owner password 1',
        },
      });
      expect(owner.statusCode, owner.body).toBe(201);
      expect(owner.json()).toEqual({
        id: expect.stringMatching(/^usr_/),
        email: 'owner@acme.example',
        name: 'Olga',
        role: 'owner',
        active: true,
        account: { name: 'acme', slug: 'acme' },
        created_at: expect.any(String),
        last_sign_in_at: null,
      });
      const operator = await admin({
        method: 'POST',
        url: '/admin/v1/users',
        payload: { email: 'ops@example.com', role: 'operator' },
      });
      expect(operator.statusCode).toBe(201);
      const { password, ...user } = operator.json();
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(user).toMatchObject({ name: 'ops', role: 'operator', account: null });
      const session = await signIn(t, { email: 'ops@example.com', password });
      expect(session.session.user).toMatchObject({ role: 'operator', account: null });

      const refusals: [object, number, string][] = [
        [
          { email: 'OWNER@acme.example', role: 'member', account: 'acme' },
          409,
          'Conflict: a user with email owner@acme.example exists',
        ],
        [{ email: 'x@example.com', role: 'owner' }, 400, 'Bad Request: account is required for an owner'],
        [
          { email: 'x@example.com', role: 'operator', account: 'acme' },
          400,
          'Bad Request: account must not be given for an operator',
        ],
        [{ email: 'x@example.com', role: 'member', account: 'nobody' }, 404, 'Not Found: no account nobody'],
        [{ email: 'not an email', role: 'operator' }, 400, 'Bad Request: email must be an email address'],
        [
          { email: 'x@example.com', role: 'admin' },
          400,
          'Bad Request: role must be one of owner, member, operator',
        ],
        [
          { email: 'x@example.com', role: 'operator', password: 'short' },
          400,
          'Bad Request: password must have 10 to 200 characters',
        ],
      ];
      for (const [payload, status, error] of refusals) {
        const res = await admin({ method: 'POST', url: '/admin/v1/users', payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(status);
        if (status !== 400 || !error.includes('role must be')) expect(res.json()).toEqual({ error });
      }
    });

    it('lists, updates, resets and deletes; the last active owner of an account stays (409)', async () => {
      const created = await admin({
        method: 'POST',
        url: '/admin/v1/users',
        payload: { email: 'm@other.example', role: 'owner', account: 'other', password: 'member password' },
      });
      const id = created.json().id;
      const list = await admin({ url: '/admin/v1/users?account=other' });
      expect(list.json().users.map((u: { email: string }) => u.email)).toEqual(['m@other.example']);
      expect((await admin({ url: '/admin/v1/users?account=nobody' })).statusCode).toBe(404);

      for (const payload of [{ role: 'member' }, { active: false }]) {
        const res = await admin({ method: 'PATCH', url: `/admin/v1/users/${id}`, payload });
        expect(res.statusCode).toBe(409);
        expect(res.json()).toEqual({ error: 'Conflict: the account would be left without an active owner' });
      }
      expect((await admin({ method: 'DELETE', url: `/admin/v1/users/${id}` })).statusCode).toBe(409);
      const renamed = await admin({
        method: 'PATCH',
        url: `/admin/v1/users/${id}`,
        payload: { name: 'Mia' },
      });
      expect(renamed.json()).toMatchObject({ name: 'Mia', role: 'owner', active: true });
      const toOperator = await admin({
        method: 'PATCH',
        url: `/admin/v1/users/${id}`,
        payload: { role: 'operator' },
      });
      expect(toOperator.json()).toEqual({
        error: "Bad Request: role cannot move between operator and an account's roles",
      });

      const browser = await signIn(t, { email: 'm@other.example', password: 'member password' });
      const generated = await admin({ method: 'POST', url: `/admin/v1/users/${id}/password` });
      expect(generated.statusCode).toBe(200);
      const { password } = generated.json();
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      // Every session of the user ended.
      const stale = await t.runtime.app.inject({
        url: '/console/api/session',
        headers: { cookie: browser.cookie },
      });
      expect(stale.statusCode).toBe(401);
      await signIn(t, { email: 'm@other.example', password });
      const given = await admin({
        method: 'POST',
        url: `/admin/v1/users/${id}/password`,
        payload: { password: 'chosen by the operator' },
      });
      expect(given.statusCode).toBe(204);
      await signIn(t, { email: 'm@other.example', password: 'chosen by the operator' });

      const second = await admin({
        method: 'POST',
        url: '/admin/v1/users',
        payload: {
          email: 'second@other.example',
          role: 'owner',
          account: 'other',
          password: 'second password',
        },
      });
      expect(
        (await admin({ method: 'PATCH', url: `/admin/v1/users/${id}`, payload: { role: 'member' } }))
          .statusCode,
      ).toBe(200);
      expect((await admin({ method: 'DELETE', url: `/admin/v1/users/${id}` })).statusCode).toBe(204);
      expect((await admin({ method: 'DELETE', url: `/admin/v1/users/${id}` })).statusCode).toBe(404);
      expect((await admin({ method: 'DELETE', url: `/admin/v1/users/${second.json().id}` })).statusCode).toBe(
        409,
      );
    });

    it('writes every operation to the audit log as the admin API from the client address; reads it by account, action and page', async () => {
      const key = await admin({
        method: 'POST',
        url: '/admin/v1/keys',
        payload: { account: 'acme', alias: 'ci' },
      });
      const keyId = key.json().id;
      await admin({
        method: 'PATCH',
        url: `/admin/v1/keys/${keyId}`,
        payload: { alias: 'ci-2', quotas: { daily: 5 } },
      });
      await admin({ method: 'POST', url: `/admin/v1/keys/${keyId}/revoke` });
      await admin({ method: 'PATCH', url: '/admin/v1/accounts/acme', payload: { monthly_quota: 100 } });
      await admin({
        method: 'POST',
        url: '/admin/v1/accounts/acme/packs',
        payload: { total: 10, title: 'Launch' },
      });
      await admin({
        method: 'POST',
        url: '/admin/v1/accounts/acme/credits',
        payload: { amount: 5, note: 'sorry' },
      });
      await admin({ url: '/admin/v1/accounts/acme/webhook-secret' });
      await admin({ method: 'POST', url: '/admin/v1/accounts/acme/webhook-secret/rotate' });

      const res = await admin({ url: '/admin/v1/audit?account=acme&limit=200' });
      expect(res.statusCode).toBe(200);
      const entries = res.json().entries as {
        action: string;
        actor: object;
        ip: string;
        account: string;
        target: string;
        detail: object;
      }[];
      const actions = entries.map((e) => e.action);
      for (const action of [
        'account.create',
        'account.update',
        'user.create',
        'key.create',
        'key.update',
        'key.revoke',
        'pack.add',
        'credits.grant',
        'webhook_secret.show',
        'webhook_secret.rotate',
      ]) {
        expect(actions, action).toContain(action);
      }
      for (const entry of entries.filter((e) => e.action !== 'session.sign_in')) {
        expect(entry.actor).toEqual({ kind: 'admin_api', id: null, email: null });
        expect(entry.ip).toBe('10.9.0.1');
        expect(entry.account).toBe('acme');
      }
      expect(entries.find((e) => e.action === 'key.update')).toMatchObject({
        target: keyId,
        detail: { alias: 'ci-2', quotas: { daily: 5 } },
      });
      expect(entries.find((e) => e.action === 'account.update')?.detail).toEqual({ monthly_quota: 100 });
      // Newest first, and paged: the pages together are the whole list.
      const pages: string[] = [];
      let next: string | null = null;
      do {
        const page = await admin({
          url: `/admin/v1/audit?account=acme&limit=3${next === null ? '' : `&before=${next}`}`,
        });
        const body = page.json();
        expect(body.entries.length).toBeLessThanOrEqual(3);
        pages.push(...body.entries.map((e: { id: string }) => e.id));
        next = body.next;
      } while (next !== null);
      expect(pages).toEqual(entries.map((e) => (e as unknown as { id: string }).id));
      const revokes = await admin({ url: '/admin/v1/audit?action=key.revoke' });
      expect(revokes.json().entries.map((e: { target: string }) => e.target)).toEqual([keyId]);

      const bad = await admin({ url: '/admin/v1/audit?before=not-a-cursor' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({ error: 'Bad Request: before is not the next of a page of this list' });
      expect((await admin({ url: '/admin/v1/audit?limit=201' })).statusCode).toBe(400);
      expect((await admin({ url: '/admin/v1/audit?account=nobody' })).statusCode).toBe(404);

      const all = JSON.stringify(await auditRows());
      for (const secret of [
        key.json().key,
        'owner password 1',
        'member password',
        'chosen by the operator',
        'whsec_',
        ADMIN_TOKEN,
      ]) {
        expect(all).not.toContain(secret);
      }
    });
  });

  describe('webcap admin', () => {
    it('creates a user with --password-stdin, or prints a generated password once', async () => {
      const made = await webcapJson<{ id: string; email: string; role: string; password?: string }>(
        [
          'admin',
          'users',
          'create',
          '--email',
          'cli@acme.example',
          '--role',
          'member',
          '--account',
          'acme',
          '--password-stdin',
        ],
        env,
        'piped password here\n',
      );
      expect(made).toMatchObject({ email: 'cli@acme.example', role: 'member' });
      expect(made.password).toBeUndefined();
      await signIn(t, { email: 'cli@acme.example', password: 'piped password here' });

      const human = await webcap(
        ['admin', 'users', 'create', '--email', 'gen@acme.example', '--role', 'member', '--account', 'acme'],
        env,
      );
      expect(human.code, human.stderr).toBe(0);
      const password = /\n\n {2}(\S+)\n\nThe password is shown only this once\./.exec(human.stdout)?.[1];
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      await signIn(t, { email: 'gen@acme.example', password: password as string });

      const short = await webcap(
        [
          'admin',
          'users',
          'create',
          '--email',
          'short@acme.example',
          '--role',
          'member',
          '--account',
          'acme',
          '--password-stdin',
        ],
        env,
        'short\n',
      );
      expect(short.code).toBe(1);
      expect(short.stderr).toBe('webcap: Bad Request: password must have 10 to 200 characters\n');
      const badRole = await webcap(
        ['admin', 'users', 'create', '--email', 'r@acme.example', '--role', 'king'],
        env,
      );
      expect(badRole.code).toBe(2);
    });

    it('lists, updates, resets and deletes users, and reads the audit log with the CLI as its actor', async () => {
      const { users } = await webcapJson<{ users: { id: string; email: string }[] }>(
        ['admin', 'users', 'list', '--account', 'acme'],
        env,
      );
      const id = users.find((u) => u.email === 'gen@acme.example')?.id as string;
      const updated = await webcapJson(
        ['admin', 'users', 'update', id, '--name', 'Gene', '--active', 'false'],
        env,
      );
      expect(updated).toMatchObject({ name: 'Gene', active: false });
      const reset = await webcapJson<{ password?: string }>(
        ['admin', 'users', 'reset-password', id, '--password-stdin'],
        env,
        'a reset password\n',
      );
      expect(reset.password).toBeUndefined();
      const generated = await webcapJson<{ password?: string }>(
        ['admin', 'users', 'reset-password', id],
        env,
      );
      expect(generated.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(await webcapJson(['admin', 'users', 'delete', id], env)).toEqual({ deleted: id });
      await webcapJson(['admin', 'keys', 'create', '--account', 'acme', '--alias', 'from-cli'], env);

      const audit = await webcapJson<{
        entries: { action: string; actor: object; ip: null; target: string }[];
      }>(['admin', 'audit', '--account', 'acme', '--limit', '200'], env);
      const byCli = audit.entries.filter((e) => (e.actor as { kind: string }).kind === 'cli');
      expect(byCli.map((e) => e.action)).toEqual(
        expect.arrayContaining([
          'user.create',
          'user.update',
          'user.password_reset',
          'user.delete',
          'key.create',
        ]),
      );
      for (const entry of byCli) {
        expect(entry.actor).toEqual({ kind: 'cli', id: null, email: null });
        expect(entry.ip).toBeNull();
      }
      const human = await webcap(['admin', 'audit', '--action', 'user.delete'], env);
      expect(human.stdout).toMatch(/\tuser\.delete\tcli\tacme\t/);
      const limited = await webcap(['admin', 'audit', '--limit', '201'], env);
      expect(limited.code).toBe(2);
      const all = JSON.stringify(await auditRows());
      expect(all).not.toContain('piped password here');
      expect(all).not.toContain('a reset password');
      expect(all).not.toContain(generated.password);
    });
  });
});
