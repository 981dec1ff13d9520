import type { AddressInfo } from 'node:net';
import { checkWebhook, verifyWebhook, Webcap, WebcapError } from '@webcap/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../src/billing/accounts.js';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { ADMIN_TOKEN, newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * The SDK (@webcap/sdk, run from its sources) against the real service listening on 127.0.0.1:
 * every method with the fields it answers, every error status mapped to WebcapError, jobs waited
 * on and cancelled, aborts, and the webhook verifier on a delivery the service made.
 */

const PAGE = `<!doctype html><html lang="en"><head><title>SDK page</title>
<meta name="description" content="A page for the SDK"></head>
<body style="margin:0;background:#fff"><main><h1>SDK</h1>
<p>Acme sells anvils. Write to sales@acme-anvils.com or call +1 415 555 0100.</p>
<a href="/about">About</a> <a href="https://github.com/webcap">GitHub</a></main></body></html>`;

/** A PNG's width and height, from its IHDR chunk (bytes 16–23, big-endian). */
function pngSize(bytes: Uint8Array): [number, number] {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return [view.getUint32(16), view.getUint32(20)];
}

/** Expects the promise to reject with a WebcapError and returns it. */
async function failure(promise: Promise<unknown>): Promise<WebcapError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(WebcapError);
  return error as WebcapError;
}

describe('@webcap/sdk against the service', () => {
  let site: TestServer;
  let receiver: TestServer;
  let t: TestRuntime;
  let baseUrl: string;
  const keys = { good: '', broke: '', off: '', plain: '' };
  /** Lets the request holding the one job runner answer. */
  const holds: (() => void)[] = [];
  const deliveries: { body: Buffer; signature: string; jobId: string }[] = [];

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/page')
        return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      if (path === '/hold') {
        holds.push(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>held</html>'));
        return;
      }
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html>gone</html>');
    });
    receiver = await startServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        deliveries.push({
          body: Buffer.concat(chunks),
          signature: String(req.headers['webcap-signature']),
          jobId: String(req.headers['webcap-job-id']),
        });
        res.writeHead(204).end();
      });
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port},127.0.0.1/32:${receiver.port}`,
        JOB_CONCURRENCY: '1',
      },
      resolver: tableResolver({ 'site.example': ['127.0.0.1'] }),
    });
    const { db } = t.runtime.store;
    const now = new Date();
    const account = (slug: string, monthlyQuota: number, statsEnabled: boolean) =>
      newAccountKey(t, slug, monthlyQuota, { statsEnabled, now });
    keys.good = await account('good', 1000, true);
    keys.plain = await account('plain', 1000, false);
    keys.broke = await account('broke', 0, false);
    keys.off = await account('off', 1000, true);
    await updateAccount(db, 'off', { active: false }, now);
    await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const release of holds.splice(0)) release();
    await t?.close();
    await site?.close();
    await receiver?.close();
  });

  const page = (path = '/page') => `http://site.example:${site.port}${path}`;
  const client = (apiKey = keys.good) => new Webcap({ baseUrl, apiKey, retries: 0 });

  describe('happy', () => {
    it('capture answers the PNG bytes at the viewport asked for, with their content type', async () => {
      const shot = await client().capture({ url: page(), viewport_width: 640, viewport_height: 480 });
      expect(shot.kind).toBe('file');
      if (shot.kind !== 'file') return;
      expect(shot.contentType).toBe('image/png');
      expect(pngSize(shot.bytes)).toEqual([640, 480]);
      expect(shot.cache).toBeNull();
      expect(shot.warnings).toEqual([]);
    });

    it('capture answers its JSON form for response_type=json, and the cache state', async () => {
      const params = {
        url: page(),
        viewport_width: 500,
        viewport_height: 300,
        response_type: 'json',
        cache: true,
      } as const;
      const first = await client().capture(params);
      expect(first.kind).toBe('json');
      expect(first.cache).toBe('miss');
      expect(first.data).toMatchObject({ success: true, format: 'png', width: 500, height: 300 });
      expect(first.data.size).toBeGreaterThan(0);
      // The link is on PUBLIC_BASE_URL; its path and signature are fetched from the listening server.
      const link = new URL(first.data.screenshot_url);
      const hosted = await fetch(`${baseUrl}${link.pathname}${link.search}`);
      expect(hosted.status).toBe(200);
      expect(pngSize(new Uint8Array(await hosted.arrayBuffer()))).toEqual([500, 300]);
      const again = await client().capture(params);
      expect(again.cache).toBe('hit');
    });

    it('content answers the envelope data, typed, with Markdown when asked', async () => {
      const { data, cache } = await client().content({ url: page(), include_markdown: true });
      expect(cache).toBeNull();
      expect(data.url).toBe(page());
      expect(data.statusCode).toBe(200);
      expect(data.metadata.title).toBe('SDK page');
      expect(data.metadata.description).toBe('A page for the SDK');
      expect(data.links.internal).toEqual([page('/about')]);
      expect(data.links.social).toEqual(['https://github.com/webcap']);
      expect(data.markdown).toContain('# SDK');
      expect(data.html).toBeUndefined();
    });

    it('capture and content send a page of their own as a POST body, larger than a query string could carry', async () => {
      const html = `<title>Sent</title><h1>Sent by the SDK</h1><p>${'word '.repeat(8000)}</p>`;
      const shot = await client().capture({ html, viewport_width: 300, viewport_height: 200 });
      expect(shot.kind).toBe('file');
      if (shot.kind === 'file') expect(pngSize(shot.bytes)).toEqual([300, 200]);
      const { data } = await client().content({
        markdown: '# From Markdown\n\ntext',
        include_markdown: true,
      });
      expect(data).toMatchObject({ url: 'http://webcap.invalid/', statusCode: 200 });
      expect(data.metadata.title).toBe('From Markdown');
      const job = await client().jobs.submit('content', { html });
      const done = await client().jobs.wait(job.job_id, { pollMs: 50, timeoutMs: HANG_MS });
      expect(done).toMatchObject({ status: 'completed', result: { data: { metadata: { title: 'Sent' } } } });
    });

    it('analyze answers the analysis with the custom fields asked for, and the analyzer', async () => {
      const { data, analyzer } = await client().analyze({
        url: page(),
        custom_response: { product: 'what the company sells' },
      });
      expect(analyzer).toBe('extractive');
      expect(data.emails).toEqual(['sales@acme-anvils.com']);
      expect(data.phoneNumbers).toEqual(['+14155550100']);
      expect(typeof data.summary).toBe('string');
      expect(Array.isArray(data.keyFeatures)).toBe(true);
      expect(typeof data.product).toBe('string');
    });

    it('extract answers the fields of the rules, links absolute, with the warnings and the cache state', async () => {
      const answer = await client().extract({
        url: page(),
        extract_rules: {
          heading: 'h1',
          main: { selector: 'main', output: { lead: 'p', link: { selector: 'a', output: '@href' } } },
          links: { selector: 'a', type: 'list', attribute: 'href' },
          price: '.price',
        },
      });
      expect(answer).toEqual({
        data: {
          heading: 'SDK',
          main: {
            lead: 'Acme sells anvils. Write to sales@acme-anvils.com or call +1 415 555 0100.',
            link: page('/about'),
          },
          links: [page('/about'), 'https://github.com/webcap'],
          price: null,
        },
        warnings: ['extract_rules.price: the selector ".price" matched nothing'],
        cache: null,
      });
      const job = await client().jobs.submit('extract', { url: page(), extract_rules: { heading: 'h1' } });
      const done = await client().jobs.wait(job.job_id, { pollMs: 50, timeoutMs: HANG_MS });
      expect(done.result).toEqual({ success: true, data: { heading: 'SDK' } });
    });

    it('websiteCrawler answers JSON about the response, or the page source itself', async () => {
      // The overloads narrow the answer by return_page_source: no kind check is needed to read it.
      const json = await client().websiteCrawler({ query: page() });
      expect(json.kind).toBe('json');
      expect(json.data).toMatchObject({ url: page(), finalUrl: page(), statusCode: 200, redirects: [] });
      expect(json.data.size).toBe(Buffer.byteLength(PAGE));
      expect(json.data.contentType).toBe('text/html; charset=utf-8');
      const source = await client().websiteCrawler({ query: page(), return_page_source: true });
      expect(source.html).toBe(PAGE);
      expect(source).toEqual({ kind: 'html', html: PAGE, targetStatus: 200 });
    });

    it('usage and stats answer their records', async () => {
      const usage = await client().usage();
      expect(usage.account).toEqual({ name: 'good', slug: 'good' });
      expect(usage.subscription.total).toBe(1000);
      expect(usage.remaining).toBe(1000 - usage.total_used);
      expect(usage.api_key.active).toBe(true);
      const stats = await client().stats({ engine: 'content' });
      expect(stats).toMatchObject({ engine: 'content', path: null, window: '1h' });
      expect(['operational', 'degraded', 'down']).toContain(stats.health);
    });

    it('the legacy endpoints answer through x-access-key', async () => {
      const shot = await client().legacy.capture({
        url: page(),
        viewport_width: 320,
        viewport_height: 200,
        image_quality: 70,
        format: 'jpeg',
      });
      expect(shot.kind === 'file' && shot.contentType).toBe('image/jpeg');
      const content = await client().legacy.content({ url: page(), viewport_width: 800 });
      expect(content.data.metadata.title).toBe('SDK page');
      const analysis = await client().legacy.analyze({
        url: page(),
        custom_response: { sells: 'what it sells' },
      });
      expect(analysis.data.emails).toEqual(['sales@acme-anvils.com']);
      expect(typeof analysis.data.sells).toBe('string');
      const refused = await failure(client('wrong').legacy.content({ url: page() }));
      expect(refused.status).toBe(401);
    });
  });

  describe('jobs', () => {
    it('submit, then wait for the completed record with the call result', async () => {
      const webcap = client();
      const accepted = await webcap.jobs.submit('content', { url: page() });
      expect(accepted).toMatchObject({ success: true, status: 'queued', replayed: false });
      expect(accepted.status_url).toBe(`/jobs/${accepted.job_id}`);
      const done = await webcap.jobs.wait(accepted.job_id, { pollMs: 50, timeoutMs: HANG_MS });
      expect(done).toMatchObject({
        job_id: accepted.job_id,
        status: 'completed',
        endpoint: '/v1/content',
        error: null,
      });
      expect(done.result).toMatchObject({ success: true, data: { metadata: { title: 'SDK page' } } });
      expect(await webcap.jobs.get(accepted.job_id)).toEqual(done);
    });

    it('each kind of job is submitted on its endpoint', async () => {
      const webcap = client();
      const capture = await webcap.jobs.submit('capture', {
        url: page(),
        viewport_width: 200,
        viewport_height: 100,
      });
      const analyze = await webcap.jobs.submit('analyze', { url: page(), custom_response: { a: 'b' } });
      const crawl = await webcap.jobs.submit('website-crawler', { query: page(), return_page_source: true });
      const [shot, analysis, source] = await Promise.all(
        [capture, analyze, crawl].map((job) =>
          webcap.jobs.wait(job.job_id, { pollMs: 50, timeoutMs: HANG_MS }),
        ),
      );
      expect(shot).toMatchObject({
        status: 'completed',
        endpoint: '/v1/capture',
        result: { width: 200, height: 100 },
      });
      expect(analysis).toMatchObject({
        status: 'completed',
        endpoint: '/v1/analyze',
        result: { data: { emails: ['sales@acme-anvils.com'] } },
      });
      expect(source).toMatchObject({
        status: 'completed',
        endpoint: '/v1/website/crawler',
        result: { data: { html: PAGE } },
      });
    });

    it('cancel ends a queued job failed with 409; a finished one answers 409; wait gives up at its timeout', async () => {
      const webcap = client();
      const holding = await webcap.jobs.submit('website-crawler', { query: page('/hold') });
      await expect.poll(() => holds.length, { timeout: HANG_MS }).toBe(1);
      const queued = await webcap.jobs.submit('website-crawler', { query: page() });
      const timedOut = await failure(webcap.jobs.wait(queued.job_id, { timeoutMs: 200, pollMs: 50 }));
      expect(timedOut.kind).toBe('timeout');
      expect(timedOut.status).toBeNull();
      const cancelled = await webcap.jobs.cancel(queued.job_id);
      expect(cancelled.status).toBe('failed');
      expect(cancelled.error?.status).toBe(409);
      expect(cancelled.error?.error).toMatch(/^Cancelled/);
      const again = await failure(webcap.jobs.cancel(queued.job_id));
      expect(again.status).toBe(409);
      expect(again.kind).toBe('http');
      holds.shift()?.();
      expect((await webcap.jobs.wait(holding.job_id, { pollMs: 50 })).status).toBe('completed');
    });

    it('an AbortSignal ends a wait and a call', async () => {
      const webcap = client();
      const holding = await webcap.jobs.submit('website-crawler', { query: page('/hold') });
      await expect.poll(() => holds.length, { timeout: HANG_MS }).toBe(1);
      const controller = new AbortController();
      const waiting = webcap.jobs.wait(holding.job_id, { signal: controller.signal, pollMs: 10_000 });
      setTimeout(() => controller.abort(), 50);
      await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
      const aborted = new Webcap({ baseUrl, apiKey: keys.good, signal: AbortSignal.abort() });
      await expect(aborted.usage()).rejects.toMatchObject({ name: 'AbortError' });
      const inFlight = new AbortController();
      const crawling = webcap.websiteCrawler({ query: page('/hold') }, { signal: inFlight.signal });
      await expect.poll(() => holds.length, { timeout: HANG_MS }).toBe(2);
      inFlight.abort();
      await expect(crawling).rejects.toMatchObject({ name: 'AbortError' });
      for (const release of holds.splice(0)) release();
      expect((await webcap.jobs.wait(holding.job_id, { pollMs: 50 })).status).toBe('completed');
    });

    it('verifyWebhook accepts a real delivery and refuses a tampered body, a wrong secret, an old timestamp', async () => {
      const admin = await t.runtime.app.inject({
        url: '/admin/v1/accounts/good/webhook-secret',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const secret = admin.json().webhook_secret as string;
      deliveries.length = 0;
      const webcap = client();
      const accepted = await webcap.jobs.submit(
        'website-crawler',
        { query: page() },
        { webhookUrl: `http://127.0.0.1:${receiver.port}/hook` },
      );
      await expect.poll(() => deliveries.length, { timeout: HANG_MS }).toBe(1);
      const [delivery] = deliveries;
      if (delivery === undefined) throw new Error('no delivery');
      expect(delivery.jobId).toBe(accepted.job_id);
      const input = { secret, header: delivery.signature, body: new Uint8Array(delivery.body) };
      expect(await verifyWebhook(input)).toBe(true);
      expect(await verifyWebhook({ ...input, body: delivery.body.toString('utf8') })).toBe(true);
      const tampered = delivery.body.toString('utf8').replace('"completed"', '"failed"');
      expect(tampered).not.toBe(delivery.body.toString('utf8'));
      expect(await checkWebhook({ ...input, body: tampered })).toBe('mismatch');
      expect(await checkWebhook({ ...input, secret: `${secret}x` })).toBe('mismatch');
      const signedAt = Number(/t=(\d+)/.exec(delivery.signature)?.[1]) * 1000;
      expect(await checkWebhook({ ...input, now: new Date(signedAt + 301_000) })).toBe('expired');
      expect(await checkWebhook({ ...input, now: new Date(signedAt + 299_000) })).toBe('valid');
      expect(
        await checkWebhook({ ...input, now: new Date(signedAt + 3_600_000), toleranceSeconds: 7200 }),
      ).toBe('valid');
      expect(await checkWebhook({ ...input, header: 'v1=abc' })).toBe('malformed');
      expect(await checkWebhook({ ...input, header: null })).toBe('malformed');
      expect(JSON.parse(delivery.body.toString('utf8'))).toMatchObject({
        job_id: accepted.job_id,
        status: 'completed',
      });
    });
  });

  describe('errors', () => {
    it('400 names the parameter', async () => {
      const error = await failure(client().content({ url: page(), delay: 99 }));
      expect(error).toMatchObject({ kind: 'http', status: 400, retryAfter: null });
      expect(error.message).toMatch(/^Bad Request.*delay/);
      expect(error.body).toEqual({ error: error.message });
    });

    it('401 for a wrong key, 402 at a zero balance, 403 for a deactivated account or stats not enabled', async () => {
      expect(await failure(client('wk_wrong').usage())).toMatchObject({
        status: 401,
        message: expect.stringMatching(/^Invalid API Key/),
      });
      const broke = await failure(client(keys.broke).websiteCrawler({ query: page() }));
      expect(broke.status).toBe(402);
      expect(broke.message).toMatch(/^(Payment required|Insufficient credits)/);
      expect((await failure(client(keys.off).usage())).status).toBe(403);
      expect((await failure(client(keys.plain).stats({ engine: 'content' }))).status).toBe(403);
    });

    it('404 for an unknown job', async () => {
      const error = await failure(client().jobs.get('job_unknown'));
      expect(error.status).toBe(404);
      expect(error.message).toMatch(/^Not Found/);
    });

    it('a network failure is kind network with no status', async () => {
      const error = await failure(
        new Webcap({ baseUrl: 'http://127.0.0.1:1', apiKey: 'x', retries: 0 }).usage(),
      );
      expect(error).toMatchObject({ kind: 'network', status: null, retryAfter: null });
    });
  });
});
