import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureServer, startFixtureServer } from './helpers/chromium.js';
import { type RawAnswer, rawResponse, startRawEndpoint } from './helpers/raw-endpoint.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from './helpers/s3rver.js';
import { startTcpForwarder, type TcpForwarder } from './helpers/tcp-forwarder.js';

/*
 * Storage that misbehaves, through HTTP: the caller's own bucket endpoint (s3_url=true) answering
 * what no S3 service would, or nothing at all, and the service's S3 blob store stalling. Every
 * answer is checked in full, and what was billed.
 */

/** The runtime's calls with one account's key. */
function caller(t: TestRuntime, site: FixtureServer, key: string) {
  const get = (url: string) => t.runtime.app.inject({ url, headers: { 'x-api-key': key } });
  return {
    get,
    capture: (page: string, extra: Record<string, string> = {}) =>
      get(`/v1/capture?${new URLSearchParams({ url: site.url(page), ...extra })}`),
    used: async () => ((await get('/v1/usage')).json() as { total_used: number }).total_used,
  };
}

/** The whole answer a failed call gets: status, body and Retry-After. */
function answer(res: LightMyRequestResponse) {
  return { status: res.statusCode, body: res.json() as unknown, retryAfter: res.headers['retry-after'] };
}

describe('capture with s3_url=true to a storage endpoint that is not S3, or stalls', () => {
  const UPLOAD_TIMEOUT_MS = 5000;
  let site: FixtureServer;
  let s3: TestS3;
  let t: TestRuntime;
  let calls: ReturnType<typeof caller>;

  beforeAll(async () => {
    site = await startFixtureServer();
    s3 = await startS3rver(['shots']);
    t = await startTestRuntime('sqlite', {
      env: {
        // The fixture site, s3rver and the endpoints each test starts all listen on loopback ports.
        WEBCAP_ALLOW_PRIVATE: '127.0.0.1/32',
        NAVIGATION_TIMEOUT_MS: '10000',
        S3_UPLOAD_TIMEOUT_MS: String(UPLOAD_TIMEOUT_MS),
      },
    });
    calls = caller(t, site, await newAccountKey(t, 's3caller', 1000));
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
    await site?.close();
  });

  const upload = (endpoint: string) =>
    calls.capture('/capture.html', {
      s3_url: 'true',
      s3_access_key_id: S3RVER_CREDENTIALS.accessKeyId,
      s3_secret_key: S3RVER_CREDENTIALS.secretAccessKey,
      s3_bucket: 'shots',
      s3_object_key: 'run/capture.png',
      storage_endpoint: endpoint,
    });

  it('uploads to a real S3 service (s3rver) and bills the call', async () => {
    const before = await calls.used();
    const res = await upload(s3.endpoint);
    expect(res.statusCode).toBe(200);
    expect((res.json() as { s3_url: string }).s3_url).toBe(`${s3.endpoint}/shots/run/capture.png`);
    expect(await calls.used()).toBe(before + 1);
  });

  it.each<[string, RawAnswer, string]>([
    [
      'a 404 in text/plain',
      rawResponse('404 Not Found', { 'Content-Type': 'text/plain' }, 'Not Found'),
      'storage endpoint answered HTTP 404',
    ],
    [
      'a 400 in JSON',
      rawResponse('400 Bad Request', { 'Content-Type': 'application/json' }, '{"error":"bad bucket"}'),
      'storage endpoint answered HTTP 400',
    ],
    [
      'a 500 in HTML',
      rawResponse('500 Internal Server Error', { 'Content-Type': 'text/html' }, '<h1>oops</h1>'),
      'storage endpoint answered HTTP 500',
    ],
    ['an empty 403', rawResponse('403 Forbidden', {}), 'storage endpoint answered HTTP 403'],
    [
      'a redirect',
      rawResponse('302 Found', { Location: 'http://127.0.0.1:1/elsewhere' }),
      'storage endpoint answered HTTP 302',
    ],
    [
      'garbage bytes, then a close',
      { bytes: Buffer.from('\u0000\u00ffnot http at all\r\n\r\n', 'latin1') },
      'storage endpoint did not answer in HTTP',
    ],
    ['a closed connection', 'reset', 'storage endpoint unreachable: ECONNRESET'],
    [
      'a connection that reads the request and never answers',
      'stall',
      `storage endpoint did not answer within ${UPLOAD_TIMEOUT_MS} ms`,
    ],
  ])('%s is the documented 400, unbilled', async (_name, endpointAnswer, why) => {
    const endpoint = await startRawEndpoint(endpointAnswer);
    try {
      const before = await calls.used();
      expect(answer(await upload(endpoint.endpoint))).toEqual({
        status: 400,
        body: { error: `Bad Request: s3 upload failed (${why})` },
        retryAfter: undefined,
      });
      expect(endpoint.requests()).toBe(1);
      expect(await calls.used()).toBe(before);
    } finally {
      await endpoint.close();
    }
  });
});

describe('the S3 blob store stalling: every operation has a deadline', () => {
  let site: FixtureServer;
  let s3: TestS3;
  let forwarder: TcpForwarder;
  let t: TestRuntime;
  let calls: ReturnType<typeof caller>;

  beforeAll(async () => {
    site = await startFixtureServer();
    s3 = await startS3rver(['blobs']);
    const endpoint = new URL(s3.endpoint);
    forwarder = await startTcpForwarder(endpoint.hostname, Number(endpoint.port));
    t = await startTestRuntime('sqlite', {
      env: {
        BLOB_S3_BUCKET: 'blobs',
        BLOB_S3_ENDPOINT: forwarder.via(s3.endpoint),
        BLOB_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        BLOB_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
        // A deadline s3rver meets on a loaded machine; only a stalled bucket runs into it.
        BLOB_S3_TIMEOUT_MS: '2000',
        BLOB_S3_MAX_ATTEMPTS: '2',
        // Every read goes to the bucket, so that its stall shows.
        BLOB_MEMORY_CACHE_MB: '0',
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        NAVIGATION_TIMEOUT_MS: '10000',
      },
    });
    calls = caller(t, site, await newAccountKey(t, 'blobstall', 1000));
  });
  afterAll(async () => {
    await t?.close();
    await forwarder?.close();
    await s3?.close();
    await site?.close();
  });

  it('answers 503 unbilled for hosted answers and files, and treats the cache as a miss', async () => {
    const cached = await calls.capture('/capture.html?before', { cache: 'true' });
    expect(cached.headers['x-webcap-cache']).toBe('miss');
    const hosted = await calls.capture('/capture.html?before', { response_type: 'json' });
    expect(hosted.statusCode).toBe(200);
    const link = new URL((hosted.json() as { screenshot_url: string }).screenshot_url);
    const file = () => calls.get(`${link.pathname}${link.search}`);
    expect((await file()).statusCode).toBe(200);
    const before = await calls.used();

    forwarder.stall();
    const unavailable = {
      status: 503,
      body: { error: 'Service Unavailable: file storage failed' },
      retryAfter: '5',
    };
    expect(answer(await calls.capture('/capture.html?during', { response_type: 'json' }))).toEqual(
      unavailable,
    );
    expect(answer(await calls.capture('/capture.html?during', { response_type: 'base64' }))).toEqual(
      unavailable,
    );
    expect(answer(await file())).toEqual(unavailable);
    expect(await calls.used()).toBe(before);
    // The cached entry cannot be read (a miss) nor the new one kept (skipped): the capture, billed.
    const uncached = await calls.capture('/capture.html?before', { cache: 'true' });
    expect(uncached.statusCode).toBe(200);
    expect(uncached.headers['x-webcap-cache']).toBe('miss');
    expect(uncached.headers['content-type']).toBe('image/png');
    expect(await calls.used()).toBe(before + 1);

    forwarder.restore();
    expect((await file()).statusCode).toBe(200);
    expect((await calls.capture('/capture.html?after', { response_type: 'json' })).statusCode).toBe(200);
    expect(await calls.used()).toBe(before + 2);
  });
});
