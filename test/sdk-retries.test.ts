import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webcap, WebcapError } from '@webcap/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * The SDK's retries against real HTTP servers on 127.0.0.1: a scripted server that answers each
 * attempt as the test says (503 with Retry-After, 500, a reset connection, a 4xx), counting the
 * attempts; and a proxy in front of the real service that loses the answer to a job submission,
 * so that the SDK's retry must be answered by the first job through its Idempotency-Key.
 */

const USAGE_BODY = JSON.stringify({ remaining: 7 });

/** What the scripted server does with an attempt: answer a status (with headers), or reset the connection. */
type Step = { status: number; headers?: Record<string, string>; body?: string } | 'reset';

/** Expects the promise to reject with a WebcapError and returns it. */
async function failure(promise: Promise<unknown>): Promise<WebcapError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(WebcapError);
  return error as WebcapError;
}

describe('@webcap/sdk retries', () => {
  let scripted: TestServer;
  /** The answers to the next attempts, in order; past the end, the last one again. */
  let steps: Step[] = [];
  const attempts: { url: string; idempotencyKey: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    scripted = await startServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      attempts.push({
        url: req.url ?? '',
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const step = steps.length > 1 ? steps.shift() : steps[0];
      if (step === undefined || step === 'reset') {
        req.socket.resetAndDestroy();
        return;
      }
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(
        step.body ?? (step.status === 200 ? USAGE_BODY : JSON.stringify({ error: `status ${step.status}` })),
      );
    });
  });
  afterAll(async () => {
    await scripted?.close();
  });
  afterEach(() => {
    attempts.length = 0;
  });

  const client = (options: { retries?: number; retryMaxDelayMs?: number; signal?: AbortSignal } = {}) =>
    new Webcap({
      baseUrl: `http://127.0.0.1:${scripted.port}`,
      apiKey: 'k',
      retryBaseDelayMs: 10,
      ...options,
    });

  it('the client refuses options it cannot use, and a job kind it does not know', async () => {
    expect(() => new Webcap({ baseUrl: 'ftp://127.0.0.1' })).toThrow(/baseUrl must be an http\(s\) URL/);
    expect(() => new Webcap({ baseUrl: 'not a url' })).toThrow(/baseUrl/);
    expect(() => new Webcap({ retries: -1 })).toThrow(/retries/);
    expect(() => new Webcap({ retries: 1.5 })).toThrow(/retries/);
    expect(() => new Webcap({ retryMaxDelayMs: Number.NaN })).toThrow(/retryMaxDelayMs/);
    const submit = client().jobs.submit as (kind: string, params: object) => Promise<unknown>;
    await expect(submit.call(client().jobs, 'screenshot', {})).rejects.toThrow(
      /unknown job kind "screenshot"/,
    );
    expect(attempts).toHaveLength(0);
  });

  it('a 503 with Retry-After is waited and tried again until the 200', async () => {
    steps = [{ status: 503, headers: { 'retry-after': '1' } }, { status: 200 }];
    expect(await client().usage()).toEqual({ remaining: 7 });
    expect(attempts).toHaveLength(2);
  });

  it('Retry-After as an HTTP-date is honoured too', async () => {
    steps = [
      { status: 503, headers: { 'retry-after': new Date(Date.now() + 1000).toUTCString() } },
      { status: 200 },
    ];
    expect(await client().usage()).toEqual({ remaining: 7 });
    expect(attempts).toHaveLength(2);
  });

  it('a 500 without Retry-After is retried with backoff; past the retries, the last error is thrown', async () => {
    steps = [{ status: 500 }, { status: 500 }, { status: 200 }];
    expect(await client().usage()).toEqual({ remaining: 7 });
    expect(attempts).toHaveLength(3);
    attempts.length = 0;
    steps = [{ status: 500 }];
    const error = await failure(client({ retries: 2 }).usage());
    expect(error).toMatchObject({ kind: 'http', status: 500, message: 'status 500' });
    expect(attempts).toHaveLength(3);
  });

  it('a Retry-After beyond the cap is not waited: the 503 is thrown at once with retryAfter', async () => {
    steps = [{ status: 503, headers: { 'retry-after': '120' } }, { status: 200 }];
    const error = await failure(client({ retryMaxDelayMs: 5000 }).usage());
    expect(error).toMatchObject({ status: 503, retryAfter: 120 });
    expect(attempts).toHaveLength(1);
    attempts.length = 0;
    steps = [{ status: 503, headers: { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() } }];
    const dated = await failure(client({ retryMaxDelayMs: 5000 }).usage());
    expect(dated.retryAfter).toBeGreaterThan(3500);
    expect(dated.retryAfter).toBeLessThanOrEqual(3600);
    expect(attempts).toHaveLength(1);
  });

  it('a reset connection is retried; resets to the end are a network error with no status', async () => {
    steps = ['reset', { status: 200 }];
    expect(await client().usage()).toEqual({ remaining: 7 });
    expect(attempts).toHaveLength(2);
    attempts.length = 0;
    steps = ['reset'];
    const error = await failure(client({ retries: 2 }).usage());
    expect(error).toMatchObject({ kind: 'network', status: null, retryAfter: null });
    expect(attempts).toHaveLength(3);
  });

  it.each([400, 401, 402, 403, 404, 405, 409, 413])(
    'a %i is thrown at once, never retried',
    async (status) => {
      steps = [{ status, headers: { 'retry-after': '0' } }, { status: 200 }];
      const error = await failure(client({ retries: 3 }).usage());
      expect(error).toMatchObject({ kind: 'http', status, message: `status ${status}`, retryAfter: 0 });
      expect(attempts).toHaveLength(1);
    },
  );

  it('retries: 0 makes one attempt', async () => {
    steps = [{ status: 503, headers: { 'retry-after': '0' } }, { status: 200 }];
    expect((await failure(client({ retries: 0 }).usage())).status).toBe(503);
    expect(attempts).toHaveLength(1);
  });

  it('an abort during a backoff wait ends the call at once with the abort reason', async () => {
    // A wait of two minutes, past the test's timeout: only the abort can end the call in time.
    steps = [{ status: 503, headers: { 'retry-after': '120' } }, { status: 200 }];
    const controller = new AbortController();
    const call = client({ retryMaxDelayMs: 300_000 }).usage({ signal: controller.signal });
    await expect.poll(() => attempts.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(attempts).toHaveLength(1);
  });

  it('every attempt of a job submission carries the same Idempotency-Key, the caller’s when given', async () => {
    steps = [
      { status: 503, headers: { 'retry-after': '0' } },
      'reset',
      {
        status: 202,
        body: JSON.stringify({ success: true, job_id: 'job_1', status: 'queued', status_url: '/jobs/job_1' }),
      },
    ];
    const accepted = await client().jobs.submit('website-crawler', { query: 'https://example.com/' });
    expect(accepted).toEqual({
      success: true,
      job_id: 'job_1',
      status: 'queued',
      status_url: '/jobs/job_1',
      replayed: false,
    });
    expect(attempts).toHaveLength(3);
    const [first] = attempts;
    expect(first?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(attempts.every((attempt) => attempt.idempotencyKey === first?.idempotencyKey)).toBe(true);
    expect(new URL(first?.url ?? '', 'http://x').searchParams.get('is_async')).toBe('true');
    attempts.length = 0;
    steps = [
      {
        status: 202,
        body: JSON.stringify({ success: true, job_id: 'job_2', status: 'queued', status_url: '/jobs/job_2' }),
      },
    ];
    await client().jobs.submit('website-crawler', { query: 'https://example.com/' });
    await client().jobs.submit(
      'website-crawler',
      { query: 'https://example.com/' },
      { idempotencyKey: 'mine-1' },
    );
    expect(attempts[0]?.idempotencyKey).not.toBe(first?.idempotencyKey);
    expect(attempts[1]?.idempotencyKey).toBe('mine-1');
  });

  it('a submission told its Idempotency-Key is in use (409 with Retry-After) is tried again with the same key', async () => {
    const inUse = {
      status: 409,
      headers: { 'retry-after': '0' },
      body: JSON.stringify({ error: 'Conflict: Idempotency-Key is in use; retry' }),
    };
    steps = [
      inUse,
      {
        status: 202,
        body: JSON.stringify({ success: true, job_id: 'job_3', status: 'queued', status_url: '/jobs/job_3' }),
      },
    ];
    const accepted = await client().jobs.submit(
      'website-crawler',
      { query: 'https://example.com/' },
      { idempotencyKey: 'k-9' },
    );
    expect(accepted.job_id).toBe('job_3');
    expect(attempts.map((attempt) => attempt.idempotencyKey)).toEqual(['k-9', 'k-9']);
  });

  it('a 409 is not tried again without Retry-After, nor on a call without an Idempotency-Key', async () => {
    steps = [
      {
        status: 409,
        body: JSON.stringify({ error: 'Conflict: the job is running and can no longer be cancelled' }),
      },
    ];
    const submitted = await failure(
      client().jobs.submit('website-crawler', { query: 'https://example.com/' }),
    );
    expect(submitted.status).toBe(409);
    expect(attempts).toHaveLength(1);
    attempts.length = 0;
    steps = [{ status: 409, headers: { 'retry-after': '0' } }];
    const usage = await failure(client().usage());
    expect(usage.status).toBe(409);
    expect(attempts).toHaveLength(1);
  });

  it('a retried POST is sent again whole', async () => {
    steps = [
      { status: 503, headers: { 'retry-after': '0' } },
      {
        status: 202,
        body: JSON.stringify({ success: true, job_id: 'job_3', status: 'queued', status_url: '/jobs/job_3' }),
      },
    ];
    await client().jobs.submit('analyze', {
      url: 'https://example.com/',
      custom_response: { price: 'the price' },
    });
    expect(attempts).toHaveLength(2);
    expect(JSON.parse(attempts[0]?.body ?? '')).toEqual({
      url: 'https://example.com/',
      custom_response: { price: 'the price' },
      is_async: true,
    });
    expect(attempts[1]?.body).toBe(attempts[0]?.body);
    expect(attempts[1]?.idempotencyKey).toBe(attempts[0]?.idempotencyKey);
  });

  describe('against the service, through a proxy that loses the first answer', () => {
    let site: TestServer;
    let proxy: TestServer;
    let t: TestRuntime;
    let key: string;
    let lost = 0;

    beforeAll(async () => {
      site = await startServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>'),
      );
      t = await startTestRuntime('sqlite', {
        env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, JOB_CONCURRENCY: '1' },
        resolver: tableResolver({ 'site.example': ['127.0.0.1'] }),
      });
      key = await newAccountKey(t, 'idem', 100);
      await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
      const servicePort = (t.runtime.app.server.address() as AddressInfo).port;
      // Forwards each request to the service; while `lost` > 0, the service's answer is dropped and
      // the caller's connection reset, as when a network fails after the server did the work.
      proxy = await startServer((req, res) => {
        const upstream = http.request(
          { host: '127.0.0.1', port: servicePort, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            if (lost > 0) {
              lost -= 1;
              answer.resume();
              answer.on('end', () => req.socket.resetAndDestroy());
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        req.pipe(upstream);
      });
    });
    afterAll(async () => {
      await proxy?.close();
      await t?.close();
      await site?.close();
    });

    const jobCount = async () =>
      Number(
        (
          await t.runtime.store.db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('a retried submission is queued once: the retry is answered with the first job', async () => {
      const webcap = new Webcap({
        baseUrl: `http://127.0.0.1:${proxy.port}`,
        apiKey: key,
        retryBaseDelayMs: 10,
      });
      const before = await jobCount();
      lost = 1;
      const accepted = await webcap.jobs.submit('website-crawler', {
        query: `http://site.example:${site.port}/`,
      });
      expect(lost).toBe(0);
      expect(accepted.replayed).toBe(true);
      expect(await jobCount()).toBe(before + 1);
      const done = await webcap.jobs.wait(accepted.job_id, { pollMs: 50, timeoutMs: HANG_MS });
      expect(done.status).toBe('completed');
      expect((await webcap.usage()).total_used).toBe(1);
    });

    it('a synchronous call whose answer was lost is retried as a new call, billed again', async () => {
      const webcap = new Webcap({
        baseUrl: `http://127.0.0.1:${proxy.port}`,
        apiKey: key,
        retryBaseDelayMs: 10,
      });
      const usedBefore = (await webcap.usage()).total_used;
      lost = 1;
      const crawled = await webcap.websiteCrawler({ query: `http://site.example:${site.port}/` });
      expect(crawled.kind).toBe('json');
      expect((await webcap.usage()).total_used).toBe(usedBefore + 2);
    });
  });
});
