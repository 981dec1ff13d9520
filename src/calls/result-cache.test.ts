import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CaptureParams } from '../engines/capture/params.js';
import { WebcapError } from '../errors.js';
import { captureRequest } from '../requests/capture.js';
import type { BlobStore } from '../store/blobs.js';
import { FsBlobStore } from '../store/blobs-fs.js';
import { cacheKey, getCached, putCached } from './result-cache.js';

const PARAMS: CaptureParams = {
  url: 'https://example.com/',
  format: 'png',
  device: null,
  fullPage: false,
  fullPageScroll: false,
  fullPageScrollDurationMs: 400,
  viewportWidth: 1280,
  viewportHeight: 1024,
  scaleFactor: null,
  imageQuality: 80,
  selector: null,
  removeSelectors: [],
  removeAds: false,
  removeCookieBanners: false,
  blockResources: ['image', 'font'],
  blockUrls: [],
  delayMs: 0,
  waitUntil: ['load'],
  waitForSelector: null,
  proxy: null,
  styles: null,
  hideSelectors: [],
  pdf: null,
  omitBackground: false,
  clip: null,
};

describe('cacheKey', () => {
  it('is the SHA-256 hex of the key version, the engine, the account and the parameters in canonical JSON', () => {
    // Written out by hand: a change here orphans every entry already cached (bump KEY_VERSION then).
    const canonical =
      '{"blockResources":["image","font"],"blockUrls":[],"clip":null,"delayMs":0,"device":null,"format":"png",' +
      '"fullPage":false,"fullPageScroll":false,"fullPageScrollDurationMs":400,"hideSelectors":[],"imageQuality":80,' +
      '"omitBackground":false,"pdf":null,"proxy":null,"removeAds":false,"removeCookieBanners":false,"removeSelectors":[],' +
      '"scaleFactor":null,"selector":null,"styles":null,"url":"https://example.com/","viewportHeight":1024,"viewportWidth":1280,' +
      '"waitForSelector":null,"waitUntil":["load"]}';
    const expected = createHash('sha256')
      .update(`webcap-cache:v2\n"capture"\n"acc_1"\n${canonical}`)
      .digest('hex');
    expect(cacheKey('capture', 'acc_1', PARAMS)).toBe(expected);
  });

  it('does not depend on the order of parameters, at any depth', () => {
    const reordered = Object.fromEntries(Object.entries({ ...PARAMS, region: { x: 1, y: 2 } }).reverse());
    expect(cacheKey('capture', 'acc_1', reordered)).toBe(
      cacheKey('capture', 'acc_1', { ...PARAMS, region: { y: 2, x: 1 } }),
    );
  });

  it.each([
    ['url', 'https://example.com/other'],
    ['format', 'jpeg'],
    ['viewportWidth', 1281],
    ['fullPage', true],
    ['blockResources', ['font', 'image']],
    ['proxy', { protocol: 'http:', host: 'proxy.example', port: 8080, username: 'u', password: 'p' }],
    ['device', 'iphone_14_pro'],
    ['document', { html: '<p>sent</p>' }],
    ['document', { markdown: '<p>sent</p>' }],
  ])('differs when a rendering parameter differs: %s', (name, value) => {
    expect(cacheKey('capture', 'acc_1', { ...PARAMS, [name]: value })).not.toBe(
      cacheKey('capture', 'acc_1', PARAMS),
    );
  });

  it('is the same whatever the delivery asked: the edge keeps it out of the parameters', () => {
    const request = { url: 'https://example.com/', block_resources: 'image,font' };
    const delivered = {
      ...request,
      cache: true,
      cache_ttl: 7200,
      response_type: 'json',
      is_async: true,
      s3_url: true,
      s3_access_key_id: 'AKIA',
      s3_secret_key: 'secret',
      s3_bucket: 'shots',
      s3_object_key: 'k.png',
      s3_region: 'eu-west-3',
      storage_endpoint: 'https://s3.example.com',
    } as const;
    const plain = captureRequest(request, 'v1', 'http://webcap.test');
    const other = captureRequest(delivered, 'v1', 'http://webcap.test');
    expect(other.delivery).not.toEqual(plain.delivery);
    expect(cacheKey('capture', 'acc_1', other.params)).toBe(cacheKey('capture', 'acc_1', plain.params));
  });

  it('differs between accounts and between engines', () => {
    expect(cacheKey('capture', 'acc_1', PARAMS)).not.toBe(cacheKey('capture', 'acc_2', PARAMS));
    expect(cacheKey('capture', 'acc_1', PARAMS)).not.toBe(cacheKey('content', 'acc_1', PARAMS));
  });

  it('tells null from a missing parameter and from the text "null"', () => {
    const keys = [{ region: null }, {}, { region: 'null' }].map((extra) =>
      cacheKey('capture', 'a', { ...PARAMS, ...extra }),
    );
    expect(new Set(keys).size).toBe(3);
  });

  it('refuses values that are not plain data instead of hashing them as {}', () => {
    expect(() => cacheKey('capture', 'acc_1', { ...PARAMS, when: new Date() })).toThrow(TypeError);
  });
});

const made: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webcap-cache-'));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

describe('getCached / putCached', () => {
  it('returns the cached bytes until the TTL has passed on the injected clock, then null', async () => {
    const t0 = new Date('2030-01-01T00:00:00.000Z');
    let now = t0;
    const blobs = new FsBlobStore(path.join(tempDir(), 'blobs'), () => now);
    const key = cacheKey('capture', 'acc_1', PARAMS);
    expect(await getCached(blobs, key)).toBeNull();
    await putCached(blobs, key, Buffer.from('png bytes'), 'image/png', 3600, t0, {
      width: '1280',
      height: '720',
    });
    const hit = await getCached(blobs, key);
    expect(hit?.bytes.toString()).toBe('png bytes');
    expect(hit?.contentType).toBe('image/png');
    expect(hit?.metadata).toEqual({ width: '1280', height: '720' });
    expect(hit?.expiresAt).toEqual(new Date('2030-01-01T01:00:00.000Z'));
    now = new Date(t0.getTime() + 3_599_999);
    expect(await getCached(blobs, key)).not.toBeNull();
    now = new Date(t0.getTime() + 3_600_000);
    expect(await getCached(blobs, key)).toBeNull();
    expect(await getCached(blobs, cacheKey('capture', 'acc_2', PARAMS))).toBeNull();
  });

  it('replaces an entry put again, with the new TTL', async () => {
    const t0 = new Date('2030-01-01T00:00:00.000Z');
    let now = t0;
    const blobs = new FsBlobStore(path.join(tempDir(), 'blobs'), () => now);
    const key = cacheKey('capture', 'acc_1', PARAMS);
    await putCached(blobs, key, Buffer.from('old'), 'image/png', 3600, t0);
    await putCached(blobs, key, Buffer.from('new'), 'image/png', 7200, t0);
    now = new Date(t0.getTime() + 5_000_000);
    expect((await getCached(blobs, key))?.bytes.toString()).toBe('new');
  });

  it('reads an unavailable store as a miss and keeps nothing in it, without failing; other errors fail', async () => {
    const failingWith = (error: Error): BlobStore => ({
      put: () => Promise.reject(error),
      get: () => Promise.reject(error),
      delete: () => Promise.reject(error),
      sweepExpired: () => Promise.reject(error),
      close: () => Promise.resolve(),
    });
    const key = cacheKey('capture', 'acc_1', PARAMS);
    const now = new Date('2030-01-01T00:00:00.000Z');
    const down = failingWith(new WebcapError('unavailable', 'file storage failed'));
    expect(await getCached(down, key)).toBeNull();
    await expect(putCached(down, key, Buffer.from('png'), 'image/png', 3600, now)).resolves.toBeUndefined();
    const broken = failingWith(new Error('a bug'));
    await expect(getCached(broken, key)).rejects.toThrow('a bug');
    await expect(putCached(broken, key, Buffer.from('png'), 'image/png', 3600, now)).rejects.toThrow('a bug');
  });
});
