import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../src/billing/keys.js';
import { DIALECTS } from './helpers/databases.js';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/** Every byte the database holds for the test's schema or file, as one string. */
async function databaseContents(t: TestRuntime): Promise<string> {
  const database = t.config.database;
  if (database.kind === 'sqlite') {
    const dir = path.dirname(database.file);
    return fs
      .readdirSync(dir)
      .filter((name) => name.startsWith(path.basename(database.file)))
      .map((name) => fs.readFileSync(path.join(dir, name)).toString('latin1'))
      .join('\n');
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      'select table_name from information_schema.tables where table_schema = $1',
      [database.schema],
    );
    const dumps: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query(
        `select row_to_json(t)::text as r from "${database.schema}"."${table_name}" t`,
      );
      dumps.push(...rows.rows.map((row: { r: string }) => row.r));
    }
    return dumps.join('\n');
  } finally {
    await client.end();
  }
}

describe.each(DIALECTS)('API keys are never stored or logged in plaintext (%s)', (dialect) => {
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    t = await startTestRuntime(dialect);
    const { app } = t.runtime;
    app.get('/v1/probe', { config: { auth: 'v1' } }, async () => ({ ok: true }));
    app.route({
      method: ['GET', 'POST'],
      url: '/legacy-probe',
      config: { auth: 'legacy' },
      handler: async () => ({}),
    });
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    await app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: admin,
      payload: { name: 'S', slug: 's' },
    });
    const created = await app.inject({
      method: 'POST',
      url: '/admin/v1/keys',
      headers: admin,
      payload: { account: 's' },
    });
    key = created.json().key;

    // Present the key in every place a caller may put it, and in failing calls too.
    await app.inject({ url: '/v1/probe', headers: { 'x-api-key': key } });
    await app.inject({ url: `/v1/probe?x_api_key=${key}&url=https://example.com` });
    await app.inject({ url: `/legacy-probe?access_key=${key}` });
    await app.inject({ method: 'POST', url: '/legacy-probe', payload: { access_key: key } });
    await app.inject({
      method: 'POST',
      url: '/legacy-probe',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `access_key=${key}`,
    });
    await app.inject({ url: '/legacy-probe', headers: { 'x-access-key': key } });
    await app.inject({ url: `/v1/nowhere?x_api_key=${key}` });
    await app.inject({ url: `/v1/probe?x_api_key=${key}x` });
  });
  afterAll(() => t?.close());

  it('the database holds the hash, not the key', async () => {
    expect(key).toMatch(/^wc_test_[A-Za-z0-9_-]{32}$/);
    const contents = await databaseContents(t);
    expect(contents).toContain(hashKey(key));
    expect(contents).not.toContain(key);
    expect(contents).not.toContain(key.slice(12));
  });

  it('the logs show the requests but never the key', () => {
    const logs = t.logs.join('');
    expect(logs).toContain('/v1/probe?x_api_key=[REDACTED]&url=https://example.com');
    expect(logs).toContain('/legacy-probe?access_key=[REDACTED]');
    expect(logs).not.toContain(key.slice(12));
  });

  it('writes one access line per request: id, method, redacted URL, client, status and time', async () => {
    const before = t.logs.length;
    const res = await t.runtime.app.inject({
      url: `/v1/probe?x_api_key=${key}`,
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(res.statusCode).toBe(200);
    const lines = t.logs.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        reqId: 'trace-123',
        method: 'GET',
        url: '/v1/probe?x_api_key=[REDACTED]',
        ip: '127.0.0.1',
        statusCode: 200,
        responseTime: expect.any(Number),
      }),
    ]);
  });
});
