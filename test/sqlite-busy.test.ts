import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * Another process holds SQLite's write lock (BEGIN IMMEDIATE) on the service's database file
 * until the test tells it to let go. A write meanwhile waits for the lock off the event loop:
 * the service keeps answering, and the write completes once the lock is free, or is a 503 past
 * SQLITE_BUSY_TIMEOUT_MS. Every step waits for an event the test controls, not for time.
 */

/** Holds the write lock of `file` from when it prints `locked` until a line on its stdin. */
const HOLDER = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\\n');
process.stdin.once('data', () => {
  db.exec('COMMIT');
  db.close();
  process.stdout.write('released\\n');
  process.exit(0);
});
`;

type Holder = ChildProcessByStdio<Writable, Readable, null>;

async function holdWriteLock(file: string): Promise<Holder> {
  const child = spawn(process.execPath, ['-e', HOLDER, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  const [line] = (await once(child.stdout, 'data')) as [string];
  expect(line).toBe('locked\n');
  return child;
}

async function release(child: Holder): Promise<void> {
  const exited = once(child, 'exit');
  child.stdin.write('go\n');
  await exited;
}

describe('SQLite write lock held by another process', () => {
  let t: TestRuntime | undefined;
  let holder: Holder | undefined;

  afterEach(async () => {
    if (holder !== undefined && holder.exitCode === null) await release(holder);
    holder = undefined;
    await t?.close();
    t = undefined;
  });

  const createAccount = (runtime: TestRuntime, slug: string) =>
    runtime.runtime.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { name: slug, slug },
    });

  it('the service keeps answering while a write waits for the lock; the write completes once it is released', async () => {
    t = await startTestRuntime('sqlite', { env: { SQLITE_BUSY_TIMEOUT_MS: '600000' } });
    const file = t.config.database.kind === 'sqlite' ? t.config.database.file : '';
    holder = await holdWriteLock(file);

    let settled = false;
    const write = createAccount(t, 'waiting').finally(() => {
      settled = true;
    });
    for (let i = 0; i < 20; i++) {
      const health = await t.runtime.app.inject({ url: '/healthz' });
      expect(health.statusCode).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Twenty answers came while the write was still waiting: it did not hold the event loop.
    expect(settled).toBe(false);
    const reader = new SqliteDatabase(file, { readonly: true });
    try {
      expect(reader.prepare("select count(*) as n from accounts where slug = 'waiting'").get()).toEqual({
        n: 0,
      });
    } finally {
      reader.close();
    }

    await release(holder);
    const res = await write;
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ slug: 'waiting' });
  });

  it('a write that waits past SQLITE_BUSY_TIMEOUT_MS is a 503 with Retry-After, and the service goes on', async () => {
    t = await startTestRuntime('sqlite', { env: { SQLITE_BUSY_TIMEOUT_MS: '200' } });
    const file = t.config.database.kind === 'sqlite' ? t.config.database.file : '';
    holder = await holdWriteLock(file);

    const res = await createAccount(t, 'too-late');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: 'Service Unavailable: database busy' });
    expect(res.headers['retry-after']).toBe('1');

    await release(holder);
    const again = await createAccount(t, 'too-late');
    expect(again.statusCode).toBe(201);
  });
});
