import path from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../src/http/errors.js';
import { type FilesDeps, filesRoutes } from '../src/http/routes/v1/files.js';
import type { BlobStore } from '../src/store/blobs.js';
import { FsBlobStore } from '../src/store/blobs-fs.js';
import { S3BlobStore } from '../src/store/blobs-s3.js';
import { fileBlobKey, hostFile, signFileUrl } from '../src/store/file-urls.js';
import { tempDir } from './helpers/databases.js';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from './helpers/s3rver.js';

const SECRET = 'test-signing-secret-0123456789abcdef';
const T0 = new Date('2030-06-01T12:00:00.000Z');
const BASE = 'https://shots.example.com';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3rver(['hosted']);
});
afterAll(async () => {
  await s3.close();
});

/** The route on an app configured as buildApp configures it (validation, error handling). */
async function filesApp(deps: FilesDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerErrorHandling(app);
  await app.register(filesRoutes(deps));
  return app;
}

/** The path and query of a link, for app.inject. */
function local(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

let stores = 0;
const STORES: [string, (clock: () => Date) => BlobStore][] = [
  ['local directory', (clock) => new FsBlobStore(path.join(tempDir(), 'blobs'), clock)],
  [
    'S3 (s3rver)',
    (clock) =>
      new S3BlobStore(
        {
          kind: 's3',
          bucket: 'hosted',
          endpoint: s3.endpoint,
          region: 'us-east-1',
          credentials: S3RVER_CREDENTIALS,
          prefix: `run${++stores}/`,
          timeoutMs: 10_000,
          maxAttempts: 2,
        },
        clock,
      ),
  ],
];

describe.each(STORES)('GET /v1/files/:id on %s', (_name, makeStore) => {
  let now: Date;
  let blobs: BlobStore;
  let app: FastifyInstance;
  beforeEach(async () => {
    now = T0;
    blobs = makeStore(() => now);
    app = await filesApp({ blobs, signingSecret: SECRET, clock: () => now });
    return async () => {
      await app.close();
      await blobs.close();
    };
  });
  const host = (bytes = PNG, ttlSeconds = 86_400) =>
    hostFile(blobs, bytes, 'image/png', { baseUrl: BASE, ttlSeconds, secret: SECRET, now, extension: 'png' });

  describe('happy', () => {
    it('serves the bytes with their type to whoever holds the link, without an API key', async () => {
      const file = await host();
      expect(file.url).toMatch(
        /^https:\/\/shots\.example\.com\/v1\/files\/[A-Za-z0-9_-]{24}\.png\?expires=\d+&signature=[A-Za-z0-9_-]{43}$/,
      );
      const response = await app.inject({ method: 'GET', url: local(file.url) });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('image/png');
      expect(response.headers['cache-control']).toBe('private, max-age=86400');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(Buffer.compare(response.rawPayload, PNG)).toBe(0);
    });

    it('counts max-age down to the link expiry', async () => {
      const file = await host();
      now = new Date(T0.getTime() + 86_000_500);
      const response = await app.inject({ method: 'GET', url: local(file.url) });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('private, max-age=399');
    });

    it('serves the exact screenshot_url over a real connection', async () => {
      const address = await app.listen({ host: '127.0.0.1', port: 0 });
      const file = await hostFile(blobs, PNG, 'image/png', {
        baseUrl: `${address}/`,
        ttlSeconds: 60,
        secret: SECRET,
        now,
      });
      const response = await fetch(file.url);
      expect(response.status).toBe(200);
      expect(Buffer.compare(Buffer.from(await response.arrayBuffer()), PNG)).toBe(0);
    });

    it('ignores an unrelated query parameter such as a cache buster', async () => {
      const file = await host();
      const response = await app.inject({ method: 'GET', url: `${local(file.url)}&v=2` });
      expect(response.statusCode).toBe(200);
    });
  });

  describe('errors', () => {
    it('is 404 "link expired" from the expiry second on', async () => {
      const file = await host(PNG, 60);
      now = new Date(T0.getTime() + 59_999);
      expect((await app.inject({ method: 'GET', url: local(file.url) })).statusCode).toBe(200);
      now = new Date(T0.getTime() + 60_000);
      const response = await app.inject({ method: 'GET', url: local(file.url) });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 'Not Found: link expired' });
    });

    it('is 404 for a validly signed link whose file is gone', async () => {
      const file = await host();
      await blobs.delete(fileBlobKey(file.id));
      const response = await app.inject({ method: 'GET', url: local(file.url) });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 'Not Found' });
      const never = signFileUrl(BASE, 'AAAAAAAAAAAAAAAAAAAAAAAA', new Date(T0.getTime() + 60_000), SECRET);
      const missing = await app.inject({ method: 'GET', url: local(never) });
      expect([missing.statusCode, missing.json()]).toEqual([404, { error: 'Not Found' }]);
    });

    it.each([
      ['expires', 'signature=abc', 'Bad Request: expires is required'],
      ['expires', 'expires=soon&signature=abc', 'Bad Request: expires must be integer'],
      ['expires', 'expires=-5&signature=abc', 'Bad Request: expires must be >= 0'],
      ['signature', 'expires=1900000000', 'Bad Request: signature is required'],
      [
        'signature',
        'expires=1900000000&signature=',
        'Bad Request: signature must NOT have fewer than 1 characters',
      ],
    ])('is 400 naming %s for %s', async (_param, query, message) => {
      const response = await app.inject({
        method: 'GET',
        url: `/v1/files/AAAAAAAAAAAAAAAAAAAAAAAA?${query}`,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: message });
    });

    it('is 400 naming id for an id that cannot be a hosted file', async () => {
      const response = await app.inject({
        method: 'GET',
        url: '/v1/files/short?expires=1900000000&signature=abc',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatch(/^Bad Request: id must match pattern/);
    });
  });

  describe('security', () => {
    const forbidden = { error: 'Forbidden: invalid signature' };

    it('is 403 for a tampered signature, of any length', async () => {
      const file = await host();
      const url = new URL(file.url);
      const signature = url.searchParams.get('signature') ?? '';
      for (const forged of [
        `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
        signature.slice(1),
        `${signature}A`,
        'x',
      ]) {
        url.searchParams.set('signature', forged);
        const response = await app.inject({ method: 'GET', url: local(url.toString()) });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(forbidden);
      }
    });

    it('is 403 when the expiry is pushed back, even once the real expiry has passed', async () => {
      const file = await host(PNG, 60);
      const url = new URL(file.url);
      url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      now = new Date(T0.getTime() + 120_000);
      const response = await app.inject({ method: 'GET', url: local(url.toString()) });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual(forbidden);
    });

    it("is 403 for another file's signature and for a signature made with another secret", async () => {
      const mine = await host(Buffer.from('mine'));
      const theirs = await host(Buffer.from('theirs'));
      const swapped = new URL(theirs.url);
      swapped.searchParams.set('signature', new URL(mine.url).searchParams.get('signature') ?? '');
      const forged = await app.inject({ method: 'GET', url: local(swapped.toString()) });
      expect([forged.statusCode, forged.json()]).toEqual([403, { error: 'Forbidden: invalid signature' }]);
      const otherSecret = signFileUrl(BASE, mine.id, mine.expiresAt, 'another-secret-0123456789abcdefghij');
      const foreign = await app.inject({ method: 'GET', url: local(otherSecret) });
      expect([foreign.statusCode, foreign.json()]).toEqual([403, { error: 'Forbidden: invalid signature' }]);
    });

    it('is 400 for ids that try to leave the files namespace, touching no file', async () => {
      for (const id of [
        '..%2F..%2Fetc%2Fpasswd',
        'cache%2Fabc',
        'AAAAAAAAAAAAAAAAAAAAAAAA%2F..',
        '.hidden-file-name-long',
      ]) {
        const response = await app.inject({
          method: 'GET',
          url: `/v1/files/${id}?expires=1900000000&signature=x`,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toMatch(/^Bad Request: id /);
      }
      // A bare '..' segment is resolved by the URL parser first: it never reaches the route.
      const dotted = await app.inject({ method: 'GET', url: '/v1/files/..?expires=1900000000&signature=x' });
      expect([dotted.statusCode, dotted.json()]).toEqual([404, { error: 'Not Found' }]);
    });
  });
});
