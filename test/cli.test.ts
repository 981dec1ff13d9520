import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, runCli, type ServerProcess, startServer } from './helpers/cli.js';
import { webcap, webcapJson } from './helpers/cli-in-process.js';
import { DIALECTS, databaseEnv, dropDatabase, freshDatabase, tempDir } from './helpers/databases.js';

const ADMIN = 'cli-test-admin-token-000';

describe.each(DIALECTS)('webcap admin CLI on %s, beside a running server', (dialect) => {
  const dataDir = tempDir();
  const database = freshDatabase(dialect, dataDir);
  const env = { ...databaseEnv(database, dataDir), WEBCAP_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn' };
  let server: ServerProcess;

  const adminGet = async (path: string): Promise<Record<string, unknown>> => {
    const res = await fetch(`${server.url}/admin/v1${path}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    return (await res.json()) as Record<string, unknown>;
  };

  beforeAll(async () => {
    server = await startServer(env);
  });
  afterAll(async () => {
    await server.stop();
    await dropDatabase(database);
  });

  it('creates an account with every option and prints every field', async () => {
    const account = await webcapJson(
      [
        'admin',
        'accounts',
        'create',
        '--name',
        'Acme',
        '--slug',
        'acme',
        '--monthly-quota',
        '500',
        '--per-second',
        '2',
        '--per-minute',
        '60',
        '--stats',
      ],
      env,
    );
    expect(account).toEqual({
      id: expect.stringMatching(/^acc_/),
      name: 'Acme',
      slug: 'acme',
      active: true,
      stats_enabled: true,
      monthly_quota: 500,
      per_second: 2,
      per_minute: 60,
      billing_anchor: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // The running server reads the same database.
    expect(await adminGet('/accounts/acme')).toEqual(account);
  });

  it('creates a key with quotas and expiry, prints the key once, and lists it without the key', async () => {
    const created = await webcapJson<Record<string, unknown> & { key: string; id: string }>(
      [
        'admin',
        'keys',
        'create',
        '--account',
        'acme',
        '--alias',
        'ops',
        '--category',
        'production',
        '--expires',
        '2999-01-01',
        '--quota-total',
        '10',
        '--quota-daily',
        '1',
        '--quota-weekly',
        '2',
        '--quota-monthly',
        '3',
      ],
      env,
    );
    expect(created).toMatchObject({
      account: 'acme',
      alias: 'ops',
      category: 'production',
      active: true,
      expires_at: '2999-01-01T00:00:00.000Z',
      quotas: { total: 10, daily: 1, weekly: 2, monthly: 3 },
      key: expect.stringMatching(/^wc_live_/),
    });
    const listed = await webcapJson<{ keys: Record<string, unknown>[] }>(
      ['admin', 'keys', 'list', '--account', 'acme'],
      env,
    );
    expect(listed.keys).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.key);
  });

  it('deactivates a key and the running server sees it within a second', async () => {
    const { id } = await webcapJson<{ id: string }>(['admin', 'keys', 'create', '--account', 'acme'], env);
    const off = await webcapJson(['admin', 'keys', 'update', id, '--active', 'false'], env);
    expect(off).toMatchObject({ id, active: false });
    const started = Date.now();
    let seen: Record<string, unknown> = {};
    while (Date.now() - started < 1000) {
      seen = await adminGet(`/keys/${id}`);
      if (seen.active === false) break;
    }
    expect(seen.active).toBe(false);
    const revoked = await webcapJson(['admin', 'keys', 'revoke', id], env);
    expect(revoked).toMatchObject({ active: false, revoked_at: expect.any(String) });
  });

  it('updates an account and clears a limit with none', async () => {
    const updated = await webcapJson(
      [
        'admin',
        'accounts',
        'update',
        'acme',
        '--per-second',
        'none',
        '--active',
        'false',
        '--stats',
        'false',
      ],
      env,
    );
    expect(updated).toMatchObject({
      slug: 'acme',
      per_second: null,
      per_minute: 60,
      active: false,
      stats_enabled: false,
    });
  });

  it("shows and rotates an account's webhook secret, the same one the admin API shows", async () => {
    await webcapJson(['admin', 'accounts', 'create', '--name', 'Hooks', '--slug', 'hooks'], env);
    const shown = await webcapJson<{ account: string; webhook_secret: string }>(
      ['admin', 'accounts', 'webhook-secret', 'hooks'],
      env,
    );
    expect(shown).toEqual({
      account: 'hooks',
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    expect(await adminGet('/accounts/hooks/webhook-secret')).toEqual(shown);
    const again = await webcapJson(['admin', 'accounts', 'webhook-secret', 'hooks'], env);
    expect(again).toEqual(shown);
    const rotated = await webcapJson<{ webhook_secret: string }>(
      ['admin', 'accounts', 'webhook-secret', 'hooks', '--rotate'],
      env,
    );
    expect(rotated.webhook_secret).not.toBe(shown.webhook_secret);
    expect(await adminGet('/accounts/hooks/webhook-secret')).toEqual({ account: 'hooks', ...rotated });
    const plain = await webcap(['admin', 'accounts', 'webhook-secret', 'hooks'], env);
    expect(plain.stdout.trim()).toBe(rotated.webhook_secret);
    expect((await webcap(['admin', 'accounts', 'webhook-secret', 'nobody'], env)).code).toBe(1);
  });

  it('adds packs, grants credits and reads the ledger in the forms scripts rely on', async () => {
    await webcapJson(['admin', 'accounts', 'create', '--name', 'Packs', '--slug', 'packs'], env);
    const pack = await webcapJson(
      ['admin', 'packs', 'add', '--account', 'packs', '--total', '500', '--title', 'Launch pack'],
      env,
    );
    expect(pack).toEqual({
      id: expect.stringMatching(/^pack_/),
      account: 'packs',
      title: 'Launch pack',
      total: 500,
      used: 0,
      remaining: 500,
      purchased_at: expect.any(String),
    });
    const grant = await webcapJson(
      ['admin', 'credits', 'grant', '--account', 'packs', '--amount', '25'],
      env,
    );
    expect(grant).toMatchObject({ account: 'packs', amount: 25, credits: { given: 25, consumed: 0 } });
    const listed = await webcapJson<{ packs: unknown[] }>(
      ['admin', 'packs', 'list', '--account', 'packs'],
      env,
    );
    expect(listed.packs).toEqual([pack]);
    const ledger = await webcapJson(['admin', 'ledger', 'packs'], env);
    expect(ledger).toEqual({
      account: 'packs',
      totals: { committed: { subscription: 0, pack: 0, credit: 0 }, reserved: 0, released: 0 },
      entries: [],
    });
    const human = await webcap(['admin', 'packs', 'add', '--account', 'packs', '--total', '0'], env);
    expect(human.code).toBe(2);
    expect(human.stderr).toContain('--total');
  });

  it('as a process of its own, creates an account and a key that the running server accepts', async () => {
    const account = await cliJson<{ slug: string }>(
      ['admin', 'accounts', 'create', '--name', 'Smoke', '--slug', 'smoke', '--monthly-quota', '5'],
      env,
    );
    expect(account.slug).toBe('smoke');
    const { key } = await cliJson<{ key: string }>(['admin', 'keys', 'create', '--account', 'smoke'], env);
    const usage = await fetch(`${server.url}/v1/usage`, { headers: { 'x-api-key': key } });
    expect(usage.status).toBe(200);
    expect(await usage.json()).toMatchObject({ remaining: 5, account: { name: 'Smoke', slug: 'smoke' } });
    const missing = await runCli(['admin', 'accounts', 'show', 'nobody'], env);
    expect(missing).toMatchObject({ code: 1, stderr: 'webcap: Not Found: no account nobody\n' });
  });

  it('explains mistakes with a non-zero exit', async () => {
    const dup = await webcap(['admin', 'accounts', 'create', '--name', 'A', '--slug', 'acme'], env);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('Conflict: account slug acme is taken');
    const badNumber = await webcap(
      ['admin', 'keys', 'create', '--account', 'acme', '--quota-daily', 'ten'],
      env,
    );
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toContain('--quota-daily');
  });
});

describe('webcap serve', () => {
  it('bootstraps account default with a development key printed on stderr, framed, once', async () => {
    const dataDir = tempDir();
    const first = await startServer({
      WEBCAP_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      WEBCAP_BOOTSTRAP_QUOTA: '250',
    });
    const key = /development API key \(shown only once\):\s+(wc_test_[A-Za-z0-9_-]{32})\n/.exec(
      first.errors(),
    )?.[1];
    expect(key).toBeDefined();
    expect(first.errors()).toMatch(/\n={72}\nwebcap: created account "default"[\s\S]*\n={72}\n/);
    expect(await first.stop()).toBe(0);
    // stdout is the log stream (JSON lines) a shipper collects: the key is never there. Read once
    // the process has ended, as the log lines are written apart from the "listening" line.
    expect(first.output()).toContain('"msg":');
    expect(first.output()).not.toContain('wc_test_');

    const second = await startServer({ WEBCAP_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    expect(second.output() + second.errors()).not.toContain('wc_test_');
    await second.stop();

    const accounts = await webcapJson<{ accounts: { slug: string; monthly_quota: number }[] }>(
      ['admin', 'accounts', 'list'],
      { WEBCAP_DATA_DIR: dataDir },
    );
    expect(accounts.accounts).toEqual([expect.objectContaining({ slug: 'default', monthly_quota: 250 })]);
  });

  it('uses WEBCAP_BOOTSTRAP_KEY when set and does not print it', async () => {
    const dataDir = tempDir();
    const chosen = 'operator-chosen-key-0123456789';
    const server = await startServer({
      WEBCAP_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      WEBCAP_BOOTSTRAP_KEY: chosen,
    });
    expect(server.errors()).toContain('WEBCAP_BOOTSTRAP_KEY');
    expect(server.output() + server.errors()).not.toContain(chosen);
    const keys = await webcapJson<{ keys: { prefix: string; alias: string }[] }>(['admin', 'keys', 'list'], {
      WEBCAP_DATA_DIR: dataDir,
    });
    expect(keys.keys).toEqual([expect.objectContaining({ alias: 'bootstrap', prefix: chosen.slice(0, 12) })]);
    expect(await server.stop()).toBe(0);
  });

  it('serves health, readiness, OpenAPI and docs, and stops cleanly on SIGTERM', async () => {
    const server = await startServer({ WEBCAP_DATA_DIR: tempDir(), LOG_LEVEL: 'warn' });
    const health = await fetch(`${server.url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await (await fetch(`${server.url}/readyz`)).json()).toMatchObject({ status: 'ready' });
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { openapi: string };
    expect(openapi.openapi).toBe('3.1.0');
    const docs = await fetch(`${server.url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
    expect(await server.stop()).toBe(0);
  });

  it('refuses a bad configuration value, naming the variable', async () => {
    const result = await runCli(['serve'], { PORT: 'eighty' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'webcap: configuration error: PORT must be an integer from 0 to 65535 (got "eighty")',
    );
    const db = await runCli(['admin', 'accounts', 'list'], { DATABASE_URL: 'mysql://x' });
    expect(db.code).toBe(2);
    expect(db.stderr).toContain('DATABASE_URL must be a URL with scheme postgres: or postgresql:');
  });

  it('a port already taken is a configuration error naming PORT, not a stack trace', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const { port } = taken.address() as AddressInfo;
    try {
      const result = await runCli(['serve'], {
        WEBCAP_DATA_DIR: tempDir(),
        PORT: String(port),
        BROWSER_PREWARM: 'false',
        LOG_LEVEL: 'warn',
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `webcap: configuration error: PORT must be a free port on 127.0.0.1 (EADDRINUSE) (got "${port}")`,
      );
      expect(result.stderr).not.toContain('    at ');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
