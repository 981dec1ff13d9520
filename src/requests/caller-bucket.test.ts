import { describe, expect, it } from 'vitest';
import { checkCallerBucket } from './caller-bucket.js';

const CREDENTIALS = { s3_access_key_id: 'AKIAEXAMPLE', s3_secret_key: 'secret/with+chars' };

describe('checkCallerBucket', () => {
  it('defaults the region to us-east-1 and generates the key when none is given', () => {
    expect(checkCallerBucket({ ...CREDENTIALS, s3_bucket: 'shots' })).toEqual({
      accessKeyId: 'AKIAEXAMPLE',
      secretAccessKey: 'secret/with+chars',
      bucket: 'shots',
      objectKey: null,
      region: 'us-east-1',
      endpoint: null,
    });
  });

  it('treats empty and null parameters as absent', () => {
    const target = checkCallerBucket({
      ...CREDENTIALS,
      s3_bucket: 'shots',
      s3_region: '',
      s3_object_key: null,
      storage_endpoint: '',
    });
    expect(target).toMatchObject({ region: 'us-east-1', objectKey: null, endpoint: null });
  });

  it('keeps the endpoint origin and path, without a trailing slash', () => {
    const target = checkCallerBucket({
      ...CREDENTIALS,
      s3_bucket: 'shots',
      storage_endpoint: 'https://ACCOUNT.r2.example.com:8443/base/',
    });
    expect(target.endpoint).toBe('https://account.r2.example.com:8443/base');
  });

  it('refuses an endpoint with a query', () => {
    expect(() =>
      checkCallerBucket({
        ...CREDENTIALS,
        s3_bucket: 'shots',
        storage_endpoint: 'https://s3.example.com/?x=1',
      }),
    ).toThrow('storage_endpoint must not have a query or fragment');
  });

  it('accepts a key of exactly 1024 bytes, counting UTF-8 bytes', () => {
    const key = `${'é'.repeat(511)}ab`;
    expect(Buffer.byteLength(key)).toBe(1024);
    expect(checkCallerBucket({ ...CREDENTIALS, s3_bucket: 'shots', s3_object_key: key }).objectKey).toBe(key);
    expect(() => checkCallerBucket({ ...CREDENTIALS, s3_bucket: 'shots', s3_object_key: `${key}c` })).toThrow(
      's3_object_key must be at most 1024 bytes',
    );
  });
});
