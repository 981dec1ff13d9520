import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneConsoleRows } from '../src/admin/sessions.js';
import { createAccount, updateAccount } from '../src/billing/accounts.js';
import { addUser, asBrowser, type Browser, browserOf, signIn } from './helpers/console.js';
import { DIALECTS } from './helpers/databases.js';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

const PASSWORD = 'correct horse battery';
const HOUR = 3_600_000;

describe.each(DIALECTS)('console sessions on %s', (dialect) => {
  let t: TestRuntime;
  /** The service's clock, moved by the tests (session expiry, lockouts). */
  let now = Date.parse('2026-11-01T10:00:00Z');
  const inject = (options: InjectOptions) => t.runtime.app.inject(options);
  const as = (browser: Browser, options: InjectOptions) => inject(asBrowser(browser, options));
  const audit = async (action: string) =>
    t.runtime.store.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

  beforeAll(async () => {
    t = await startTestRuntime(dialect, { clock: () => new Date(now) });
    const { db } = t.runtime.store;
    await createAccount(db, { name: 'Acme', slug: 'acme', statsEnabled: true }, new Date(now));
    await createAccount(db, { name: 'Gone', slug: 'gone' }, new Date(now));
  });
  afterAll(() => t?.close());

  describe('happy', () => {
    it('signs in with email and password: the Session, and the cookie HttpOnly, SameSite=Strict, Path=/', async () => {
      const user = await addUser(t, {
        email: 'Ana@Example.com',
        name: 'Ana',
        role: 'owner',
        accountSlug: 'acme',
        password: PASSWORD,
      });
      const res = await inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email: '  ANA@example.COM ', password: PASSWORD },
      });
      expect(res.statusCode, res.body).toBe(200);
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^webcap_session=[A-Za-z0-9_-]{43}; /);
      expect(cookie.split('; ').slice(1)).toEqual([
        'HttpOnly',
        'SameSite=Strict',
        'Path=/',
        'Max-Age=604800',
      ]);
      const body = res.json();
      expect(body).toEqual({
        user: {
          id: user.id,
          email: 'ana@example.com',
          name: 'Ana',
          role: 'owner',
          account: { name: 'Acme', slug: 'acme', stats_enabled: true },
        },
        csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        expires_at: new Date(now + 720 * 60_000).toISOString(),
      });
      expect(res.headers['cache-control']).toBe('no-store');
      // The token is stored only as its hash.
      const token = cookie.slice('webcap_session='.length, cookie.indexOf(';'));
      const rows = await t.runtime.store.db.selectFrom('console_sessions').select('id').execute();
      expect(rows.map((r) => r.id)).not.toContain(token);

      const browser = browserOf(res);
      const again = await as(browser, { url: '/console/api/session' });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(body);
      expect((await audit('session.sign_in')).some((row) => row.actor_id === user.id)).toBe(true);
    });

    it('signs the operator in with WEBCAP_ADMIN_TOKEN', async () => {
      const browser = await signIn(t, { admin_token: ADMIN_TOKEN });
      expect(browser.session.user).toEqual({
        id: null,
        email: null,
        name: 'Operator',
        role: 'operator',
        account: null,
      });
      const rows = await audit('session.sign_in');
      expect(rows.some((row) => row.actor_kind === 'admin_token')).toBe(true);
    });

    it('signs out (204, cookie cleared), and out everywhere', async () => {
      await addUser(t, { email: 'out@example.com', role: 'member', accountSlug: 'acme', password: PASSWORD });
      const one = await signIn(t, { email: 'out@example.com', password: PASSWORD });
      const two = await signIn(t, { email: 'out@example.com', password: PASSWORD });
      const three = await signIn(t, { email: 'out@example.com', password: PASSWORD });
      const out = await as(one, { method: 'DELETE', url: '/console/api/session' });
      expect(out.statusCode).toBe(204);
      expect(out.body).toBe('');
      expect(String(out.headers['set-cookie'])).toMatch(
        /^webcap_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0/,
      );
      expect((await as(one, { url: '/console/api/session' })).statusCode).toBe(401);
      expect((await as(two, { url: '/console/api/session' })).statusCode).toBe(200);

      const everywhere = await as(two, { method: 'POST', url: '/console/api/session/everywhere' });
      expect(everywhere.statusCode).toBe(204);
      for (const browser of [two, three]) {
        const res = await as(browser, { url: '/console/api/session' });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'Unauthorized: sign in' });
      }
      expect((await audit('session.sign_out')).length).toBeGreaterThan(0);
      expect((await audit('session.sign_out_everywhere')).length).toBeGreaterThan(0);
    });

    it('changes the password: the other sessions end, this one stays, the new password signs in', async () => {
      await addUser(t, { email: 'pw@example.com', role: 'member', accountSlug: 'acme', password: PASSWORD });
      const here = await signIn(t, { email: 'pw@example.com', password: PASSWORD });
      const there = await signIn(t, { email: 'pw@example.com', password: PASSWORD });
      const wrong = await as(here, {
        method: 'POST',
        url: '/console/api/password',
        payload: { current_password: 'not the password', new_password: 'a new long password' },
      });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toEqual({ error: 'Bad Request: current_password is wrong' });
      const short = await as(here, {
        method: 'POST',
        url: '/console/api/password',
        payload: { current_password: PASSWORD, new_password: 'short' },
      });
      expect(short.json()).toEqual({ error: 'Bad Request: new_password must have 10 to 200 characters' });
      const changed = await as(here, {
        method: 'POST',
        url: '/console/api/password',
        payload: { current_password: PASSWORD, new_password: 'a new long password' },
      });
      expect(changed.statusCode, changed.body).toBe(204);
      expect((await as(here, { url: '/console/api/session' })).statusCode).toBe(200);
      expect((await as(there, { url: '/console/api/session' })).statusCode).toBe(401);
      await signIn(t, { email: 'pw@example.com', password: 'a new long password' });
      const old = await inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email: 'pw@example.com', password: PASSWORD },
      });
      expect(old.statusCode).toBe(401);
      expect((await audit('user.password_change')).length).toBe(1);
    });

    it('ends a session after CONSOLE_SESSION_IDLE_MINUTES without use, and CONSOLE_SESSION_MAX_HOURS after sign-in', async () => {
      await addUser(t, {
        email: 'time@example.com',
        role: 'member',
        accountSlug: 'acme',
        password: PASSWORD,
      });
      const idle = await signIn(t, { email: 'time@example.com', password: PASSWORD });
      now += 11 * HOUR;
      expect((await as(idle, { url: '/console/api/session' })).statusCode).toBe(200);
      now += 11 * HOUR;
      // 11 h after its last use: still within the 12 h.
      expect((await as(idle, { url: '/console/api/session' })).statusCode).toBe(200);
      now += 12 * HOUR + 1000;
      expect((await as(idle, { url: '/console/api/session' })).statusCode).toBe(401);

      const used = await signIn(t, { email: 'time@example.com', password: PASSWORD });
      const start = now;
      while (now - start < 167 * HOUR) {
        now += 10 * HOUR;
        const res = await as(used, { url: '/console/api/session' });
        if (now - start < 168 * HOUR) expect(res.statusCode).toBe(200);
        else expect(res.statusCode).toBe(401);
      }
      now = start + 168 * HOUR;
      expect((await as(used, { url: '/console/api/session' })).statusCode).toBe(401);
    });

    it('prunes ended sessions, sign-in failures nothing counts any more and expired invitations (the upkeep)', async () => {
      const { db } = t.runtime.store;
      const owner = await addUser(t, {
        email: 'prune-owner@example.com',
        role: 'owner',
        accountSlug: 'acme',
        password: PASSWORD,
      });
      const inviter = await signIn(t, { email: 'prune-owner@example.com', password: PASSWORD });
      const invited = await as(inviter, {
        method: 'POST',
        url: '/console/api/invites',
        payload: { email: 'later@example.com', role: 'member' },
      });
      expect(invited.statusCode, invited.body).toBe(201);
      const invitations = () =>
        db.selectFrom('console_invitations').select('email').where('created_by', '=', owner.id).execute();
      await addUser(t, {
        email: 'prune@example.com',
        role: 'member',
        accountSlug: 'acme',
        password: PASSWORD,
      });
      const live = await signIn(t, { email: 'prune@example.com', password: PASSWORD });
      await inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email: 'prune@example.com', password: 'wrong password here' },
        remoteAddress: '10.0.3.1',
      });
      const idleMs = 720 * 60_000;
      await pruneConsoleRows(db, new Date(now), idleMs);
      expect((await as(live, { url: '/console/api/session' })).statusCode).toBe(200);
      expect(await invitations()).toEqual([{ email: 'later@example.com' }]);
      const failures = () => db.selectFrom('console_sign_in_failures').select('subject').execute();
      expect((await failures()).map((r) => r.subject)).toContain('ip:10.0.3.1');
      await pruneConsoleRows(db, new Date(now + 25 * HOUR), idleMs);
      expect((await failures()).map((r) => r.subject)).not.toContain('ip:10.0.3.1');
      expect((await failures()).map((r) => r.subject)).not.toContain('email:prune@example.com');
      const sessions = await db.selectFrom('console_sessions').select('id').execute();
      expect(sessions).toEqual([]);
      // Seven days on, the invitation has expired and goes too.
      expect(await invitations()).toEqual([{ email: 'later@example.com' }]);
      await pruneConsoleRows(db, new Date(now + 8 * 24 * HOUR), idleMs);
      expect(await invitations()).toEqual([]);
    });
  });

  describe('errors', () => {
    it('answers 401 with the one message for a wrong password and an unknown email, and for a wrong admin token', async () => {
      await addUser(t, { email: 'bo@example.com', role: 'member', accountSlug: 'acme', password: PASSWORD });
      for (const email of ['bo@example.com', 'nobody@example.com']) {
        const res = await inject({
          method: 'POST',
          url: '/console/api/session',
          payload: { email, password: 'wrong password here' },
          remoteAddress: '10.0.0.2',
        });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'Unauthorized: email or password is wrong' });
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      const token = await inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { admin_token: 'not-the-admin-token' },
        remoteAddress: '10.0.0.2',
      });
      expect(token.json()).toEqual({ error: 'Unauthorized: admin token is wrong' });
      const failures = await audit('session.sign_in_failed');
      const reasons = failures
        .filter((row) => row.ip === '10.0.0.2')
        .map((row) => JSON.parse(row.detail).reason);
      expect(reasons.sort()).toEqual(['unknown email', 'wrong admin token', 'wrong password']);
      // Never the password tried or the token.
      expect(JSON.stringify(failures)).not.toMatch(/wrong password here|not-the-admin-token/);
    });

    it('answers 401 to every route without a session, and drops a cookie that opens none', async () => {
      const none = await inject({ url: '/console/api/session' });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toEqual({ error: 'Unauthorized: sign in' });
      const stale = await inject({
        url: '/console/api/session',
        headers: { cookie: `webcap_session=${'a'.repeat(43)}` },
      });
      expect(stale.statusCode).toBe(401);
      expect(String(stale.headers['set-cookie'])).toMatch(/^webcap_session=; .*Max-Age=0/);
      const unknown = await inject({ url: '/console/api/nothing-here' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'Not Found' });
    });

    it('refuses a deactivated user or account (403, after the password), and ends their sessions', async () => {
      await addUser(t, { email: 'gone@example.com', role: 'owner', accountSlug: 'gone', password: PASSWORD });
      const before = await signIn(t, { email: 'gone@example.com', password: PASSWORD });
      await updateAccount(t.runtime.store.db, 'gone', { active: false }, new Date(now));
      expect((await as(before, { url: '/console/api/session' })).statusCode).toBe(401);
      const res = await inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email: 'gone@example.com', password: PASSWORD },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Forbidden: account deactivated' });
      const wrong = await inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email: 'gone@example.com', password: 'wrong password here' },
      });
      expect(wrong.statusCode).toBe(401);
    });

    it('locks an email after 5 failures in a row: even the right password gets 401 with Retry-After, 30 s doubling', async () => {
      await addUser(t, {
        email: 'lock@example.com',
        role: 'member',
        accountSlug: 'acme',
        password: PASSWORD,
      });
      const attempt = (password: string) =>
        inject({
          method: 'POST',
          url: '/console/api/session',
          payload: { email: 'lock@example.com', password },
          remoteAddress: '10.0.1.1',
        });
      for (let i = 0; i < 5; i += 1) expect((await attempt('wrong password here')).statusCode).toBe(401);
      const locked = await attempt(PASSWORD);
      expect(locked.statusCode).toBe(401);
      expect(locked.json()).toEqual({ error: 'Unauthorized: too many failed sign-ins; try again later' });
      expect(locked.headers['retry-after']).toBe('30');
      expect(locked.headers['set-cookie']).toBeUndefined();
      // The lock holds for every address.
      const elsewhere = await inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email: 'LOCK@example.com', password: PASSWORD },
        remoteAddress: '10.0.1.2',
      });
      expect(elsewhere.statusCode).toBe(401);

      now += 31_000;
      // A further failure locks it for twice as long.
      expect((await attempt('wrong password here')).statusCode).toBe(401);
      expect((await attempt(PASSWORD)).headers['retry-after']).toBe('60');
      now += 61_000;
      expect((await attempt(PASSWORD)).statusCode).toBe(200);
      // A success clears the count: one failure does not lock it.
      expect((await attempt('wrong password here')).statusCode).toBe(401);
      expect((await attempt(PASSWORD)).statusCode).toBe(200);
      const locks = (await audit('session.sign_in_locked')).filter(
        (row) => row.actor_email === 'lock@example.com',
      );
      expect(locks.map((row) => JSON.parse(row.detail).scope)).toEqual(['email', 'email']);
    });

    it('locks an address after 30 failures within 15 min, whichever emails were tried', async () => {
      await addUser(t, {
        email: 'addr@example.com',
        role: 'member',
        accountSlug: 'acme',
        password: PASSWORD,
      });
      const attempt = (email: string, password: string) =>
        inject({
          method: 'POST',
          url: '/console/api/session',
          payload: { email, password },
          remoteAddress: '10.0.2.1',
        });
      for (let i = 0; i < 30; i += 1) {
        expect((await attempt(`guess${i}@example.com`, 'wrong password here')).statusCode).toBe(401);
      }
      const locked = await attempt('addr@example.com', PASSWORD);
      expect(locked.statusCode).toBe(401);
      expect(locked.headers['retry-after']).toBe('900');
      // Elsewhere the same person signs in.
      await signIn(t, { email: 'addr@example.com', password: PASSWORD }, '10.0.2.2');
      now += 15 * 60_000 + 1000;
      expect((await attempt('addr@example.com', PASSWORD)).statusCode).toBe(200);
    });
  });

  describe('security', () => {
    it('refuses a state change without the CSRF token, with a wrong one, or from another origin (403)', async () => {
      await addUser(t, {
        email: 'csrf@example.com',
        role: 'member',
        accountSlug: 'acme',
        password: PASSWORD,
      });
      const browser = await signIn(t, { email: 'csrf@example.com', password: PASSWORD });
      const other = await signIn(t, { email: 'csrf@example.com', password: PASSWORD });
      const refused = [
        { cookie: browser.cookie },
        { cookie: browser.cookie, 'x-csrf-token': 'wrong' },
        // Another session's token is not this one's.
        { cookie: browser.cookie, 'x-csrf-token': other.csrf },
      ];
      for (const headers of refused) {
        const res = await inject({ method: 'DELETE', url: '/console/api/session', headers });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: 'Forbidden: CSRF token missing or wrong' });
      }
      const cross = await as(browser, {
        method: 'DELETE',
        url: '/console/api/session',
        headers: { origin: 'https://evil.example' },
      });
      expect(cross.statusCode).toBe(403);
      expect(cross.json()).toEqual({ error: 'Forbidden: cross-origin request refused' });
      // Signing in is guarded by the Origin and the JSON body, having no session yet.
      const form = await inject({
        method: 'POST',
        url: '/console/api/session',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=csrf%40example.com&password=correct+horse+battery',
      });
      expect(form.statusCode).toBe(400);
      expect(form.json()).toEqual({ error: 'Bad Request: Content-Type must be application/json' });
      const text = await inject({
        method: 'POST',
        url: '/console/api/session',
        headers: { 'content-type': 'text/plain' },
        payload: JSON.stringify({ email: 'csrf@example.com', password: PASSWORD }),
      });
      expect(text.statusCode).toBe(400);
      const crossSignIn = await inject({
        method: 'POST',
        url: '/console/api/session',
        headers: { origin: 'https://evil.example' },
        payload: { email: 'csrf@example.com', password: PASSWORD },
      });
      expect(crossSignIn.statusCode).toBe(403);
      const sameOrigin = await inject({
        method: 'POST',
        url: '/console/api/session',
        headers: { origin: 'http://localhost:80' },
        payload: { email: 'csrf@example.com', password: PASSWORD },
      });
      expect(sameOrigin.statusCode, sameOrigin.body).toBe(200);
      // Still signed in: nothing refused above had any effect.
      expect((await as(browser, { url: '/console/api/session' })).statusCode).toBe(200);
    });

    it('takes hostile sign-in bodies as 400s naming the parameter, never a 500', async () => {
      const cases: [unknown, string][] = [
        [{ email: 'a@example.com' }, 'Bad Request: password is required'],
        [{ password: 'x' }, 'Bad Request: email is required'],
        [
          { email: 'a@example.com', password: 'x', admin_token: 'y' },
          'Bad Request: admin_token is sent alone, without email and password',
        ],
        [
          { email: 'x'.repeat(300), password: 'p' },
          'Bad Request: email must NOT have more than 254 characters',
        ],
        [
          { email: 'a@example.com', password: 'p'.repeat(201) },
          'Bad Request: password must NOT have more than 200 characters',
        ],
        [{ email: { a: 1 }, password: 'p' }, 'Bad Request: email must be string'],
        [{ email: 'a@example.com', password: 'p', extra: 1 }, 'Bad Request: extra is not a known parameter'],
        [[], 'Bad Request: body must be object'],
      ];
      for (const [payload, error] of cases) {
        const res = await inject({ method: 'POST', url: '/console/api/session', payload: payload as object });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json()).toEqual({ error });
      }
      for (const payload of ['{', '{"email": "a@example.com", "password": "\u0000"', 'null']) {
        const res = await inject({
          method: 'POST',
          url: '/console/api/session',
          headers: { 'content-type': 'application/json' },
          payload,
        });
        expect(res.statusCode, payload).toBe(400);
      }
    });
  });
});

describe('the session cookie behind an https PUBLIC_BASE_URL', () => {
  it('is __Host-webcap_session, Secure, Path=/ and without Domain; the plain name opens nothing there', async () => {
    const t = await startTestRuntime('sqlite', { env: { PUBLIC_BASE_URL: 'https://webcap.example' } });
    try {
      await createAccount(t.runtime.store.db, { name: 'S', slug: 's' }, new Date());
      await addUser(t, { email: 's@example.com', role: 'owner', accountSlug: 's', password: PASSWORD });
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: '/console/api/session',
        headers: { origin: 'https://webcap.example' },
        payload: { email: 's@example.com', password: PASSWORD },
      });
      expect(res.statusCode, res.body).toBe(200);
      const attributes = String(res.headers['set-cookie']).split('; ');
      expect(attributes[0]).toMatch(/^__Host-webcap_session=[A-Za-z0-9_-]{43}$/);
      expect(attributes).toContain('Secure');
      expect(attributes).toContain('Path=/');
      expect(attributes.some((a) => /^domain=/i.test(a))).toBe(false);
      const token = (attributes[0] as string).split('=')[1];
      const session = (cookie: string) =>
        t.runtime.app.inject({ url: '/console/api/session', headers: { cookie } });
      expect((await session(`__Host-webcap_session=${token}`)).statusCode).toBe(200);
      // A cookie without the prefix may come from another host of the domain (or plain http).
      expect((await session(`webcap_session=${token}`)).statusCode).toBe(401);
      // An invitation link is PUBLIC_BASE_URL's, whatever Host the request named.
      const invited = await t.runtime.app.inject({
        method: 'POST',
        url: '/console/api/invites',
        headers: {
          cookie: `__Host-webcap_session=${token}`,
          'x-csrf-token': res.json().csrf_token,
          host: 'attacker.example',
        },
        payload: { email: 'new@example.com', role: 'member' },
      });
      expect(invited.statusCode, invited.body).toBe(201);
      expect(invited.json().invite_url).toMatch(
        /^https:\/\/webcap\.example\/console\/invite\/[A-Za-z0-9_-]{43}$/,
      );
      // The published origin counts, and so does the address the page was opened at (the
      // request's own, as a browser on it sends it); any other is refused.
      const local = await t.runtime.app.inject({
        method: 'POST',
        url: '/console/api/session',
        headers: { origin: 'http://localhost:80' },
        payload: { email: 's@example.com', password: PASSWORD },
      });
      expect(local.statusCode, local.body).toBe(200);
      const elsewhere = await t.runtime.app.inject({
        method: 'POST',
        url: '/console/api/session',
        headers: { origin: 'https://webcap.example.evil' },
        payload: { email: 's@example.com', password: PASSWORD },
      });
      expect(elsewhere.statusCode).toBe(403);
      expect(elsewhere.json()).toEqual({ error: 'Forbidden: cross-origin request refused' });
    } finally {
      await t.close();
    }
  });
});

describe('the session cookie behind a trusted proxy', () => {
  it('is __Host- when the proxy forwards https, the plain name over http', async () => {
    const t = await startTestRuntime('sqlite', { env: { TRUST_PROXY: '1' } });
    try {
      await createAccount(t.runtime.store.db, { name: 'P', slug: 'p' }, new Date());
      await addUser(t, { email: 'p@example.com', role: 'owner', accountSlug: 'p', password: PASSWORD });
      const signIn = (proto: string) =>
        t.runtime.app.inject({
          method: 'POST',
          url: '/console/api/session',
          headers: { 'x-forwarded-proto': proto, 'x-forwarded-for': '203.0.113.7' },
          payload: { email: 'p@example.com', password: PASSWORD },
        });
      const overHttps = await signIn('https');
      expect(overHttps.statusCode, overHttps.body).toBe(200);
      expect(String(overHttps.headers['set-cookie'])).toMatch(/^__Host-webcap_session=[^;]+; .*Secure/);
      const overHttp = await signIn('http');
      expect(String(overHttp.headers['set-cookie'])).toMatch(/^webcap_session=/);
      expect(String(overHttp.headers['set-cookie']).split('; ')).not.toContain('Secure');
    } finally {
      await t.close();
    }
  });
});
