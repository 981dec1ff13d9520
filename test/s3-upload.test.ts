import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UploadOptions, uploadToCallerBucket } from '../src/calls/s3-upload.js';
import { errorResponse, WebcapError } from '../src/errors.js';
import { type CallerBucketParams, checkCallerBucket } from '../src/requests/caller-bucket.js';
import { closedPort } from './helpers/net-fixtures.js';
import { type RawAnswer, rawResponse, startRawEndpoint } from './helpers/raw-endpoint.js';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from './helpers/s3rver.js';
import { HANG_MS } from './helpers/waits.js';

const BUCKET = 'caller-bucket';
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(50_000)]);

let s3: TestS3;
let client: S3Client;
beforeAll(async () => {
  s3 = await startS3rver([BUCKET]);
  client = new S3Client({
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
});
afterAll(async () => {
  client.destroy();
  await s3.close();
});

const plainAgents = (): UploadOptions => ({
  httpAgent: new http.Agent(),
  httpsAgent: new https.Agent(),
  timeoutMs: HANG_MS,
});

const callerParams = (overrides: Record<string, string> = {}) => ({
  s3_access_key_id: S3RVER_CREDENTIALS.accessKeyId,
  s3_secret_key: S3RVER_CREDENTIALS.secretAccessKey,
  s3_bucket: BUCKET,
  storage_endpoint: s3.endpoint,
  ...overrides,
});

/** The request's s3_* parameters checked into the bucket they name, then the upload, as a capture call runs them. */
async function upload(
  params: CallerBucketParams,
  bytes: Uint8Array,
  contentType: string,
  options: UploadOptions,
) {
  return uploadToCallerBucket(checkCallerBucket(params), bytes, contentType, options);
}

async function readBack(key: string): Promise<{ bytes: Buffer; contentType: string | undefined }> {
  const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return {
    bytes: Buffer.from((await object.Body?.transformToByteArray()) ?? []),
    contentType: object.ContentType,
  };
}

/** The HTTP response an error would become: status and body. */
function asResponse(error: unknown) {
  expect(error).toBeInstanceOf(WebcapError);
  const { status, body } = errorResponse(error as WebcapError);
  return { status, error: body.error };
}

async function failure(promise: Promise<unknown>) {
  return asResponse(
    await promise.then(
      () => expect.fail('the upload succeeded'),
      (error: unknown) => error,
    ),
  );
}

/**
 * An agent that resolves only `name`, to 127.0.0.1, as the network guard's agents resolve and pin
 * checked addresses: a name nothing else on this machine resolves proves the upload used it.
 */
function pinnedAgent(name: string, seen: string[]): http.Agent {
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    seen.push(hostname);
    if (hostname !== name)
      return callback(Object.assign(new Error(`unknown ${hostname}`), { code: 'ENOTFOUND' }));
    if (options.all === true) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
    return callback(null, '127.0.0.1', 4);
  }) as unknown as LookupFunction;
  return new http.Agent({ lookup });
}

describe('upload to the caller bucket: happy', () => {
  it('uploads under the given key; the object reads back byte for byte and its URL serves it', async () => {
    const uploaded = await upload(
      callerParams({ s3_object_key: 'shots/home.png' }),
      PNG,
      'image/png',
      plainAgents(),
    );
    expect(uploaded).toEqual({
      url: `${s3.endpoint}/${BUCKET}/shots/home.png`,
      bucket: BUCKET,
      key: 'shots/home.png',
    });
    const object = await readBack('shots/home.png');
    expect(Buffer.compare(object.bytes, PNG)).toBe(0);
    expect(object.contentType).toBe('image/png');
    const served = await fetch(uploaded.url);
    expect(served.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await served.arrayBuffer()), PNG)).toBe(0);
  });

  it('encodes each key segment in the URL, which then serves the object', async () => {
    const key = 'caller dir/a+b (1)/é#?.png';
    const uploaded = await upload(callerParams({ s3_object_key: key }), PNG, 'image/png', plainAgents());
    expect(uploaded.url).toBe(`${s3.endpoint}/${BUCKET}/caller%20dir/a%2Bb%20%281%29/%C3%A9%23%3F.png`);
    const served = await fetch(uploaded.url);
    expect(served.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await served.arrayBuffer()), PNG)).toBe(0);
  });

  it('generates unique dated keys with the extension of the content type', async () => {
    const now = new Date('2030-06-07T23:59:59.000Z');
    const options = { ...plainAgents(), now };
    const keys: string[] = [];
    for (const [contentType, extension] of [
      ['image/png', 'png'],
      ['image/png', 'png'],
      ['image/jpeg', 'jpg'],
      ['image/webp', 'webp'],
      ['application/pdf', 'pdf'],
    ] as const) {
      const uploaded = await upload(callerParams(), Buffer.from(contentType), contentType, options);
      expect(uploaded.key).toMatch(new RegExp(`^webcap/2030/06/07/[A-Za-z0-9_-]{16}\\.${extension}$`));
      expect((await readBack(uploaded.key)).contentType).toBe(contentType);
      keys.push(uploaded.key);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('connects only through the agents it is given, for small and large (multi-megabyte) bodies', async () => {
    const seen: string[] = [];
    const endpoint = s3.endpoint.replace('127.0.0.1', 'storage.webcap.test');
    const options = { ...plainAgents(), httpAgent: pinnedAgent('storage.webcap.test', seen) };
    const large = randomBytes(3 * 1024 * 1024);
    for (const [key, bytes] of [
      ['pinned/small.png', PNG],
      ['pinned/large.png', large],
    ] as const) {
      const uploaded = await upload(
        callerParams({ storage_endpoint: endpoint, s3_object_key: key }),
        bytes,
        'image/png',
        options,
      );
      expect(uploaded.url).toBe(`${endpoint}/${BUCKET}/${key}`);
      expect(Buffer.compare((await readBack(key)).bytes, bytes)).toBe(0);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['storage.webcap.test']));
  });
});

describe('upload to the caller bucket: errors', () => {
  // s3rver knows only the S3RVER key id; it checks the key id of SigV4 requests but not the signature.
  it('is 400 naming the S3 error for an unknown access key id', async () => {
    const params = callerParams({ s3_access_key_id: 'AKIAWRONGWRONGWRONG1', s3_object_key: 'denied.png' });
    expect(await failure(upload(params, PNG, 'image/png', plainAgents()))).toEqual({
      status: 400,
      error: 'Bad Request: s3 upload failed (InvalidAccessKeyId)',
    });
    await expect(client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'denied.png' }))).rejects.toThrow();
  });

  it('is 400 naming the S3 error for a bucket that does not exist', async () => {
    const params = callerParams({ s3_bucket: 'no-such-bucket' });
    expect(await failure(upload(params, PNG, 'image/png', plainAgents()))).toEqual({
      status: 400,
      error: 'Bad Request: s3 upload failed (NoSuchBucket)',
    });
  });

  it('is 400 with the network error for an endpoint nobody listens on', async () => {
    const port = await closedPort();
    const params = callerParams({ storage_endpoint: `http://127.0.0.1:${port}` });
    expect(await failure(upload(params, PNG, 'image/png', plainAgents()))).toEqual({
      status: 400,
      error: 'Bad Request: s3 upload failed (storage endpoint unreachable: ECONNREFUSED)',
    });
  });

  it('is 400 saying the deadline when the storage reads the request and never answers', async () => {
    const silent = await startRawEndpoint('stall');
    try {
      const params = callerParams({ storage_endpoint: silent.endpoint });
      const options = { ...plainAgents(), timeoutMs: 300 };
      expect(await failure(upload(params, PNG, 'image/png', options))).toEqual({
        status: 400,
        error: 'Bad Request: s3 upload failed (storage endpoint did not answer within 300 ms)',
      });
      expect(silent.requests()).toBe(1);
    } finally {
      await silent.close();
    }
  });

  // What endpoints that are not S3 (or not well) answer; the SDK fails to parse most of these.
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
      rawResponse('301 Moved Permanently', { Location: 'http://127.0.0.1:1/elsewhere' }),
      'storage endpoint answered HTTP 301',
    ],
    [
      'S3 XML cut short',
      rawResponse('400 Bad Request', { 'Content-Type': 'application/xml' }, '<Error><Code>Inval'),
      'storage endpoint answered HTTP 400',
    ],
    [
      'an S3 error of its own',
      rawResponse(
        '503 Slow Down',
        { 'Content-Type': 'application/xml' },
        '<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>',
      ),
      'SlowDown',
    ],
    [
      'garbage bytes, then a close',
      { bytes: Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a]) },
      'storage endpoint did not answer in HTTP',
    ],
    ['a reset connection', 'reset', 'storage endpoint unreachable: ECONNRESET'],
  ])('is 400 s3 upload failed for %s', async (_name, answer, why) => {
    const endpoint = await startRawEndpoint(answer);
    try {
      const params = callerParams({ storage_endpoint: endpoint.endpoint });
      expect(await failure(upload(params, PNG, 'image/png', plainAgents()))).toEqual({
        status: 400,
        error: `Bad Request: s3 upload failed (${why})`,
      });
      expect(endpoint.requests()).toBe(1);
    } finally {
      await endpoint.close();
    }
  });

  it.each([
    [{ s3_access_key_id: '' }, 'Bad Request: s3_access_key_id is required when s3_url is true'],
    [{ s3_secret_key: '' }, 'Bad Request: s3_secret_key is required when s3_url is true'],
    [{ s3_bucket: '' }, 'Bad Request: s3_bucket is required when s3_url is true'],
    [
      { s3_bucket: 'Upper_Case' },
      'Bad Request: s3_bucket must be a bucket name: 3 to 63 characters of a-z 0-9 . -',
    ],
    [{ s3_region: 'eu west' }, 'Bad Request: s3_region must be a region name such as us-east-1'],
    [{ storage_endpoint: 'ftp://127.0.0.1/' }, 'Bad Request: storage_endpoint must be an http or https URL'],
    [{ storage_endpoint: 'not a url' }, 'Bad Request: storage_endpoint must be an http or https URL'],
    [{ s3_object_key: '/leading.png' }, 'Bad Request: s3_object_key must not start with /'],
    [{ s3_object_key: 'k'.repeat(1025) }, 'Bad Request: s3_object_key must be at most 1024 bytes'],
  ])('is 400 naming the parameter for %j, before any connection', async (override, message) => {
    const seen: string[] = [];
    const options = { ...plainAgents(), httpAgent: pinnedAgent('never', seen) };
    expect(await failure(upload(callerParams(override), PNG, 'image/png', options))).toEqual({
      status: 400,
      error: message,
    });
    expect(seen).toEqual([]);
  });
});

describe('upload to the caller bucket: security', () => {
  it("passes the network guard's refusal through unchanged, and nothing is stored", async () => {
    const refusal = new WebcapError('blocked', 'storage_endpoint resolves to a loopback address');
    const lookup = ((_hostname: string, _options: unknown, callback: (error: Error) => void) =>
      callback(refusal)) as unknown as LookupFunction;
    const params = callerParams({
      storage_endpoint: s3.endpoint.replace('127.0.0.1', 'internal.webcap.test'),
      s3_object_key: 'guarded.png',
    });
    const error = await upload(params, PNG, 'image/png', {
      ...plainAgents(),
      httpAgent: new http.Agent({ lookup }),
    }).catch((caught: unknown) => caught);
    expect(error).toBe(refusal);
    await expect(
      client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'guarded.png' })),
    ).rejects.toThrow();
  });

  it('refuses credentials in storage_endpoint, and never echoes the secret key in an error', async () => {
    const withUserinfo = callerParams({
      storage_endpoint: s3.endpoint.replace('http://', 'http://user:pass@'),
    });
    expect(await failure(upload(withUserinfo, PNG, 'image/png', plainAgents()))).toEqual({
      status: 400,
      error:
        'Bad Request: storage_endpoint must not carry credentials; use s3_access_key_id and s3_secret_key',
    });
    const secret = 'super-secret-value-0123456789';
    const denied = callerParams({ s3_access_key_id: 'AKIAWRONGWRONGWRONG1', s3_secret_key: secret });
    const response = await failure(upload(denied, PNG, 'image/png', plainAgents()));
    expect(response.error).not.toContain(secret);
  });

  it.each(['../other-bucket/x.png', 'a/../../b.png', 'a//b.png', 'a/./b.png', 'tab\there.png'])(
    'refuses the object key %j, which could resolve outside the bucket or the key',
    async (key) => {
      const response = await failure(
        upload(callerParams({ s3_object_key: key }), PNG, 'image/png', plainAgents()),
      );
      expect(response.status).toBe(400);
      expect(response.error).toMatch(/^Bad Request: s3_object_key must not contain/);
    },
  );
});
