import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, processSetup, runCli, type ServerProcess, startServer } from './helpers/cli.js';
import { DIALECTS, dropDatabase } from './helpers/databases.js';
import { startServer as startSite, type TestServer } from './helpers/net-fixtures.js';

const ADMIN_TOKEN = 'console-processes-admin-token';

/*
 * The console's server side as it runs: `webcap admin users create` in its own process with the
 * password piped to its standard input, sign-in to a `webcap serve` over a real connection, a
 * playground call billed to the key, and the audit log read back with `webcap admin audit`.
 */
describe.each(DIALECTS)('console users across processes on %s', (dialect) => {
  const { database, env } = processSetup(dialect, ADMIN_TOKEN);
  let server: ServerProcess;
  let site: TestServer;
  let keyId = '';

  beforeAll(async () => {
    site = await startSite((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>Site</title></html>');
    });
    server = await startServer(env);
    await cliJson(
      ['admin', 'accounts', 'create', '--name', 'Acme', '--slug', 'acme', '--monthly-quota', '10'],
      env,
    );
    keyId = (await cliJson<{ id: string }>(['admin', 'keys', 'create', '--account', 'acme'], env)).id;
  });
  afterAll(async () => {
    await server?.stop();
    await site?.close();
    await dropDatabase(database);
  });

  it('creates a user from a piped password, who signs in, calls from the playground and is audited', async () => {
    const made = await runCli(
      [
        'admin',
        'users',
        'create',
        '--email',
        'ana@acme.example',
        '--role',
        'owner',
        '--account',
        'acme',
        '--password-stdin',
        '--json',
      ],
      env,
      'a piped password\n',
    );
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ email: 'ana@acme.example', role: 'owner' });
    expect(made.stdout).not.toContain('a piped password');

    const signIn = await fetch(`${server.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ana@acme.example', password: 'a piped password' }),
    });
    expect(signIn.status).toBe(200);
    const setCookie = signIn.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      /^webcap_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=604800$/,
    );
    const cookie = setCookie.split(';')[0] as string;
    const { csrf_token: csrf } = (await signIn.json()) as { csrf_token: string };

    const call = await fetch(
      `${server.url}/v1/website/crawler?query=${encodeURIComponent(`http://127.0.0.1:${site.port}/`)}`,
      { headers: { cookie, 'x-webcap-console-key': keyId, 'x-csrf-token': csrf } },
    );
    expect(call.status, await call.clone().text()).toBe(200);
    const usage = await fetch(`${server.url}/console/api/usage`, { headers: { cookie } });
    expect(((await usage.json()) as { total_used: number }).total_used).toBe(1);

    const audit = await cliJson<{
      entries: { action: string; actor: { kind: string; email: string | null } }[];
    }>(['admin', 'audit', '--account', 'acme'], env);
    const actions = audit.entries.map((e) => `${e.action} ${e.actor.kind} ${e.actor.email ?? '-'}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        'session.sign_in user ana@acme.example',
        'user.create cli -',
        'key.create cli -',
        'account.create cli -',
      ]),
    );
    expect(server.output()).not.toContain('a piped password');
    expect(server.output()).not.toContain(cookie.split('=')[1]);
  });

  it('serves /console under the CSP, built or not', async () => {
    const res = await fetch(`${server.url}/console`);
    expect([200, 503]).toContain(res.status);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self'/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});
