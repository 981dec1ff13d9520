import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../src/cli/doctor/check.js';
import { openStore } from '../src/store/db.js';
import { migrationProvider } from '../src/store/migrations.js';
import { webcap } from './helpers/cli-in-process.js';
import { databaseEnv, dropDatabase, freshDatabase, TEST_DATABASE_URL, tempDir } from './helpers/databases.js';
import { startTestRuntime } from './helpers/runtime.js';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from './helpers/s3rver.js';

/*
 * `webcap doctor` in this process, against real things: Chromium and fontconfig of this machine,
 * a real PostgreSQL (migrated, part migrated, from a newer webcap), a real Redis, s3rver, ports
 * that refuse, and TCP servers that accept and never answer. A check that fails on a server that
 * never answers fails at any deadline, so the short --timeout-ms races nothing.
 */

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BUCKET = 'doctor-bucket';
const NAMES = [
  'config',
  'chromium',
  'ffmpeg',
  'fonts latin',
  'fonts cjk',
  'fonts emoji',
  'database',
  'redis',
  'blobs',
  'data dir modes',
  'signing secret',
  'admin token',
  'metrics token',
  'port',
];
const MIGRATIONS = Object.keys(await migrationProvider.getMigrations()).sort();

interface Doctor {
  readonly code: number;
  readonly stderr: string;
  readonly checks: CheckResult[];
  check(name: string): CheckResult;
}

/** Runs `webcap doctor --json ARGS` with a data dir of its own and PORT=0 unless `env` says otherwise. */
async function doctor(env: Record<string, string> = {}, args: readonly string[] = []): Promise<Doctor> {
  const result = await webcap(['doctor', '--json', ...args], {
    WEBCAP_DATA_DIR: tempDir(),
    PORT: '0',
    ...env,
  });
  const checks = (JSON.parse(result.stdout) as { checks: CheckResult[] }).checks;
  return {
    code: result.code,
    stderr: result.stderr,
    checks,
    check(name) {
      const found = checks.find((check) => check.name === name);
      if (found === undefined) throw new Error(`no check ${name} in ${JSON.stringify(checks)}`);
      return found;
    },
  };
}

const FAST = ['--timeout-ms', '1000'];

/** A TCP server that accepts connections and never sends a byte: a stalled PostgreSQL, Redis or S3. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (taken, then given back). */
async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let silent: Awaited<ReturnType<typeof silentServer>>;
let s3: TestS3;
beforeAll(async () => {
  silent = await silentServer();
  s3 = await startS3rver([BUCKET]);
});
afterAll(async () => {
  await silent.close();
  await s3.close();
});

describe('webcap doctor: a machine-local setup', () => {
  it('prints one line per check, ok on this machine, and exits 0', async () => {
    const dataDir = tempDir();
    const result = await webcap(['doctor'], { WEBCAP_DATA_DIR: dataDir, PORT: '0' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.map((line) => /^(ok|warn|fail) +(.+?) {2}/.exec(line)?.slice(1, 3))).toEqual(
      NAMES.map((name) => ['ok', name]),
    );
    const file = path.join(dataDir, 'webcap.sqlite');
    expect(lines).toContain(
      `ok    database        SQLite ${file}: empty; \`webcap serve\` creates the tables at first start`,
    );
    expect(fs.existsSync(file)).toBe(false);
    expect(lines).toContain(
      `ok    blobs           local directory ${path.join(dataDir, 'blobs')} is writable`,
    );
    expect(lines).toContain(
      'ok    port            PORT=0: `webcap serve` listens on any free port of 127.0.0.1',
    );
  });

  it('--json prints every check with its name, status, detail and fix', async () => {
    const result = await doctor();
    expect(result.code).toBe(0);
    expect(result.checks.map((check) => check.name)).toEqual(NAMES);
    for (const check of result.checks) {
      expect(Object.keys(check)).toEqual(['name', 'status', 'detail', 'fix']);
      expect(check.fix).toBeNull();
    }
    expect(result.check('chromium').detail).toMatch(
      /^Chromium \d+\.\d+\.\d+\.\d+ at \/usr\/lib\/chromium\/chromium-headless-shell$/,
    );
    expect(result.check('ffmpeg').detail).toMatch(/^ffmpeg version \S+ .* at \/usr\/bin\/ffmpeg$/);
    expect(result.check('fonts latin').detail).toMatch(/^Latin \(.+\)$/);
    expect(result.check('fonts cjk').detail).toMatch(/^Japanese, Chinese, Korean \(.*Noto .*CJK.*\)$/);
    expect(result.check('fonts emoji').detail).toBe('colour emoji (Noto Color Emoji)');
    expect(result.check('redis').detail).toBe(
      'REDIS_URL unset: rate caps are counted per process, async jobs run in this process',
    );
    expect(result.check('signing secret').detail).toBe(
      'unset: one is generated once and kept in the database (enough for one process on this machine)',
    );
  });

  it('reads a migrated SQLite file without changing it', async () => {
    const dataDir = tempDir();
    expect((await webcap(['admin', 'accounts', 'list'], { WEBCAP_DATA_DIR: dataDir })).code).toBe(0);
    const file = path.join(dataDir, 'webcap.sqlite');
    const before = fs.statSync(file).mtimeMs;
    const result = await doctor({ WEBCAP_DATA_DIR: dataDir });
    expect(result.check('database')).toEqual({
      name: 'database',
      status: 'ok',
      detail: `SQLite ${file}: reachable, all ${MIGRATIONS.length} migrations applied`,
      fix: null,
    });
    expect(fs.statSync(file).mtimeMs).toBe(before);
  });
});

describe('webcap doctor: PostgreSQL', () => {
  const where = (schema: string) => `PostgreSQL ${TEST_DATABASE_URL}, schema ${schema}`;

  it('a schema not created yet is empty, and the doctor does not create it', async () => {
    const dataDir = tempDir();
    const database = freshDatabase('postgres', dataDir);
    if (database.kind !== 'postgres') throw new Error('unreachable');
    const result = await doctor(databaseEnv(database, dataDir));
    expect(result.code).toBe(0);
    const check = result.check('database');
    expect(check.status).toBe('ok');
    expect(check.detail).toMatch(
      /^PostgreSQL .+ \(server \d+\.\d+\): empty; `webcap serve` creates the tables at first start$/,
    );
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const schemas = await client.query('select 1 from pg_namespace where nspname = $1', [database.schema]);
    await client.end();
    expect(schemas.rowCount).toBe(0);
  });

  it('migrated: ok; a migration missing: warned by name; one unknown: failed', async () => {
    const dataDir = tempDir();
    const database = freshDatabase('postgres', dataDir);
    if (database.kind !== 'postgres') throw new Error('unreachable');
    const env = databaseEnv(database, dataDir);
    await (await openStore(database)).close();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const migrated = await doctor(env);
      expect(migrated.code).toBe(0);
      expect(migrated.check('database').status).toBe('ok');
      const detail = migrated.check('database').detail;
      expect(detail.startsWith(`${where(database.schema)} (server `)).toBe(true);
      expect(detail).toMatch(
        new RegExp(` \\(server \\d+\\.\\d+\\): reachable, all ${MIGRATIONS.length} migrations applied$`),
      );

      const last = MIGRATIONS.at(-1) ?? '';
      await client.query(`delete from "${database.schema}".kysely_migration where name = $1`, [last]);
      const behind = await doctor(env);
      expect(behind.code).toBe(0);
      expect(behind.check('database')).toMatchObject({
        status: 'warn',
        fix: '`webcap serve` (or any `webcap admin` command) applies them at start: back the database up first',
      });
      expect(behind.check('database').detail).toMatch(new RegExp(`: 1 migration pending \\(${last}\\)$`));

      await client.query(
        `insert into "${database.schema}".kysely_migration (name, timestamp) values ($1, $2)`,
        ['999_from_the_future', new Date().toISOString()],
      );
      const ahead = await doctor(env);
      expect(ahead.code).toBe(1);
      expect(ahead.stderr).toBe('webcap: doctor: 1 check failed\n');
      expect(ahead.check('database')).toMatchObject({
        status: 'fail',
        fix: 'run the webcap version that migrated it, or upgrade this one',
      });
      expect(ahead.check('database').detail).toMatch(
        /: migrated by a newer webcap \(999_from_the_future unknown to this one\)$/,
      );
    } finally {
      await client.end();
      await dropDatabase(database);
    }
  });

  it('a port where nothing listens fails at once, naming the way back to SQLite, and never prints the password', async () => {
    const port = await refusedPort();
    const result = await doctor({
      DATABASE_URL: `postgres://webcap:hunter2-secret@127.0.0.1:${port}/webcap`,
    });
    expect(result.code).toBe(1);
    expect(result.check('database')).toEqual({
      name: 'database',
      status: 'fail',
      detail: `PostgreSQL postgres://webcap:***@127.0.0.1:${port}/webcap, schema public: connection refused (nothing listens there)`,
      fix: 'start PostgreSQL there, or unset DATABASE_URL to use the embedded SQLite file',
    });
    expect(JSON.stringify(result.checks)).not.toContain('hunter2');
  });

  it('a server that never answers fails within the bound', async () => {
    const result = await doctor({ DATABASE_URL: `postgres://postgres@127.0.0.1:${silent.port}/test` }, FAST);
    expect(result.code).toBe(1);
    expect(result.check('database')).toEqual({
      name: 'database',
      status: 'fail',
      detail: `PostgreSQL postgres://postgres@127.0.0.1:${silent.port}/test, schema public: no answer within 1000 ms`,
      fix: 'check that DATABASE_URL names a PostgreSQL server reachable from this machine (address, port, firewall)',
    });
  });
});

describe('webcap doctor: Redis', () => {
  it('a real Redis: its version', async () => {
    const result = await doctor({ REDIS_URL: TEST_REDIS_URL });
    expect(result.code).toBe(0);
    expect(result.check('redis').status).toBe('ok');
    expect(result.check('redis').detail).toMatch(/^redis:\/\/127\.0\.0\.1:6379: Redis \d+\.\d+\.\d+$/);
  });

  it('a port where nothing listens', async () => {
    const port = await refusedPort();
    const result = await doctor({ REDIS_URL: `redis://127.0.0.1:${port}` }, FAST);
    expect(result.code).toBe(1);
    expect(result.check('redis')).toEqual({
      name: 'redis',
      status: 'fail',
      detail: `redis://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
      fix: 'start Redis there, correct REDIS_URL, or unset it to keep caps and jobs in this process',
    });
  });

  it('a server that never answers fails within the bound', async () => {
    const result = await doctor({ REDIS_URL: `redis://127.0.0.1:${silent.port}` }, FAST);
    expect(result.code).toBe(1);
    expect(result.check('redis')).toEqual({
      name: 'redis',
      status: 'fail',
      detail: `redis://127.0.0.1:${silent.port}: no answer within 1000 ms`,
      fix: 'check that REDIS_URL names a Redis server reachable from this machine (address, port, firewall)',
    });
  });
});

describe('webcap doctor: blobs in S3', () => {
  const s3Env = (bucket: string, endpoint = s3.endpoint) => ({
    BLOB_S3_BUCKET: bucket,
    BLOB_S3_ENDPOINT: endpoint,
    BLOB_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    BLOB_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    BLOB_S3_PREFIX: 'webcap',
  });

  it('writes, reads and deletes a probe object, and leaves nothing behind', async () => {
    const result = await doctor(s3Env(BUCKET));
    expect(result.code).toBe(0);
    expect(result.check('blobs')).toEqual({
      name: 'blobs',
      status: 'ok',
      detail: `bucket ${BUCKET} (prefix webcap/) at ${s3.endpoint}: write, read and delete work`,
      fix: null,
    });
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
    });
    const left = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    client.destroy();
    expect(left.KeyCount).toBe(0);
  });

  it('a bucket that does not exist: how to create it', async () => {
    const result = await doctor(s3Env('no-such-bucket'));
    expect(result.code).toBe(1);
    expect(result.check('blobs')).toEqual({
      name: 'blobs',
      status: 'fail',
      detail: `bucket no-such-bucket (prefix webcap/) at ${s3.endpoint}: the bucket does not exist`,
      fix: 'create it (aws s3 mb s3://no-such-bucket, with --endpoint-url for BLOB_S3_ENDPOINT)',
    });
  });

  it('an endpoint that never answers fails within the bound', async () => {
    const endpoint = `http://127.0.0.1:${silent.port}`;
    const result = await doctor(s3Env(BUCKET, endpoint), FAST);
    expect(result.code).toBe(1);
    expect(result.check('blobs')).toEqual({
      name: 'blobs',
      status: 'fail',
      detail: `bucket ${BUCKET} (prefix webcap/) at ${endpoint}: no answer within 1000 ms`,
      fix: 'check that BLOB_S3_ENDPOINT is reachable from this machine (address, port, firewall)',
    });
  });
});

describe('webcap doctor: ffmpeg', () => {
  it('an FFMPEG_PATH that does not exist, and a program that fails -version', async () => {
    const missing = await doctor({ FFMPEG_PATH: '/nonexistent/ffmpeg' });
    expect(missing.code).toBe(1);
    expect(missing.check('ffmpeg')).toEqual({
      name: 'ffmpeg',
      status: 'fail',
      detail: '/nonexistent/ffmpeg not found (animated captures need it)',
      fix: 'point FFMPEG_PATH at an ffmpeg binary, or unset it for /usr/bin/ffmpeg (apt-get install ffmpeg)',
    });
    const failing = path.join(tempDir(), 'ffmpeg');
    fs.writeFileSync(failing, '#!/bin/sh\necho "libavcodec.so.59: cannot open" >&2\nexit 127\n', {
      mode: 0o755,
    });
    const broken = await doctor({ FFMPEG_PATH: failing });
    expect(broken.code).toBe(1);
    expect(broken.check('ffmpeg').detail).toBe(`${failing} -version failed: libavcodec.so.59: cannot open`);
  });
});

describe('webcap doctor: Chromium', () => {
  it('a CHROMIUM_PATH that does not exist: point it at a browser or unset it', async () => {
    const result = await doctor({ CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(result.code).toBe(1);
    expect(result.check('chromium')).toEqual({
      name: 'chromium',
      status: 'fail',
      detail: '/nonexistent/chromium not found',
      fix: 'point CHROMIUM_PATH at a Chromium binary, or unset it for /usr/lib/chromium/chromium-headless-shell (apt-get install chromium-headless-shell)',
    });
  });

  it('a file that is not executable, and a program that fails --version', async () => {
    const dir = tempDir();
    const plain = path.join(dir, 'chromium');
    fs.writeFileSync(plain, 'not a browser\n', { mode: 0o644 });
    const notExecutable = await doctor({ CHROMIUM_PATH: plain });
    expect(notExecutable.check('chromium').detail).toBe(`${plain} not executable by this user`);
    const failing = path.join(dir, 'failing');
    fs.writeFileSync(failing, '#!/bin/sh\necho "missing libnss3.so" >&2\nexit 127\n', { mode: 0o755 });
    const broken = await doctor({ CHROMIUM_PATH: failing });
    expect(broken.code).toBe(1);
    expect(broken.check('chromium').detail).toBe(`${failing} --version failed: missing libnss3.so`);
  });
});

describe('webcap doctor: the port', () => {
  it('taken by another program: fail, naming how to find it', async () => {
    const result = await doctor({ PORT: String(silent.port) }, FAST);
    expect(result.code).toBe(1);
    expect(result.check('port')).toEqual({
      name: 'port',
      status: 'fail',
      detail: `127.0.0.1:${silent.port} is taken by another program`,
      fix: `stop it (ss -ltnp 'sport = :${silent.port}' names it) or set PORT to a free port`,
    });
  });

  it('free, and taken by a running webcap', async () => {
    const port = await refusedPort();
    expect((await doctor({ PORT: String(port) })).check('port').detail).toBe(`127.0.0.1:${port} is free`);
    const running = await startTestRuntime('sqlite');
    try {
      await running.runtime.app.listen({ host: '127.0.0.1', port: 0 });
      const { port: taken } = running.runtime.app.server.address() as AddressInfo;
      const result = await doctor({ PORT: String(taken) });
      expect(result.code).toBe(0);
      expect(result.check('port')).toEqual({
        name: 'port',
        status: 'ok',
        detail: `127.0.0.1:${taken} is taken by a running webcap (GET /healthz answers)`,
        fix: null,
      });
    } finally {
      await running.close();
    }
  });
});

describe('webcap doctor: secrets and tokens', () => {
  it('a deployment without WEBCAP_SIGNING_SECRET is warned, and still exits 0', async () => {
    const result = await doctor({ HOST: '0.0.0.0', REDIS_URL: TEST_REDIS_URL });
    expect(result.code).toBe(0);
    expect(result.check('signing secret')).toEqual({
      name: 'signing secret',
      status: 'warn',
      detail:
        'unset: one is generated once and kept in the database, and HOST=0.0.0.0, REDIS_URL say this is a deployment: a copy of the database then holds the key to hosted links and sealed job parameters',
      fix: 'set WEBCAP_SIGNING_SECRET=$(openssl rand -hex 32), the same on every process sharing the database (links handed out before stop working)',
    });
    const set = await doctor({ HOST: '0.0.0.0', WEBCAP_SIGNING_SECRET: 'x'.repeat(40) });
    expect(set.check('signing secret')).toMatchObject({
      status: 'ok',
      detail: 'WEBCAP_SIGNING_SECRET is set',
    });
    expect(JSON.stringify(set.checks)).not.toContain('x'.repeat(40));
  });

  it('admin and metrics tokens: on or off, and warned when they are the same', async () => {
    const token = 'same-token-0123456789';
    const on = await doctor({
      WEBCAP_ADMIN_TOKEN: 'admin-token-0123456789',
      METRICS_TOKEN: 'metrics-token-0123456789',
    });
    expect(on.check('admin token').detail).toBe('WEBCAP_ADMIN_TOKEN set: the admin API (/admin/v1) is on');
    expect(on.check('metrics token').detail).toBe('METRICS_TOKEN set: GET /metrics is on behind it');
    const same = await doctor({ WEBCAP_ADMIN_TOKEN: token, METRICS_TOKEN: token });
    expect(same.code).toBe(0);
    expect(same.check('admin token')).toEqual({
      name: 'admin token',
      status: 'warn',
      detail:
        'WEBCAP_ADMIN_TOKEN equals METRICS_TOKEN: whatever scrapes /metrics can manage accounts and keys',
      fix: 'give METRICS_TOKEN a value of its own (openssl rand -hex 32)',
    });
    expect(JSON.stringify(same.checks)).not.toContain(token);
  });
});

describe('webcap doctor: errors', () => {
  it('an environment that does not parse is the first failed check, beside the fonts, and exits 2', async () => {
    const result = await doctor({ PORT: 'eighty' });
    expect(result.code).toBe(2);
    expect(result.checks.map((check) => [check.name, check.status])).toEqual([
      ['config', 'fail'],
      ['fonts latin', 'ok'],
      ['fonts cjk', 'ok'],
      ['fonts emoji', 'ok'],
    ]);
    expect(result.check('config')).toEqual({
      name: 'config',
      status: 'fail',
      detail: 'PORT must be an integer from 0 to 65535 (got "eighty")',
      fix: 'correct PORT, or unset it for its default (README.md, "Configuration")',
    });
    expect(result.stderr).toBe(
      'webcap: configuration error: PORT must be an integer from 0 to 65535 (got "eighty")\n',
    );
  });

  it('a --timeout-ms out of range is a usage error', async () => {
    const result = await webcap(['doctor', '--timeout-ms', '5'], { WEBCAP_DATA_DIR: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      "option '--timeout-ms <ms>' argument '5' is invalid. expected an integer from 100 to 600000",
    );
  });
});
