import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/* GET /metrics in Prometheus text format, read back with a Prometheus text parser, and /readyz. */

const TOKEN = 'metrics-token-0123456789';

describe('/metrics and /readyz', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    site = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Hello</h1>');
    });
    t = await startTestRuntime('sqlite', {
      env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, METRICS_TOKEN: TOKEN },
    });
    key = await newAccountKey(t, 'metrics', 100);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const scrape = async () => {
    const res = await t.runtime.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    return { families: parsePrometheusTextFormat(res.body), text: res.body };
  };
  const sample = (families: ReturnType<typeof parsePrometheusTextFormat>, name: string, labels = {}) => {
    const family = families.find((f) => f.name === name);
    expect(family, name).toBeDefined();
    return family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  };

  it('reports the browser as not started before the first render', async () => {
    expect((await t.runtime.app.inject({ url: '/readyz' })).json()).toEqual({
      status: 'ready',
      browser: 'not started',
      queue: 'in-process',
    });
  });

  it('counts requests by engine and status, their durations, billed units and the render pool', async () => {
    const capture = (query: string, headers: Record<string, string> = { 'x-api-key': key }) =>
      t.runtime.app.inject({ url: `/v1/capture?${query}`, headers });
    expect((await capture(`url=http://127.0.0.1:${site.port}/`)).statusCode).toBe(200);
    expect((await capture('url=ftp://x')).statusCode).toBe(400);
    expect((await capture('url=http://x', { 'x-api-key': 'wc_test_wrong' })).statusCode).toBe(401);
    expect((await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).statusCode).toBe(
      200,
    );

    const { families, text } = await scrape();
    expect(sample(families, 'webcap_requests_total', { engine: 'capture', status: '200' })?.value).toBe('1');
    expect(sample(families, 'webcap_requests_total', { engine: 'capture', status: '400' })?.value).toBe('1');
    expect(sample(families, 'webcap_requests_total', { engine: 'capture', status: '401' })?.value).toBe('1');
    expect(sample(families, 'webcap_requests_total', { engine: 'usage', status: '200' })?.value).toBe('1');
    expect(sample(families, 'webcap_billed_units_total', { engine: 'capture' })?.value).toBe('1');
    expect(sample(families, 'webcap_billed_units_total', { engine: 'usage' })).toBeUndefined();
    // The parser folds a labelled histogram's series into one, so its per-engine series are read
    // from the text itself.
    expect(families.find((f) => f.name === 'webcap_request_duration_seconds')?.type).toBe('HISTOGRAM');
    const lines = text.split('\n');
    expect(lines).toContain('webcap_request_duration_seconds_count{engine="capture"} 3');
    expect(lines).toContain('webcap_request_duration_seconds_bucket{le="120",engine="capture"} 3');
    expect(sample(families, 'webcap_render_pool_busy')?.value).toBe('0');
    expect(sample(families, 'webcap_render_pool_queued')?.value).toBe('0');
    expect(sample(families, 'webcap_render_pool_rejected_total')?.value).toBe('0');
    expect(sample(families, 'webcap_browser_launches_total')?.value).toBe('1');
    expect(sample(families, 'webcap_browser_crashes_total')?.value).toBe('0');
    expect(sample(families, 'webcap_extractor_busy')?.value).toBe('0');
    expect(families.some((f) => f.name === 'webcap_process_resident_memory_bytes')).toBe(true);
    expect((await t.runtime.app.inject({ url: '/readyz' })).json()).toEqual({
      status: 'ready',
      browser: 'running',
      queue: 'in-process',
    });
  });

  it('counts async jobs by outcome, the queue depth and webhook deliveries', async () => {
    const submit = (query: string) =>
      t.runtime.app.inject({
        url: `/v1/website/crawler?is_async=true&${query}`,
        headers: { 'x-api-key': key },
      });
    const ok = await submit(
      `query=http://127.0.0.1:${site.port}/&webhook_url=http://127.0.0.1:${site.port}/hook`,
    );
    const dead = await submit('query=http://127.0.0.1:1/');
    expect([ok.statusCode, dead.statusCode]).toEqual([202, 400]);
    const bad = await submit(`query=http://127.0.0.1:${site.port}/&allow_redirects=maybe`);
    expect(bad.statusCode).toBe(400);
    const poll = async (id: string) => {
      for (;;) {
        const res = await t.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } });
        if (res.json().webhook?.state === 'delivered') return res.json();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    expect((await poll(ok.json().job_id)).status).toBe('completed');
    const { families } = await scrape();
    expect(
      sample(families, 'webcap_jobs_total', { engine: 'website-crawler', outcome: 'completed' })?.value,
    ).toBe('1');
    expect(sample(families, 'webcap_jobs_queued')?.value).toBe('0');
    expect(sample(families, 'webcap_webhook_deliveries_total', { outcome: 'delivered' })?.value).toBe('1');
    expect(
      sample(families, 'webcap_requests_total', { engine: 'website-crawler', status: '202' })?.value,
    ).toBe('1');
  });

  it('answers only with the token', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: TOKEN },
    ]) {
      const res = await t.runtime.app.inject({ url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(Object.keys(res.json())).toEqual(['error']);
    }
  });

  it('is off without METRICS_TOKEN', async () => {
    const plain = await startTestRuntime('sqlite');
    try {
      expect((await plain.runtime.app.inject({ url: '/metrics' })).statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
