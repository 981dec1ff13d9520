import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { browserPool, newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * An accepted job that finds every browser busy and the render queue full waits for a slot and
 * tries again, instead of failing with the 503 a synchronous call gets: one browser slot, no
 * render queue, a synchronous call holding the slot on a page the test serves and answers only
 * when it chooses, then async jobs. Every step waits for an event the test controls.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read the fields of JSON answers one by one
type Json = Record<string, any>;

describe('async jobs when the render pool is full', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;
  const held: (() => void)[] = [];

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/hold') {
        held.push(() => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html><head><title>Held</title></head><body>released</body></html>');
        });
        return;
      }
      if (url.pathname === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          '<!doctype html><html><head><title>Job page</title></head><body><h1>Hi</h1></body></html>',
        );
      }
      res.writeHead(404).end();
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '1',
        MAX_QUEUE_DEPTH: '0',
        JOB_CONCURRENCY: '3',
        NAVIGATION_TIMEOUT_MS: '120000',
        RENDER_TIMEOUT_MS: '180000',
        JOB_TIMEOUT_MS: '240000',
      },
      resolver: tableResolver({ 'site.example': ['127.0.0.1'] }),
    });
    key = await newAccountKey(t, 'busy', 100);
  });
  afterAll(async () => {
    for (const release of held.splice(0)) release();
    await t?.close();
    await site?.close();
  });

  const page = (path: string) => `http://site.example:${site.port}${path}`;
  const inject = (url: string, query: Record<string, string>) =>
    t.runtime.app.inject({ url, query, headers: { 'x-api-key': key } });

  /** Polls until `ok`; gives up (a stuck test, not a slow machine) after two minutes. */
  async function until<T>(read: () => Promise<T> | T, ok: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const value = await read();
      if (ok(value)) return value;
      if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('accepted jobs wait for a render slot and complete once it frees, billed once each', async () => {
    const sync = inject('/v1/content', { url: page('/hold') });
    await until(
      () => held.length,
      (n) => n === 1,
    );
    // The one slot is taken and there is no queue: a synchronous call now is turned away.
    const refused = await inject('/v1/content', { url: page('/page') });
    expect(refused.statusCode).toBe(503);

    const rejectedBefore = browserPool(t.runtime).state().rejected;
    const submissions = await Promise.all([
      inject('/v1/content', { url: page('/page'), is_async: 'true' }),
      inject('/v1/content', { url: page('/page'), is_async: 'true', include_markdown: 'true' }),
      inject('/v1/capture', { url: page('/page'), is_async: 'true', response_type: 'json' }),
    ]);
    expect(submissions.map((res) => res.statusCode)).toEqual([202, 202, 202]);
    const ids = submissions.map((res) => res.json().job_id as string);
    // Each job met the full pool at least once (the synchronous refusal above is one more).
    await until(
      () => browserPool(t.runtime).state().rejected,
      (n) => n >= rejectedBefore + 3,
    );
    const { db } = t.runtime.store;
    const waiting = await db
      .selectFrom('jobs')
      .select(['status', 'attempts'])
      .where('id', 'in', ids)
      .execute();
    expect(waiting).toEqual([
      { status: 'running', attempts: 1 },
      { status: 'running', attempts: 1 },
      { status: 'running', attempts: 1 },
    ]);

    for (const release of held.splice(0)) release();
    expect((await sync).statusCode).toBe(200);
    const records: Json[] = [];
    for (const id of ids) {
      records.push(
        await until(
          async () =>
            (await t.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } })).json(),
          (record: Json) => record.status === 'completed' || record.status === 'failed',
        ),
      );
    }
    expect(records.map((record) => [record.status, record.error])).toEqual([
      ['completed', null],
      ['completed', null],
      ['completed', null],
    ]);
    expect(records[0]?.result.data.metadata.title).toBe('Job page');
    expect(records[2]?.result.screenshot_url).toEqual(expect.any(String));

    const ended = await db.selectFrom('jobs').select('attempts').where('id', 'in', ids).execute();
    expect(ended.map((row) => row.attempts)).toEqual([1, 1, 1]);
    // The synchronous call and the three jobs: four units committed, none held; the refused call's released.
    const reservations = await db
      .selectFrom('reservations')
      .innerJoin('accounts', 'accounts.id', 'reservations.account_id')
      .select('reservations.status')
      .where('accounts.slug', '=', 'busy')
      .execute();
    expect(reservations.map((row) => row.status).sort()).toEqual([
      'committed',
      'committed',
      'committed',
      'committed',
      'released',
    ]);
  });
});
