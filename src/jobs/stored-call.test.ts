import { describe, expect, it } from 'vitest';
import type { CaptureParams } from '../engines/capture/params.js';
import { Sealer } from './sealed.js';
import { openStoredCall } from './stored-call.js';

const sealer = new Sealer('a-signing-secret-of-at-least-32-characters');

const PARAMS = { url: 'https://example.com/', format: 'png' } as unknown as CaptureParams;

const BUCKET = {
  accessKeyId: 'AKIAEXAMPLE',
  secretAccessKey: 'S3-Secret-Value-77x',
  bucket: 'shots',
  objectKey: null,
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:9000',
};

describe('openStoredCall', () => {
  it("reads a capture stored with the request's s3 names into the checked bucket", () => {
    const sealed = sealer.seal({
      spec: {
        engine: 'capture',
        params: PARAMS,
        delivery: {
          responseType: 'json',
          cache: null,
          s3: {
            s3_access_key_id: 'AKIAEXAMPLE',
            s3_secret_key: 'S3-Secret-Value-77x',
            s3_bucket: 'shots',
            storage_endpoint: 'http://127.0.0.1:9000/',
          },
          baseUrl: 'http://webcap.test',
        },
      },
      webhookUrl: 'https://hooks.example.com/',
    });
    expect(openStoredCall(sealer, sealed)).toEqual({
      spec: {
        engine: 'capture',
        params: PARAMS,
        delivery: { responseType: 'json', cache: null, s3: BUCKET, baseUrl: 'http://webcap.test' },
      },
      webhookUrl: 'https://hooks.example.com/',
    });
  });

  it('keeps a call stored in the current form as it is', () => {
    const stored = {
      spec: {
        engine: 'capture',
        params: PARAMS,
        delivery: {
          responseType: 'base64',
          cache: { ttlSeconds: 3600 },
          s3: BUCKET,
          baseUrl: 'http://x.test',
        },
      },
      webhookUrl: null,
    };
    expect(openStoredCall(sealer, sealer.seal(stored))).toEqual(stored);
    const crawler = {
      spec: {
        engine: 'website-crawler',
        params: { url: 'https://example.com/', allowRedirects: true },
        pageSource: false,
      },
      webhookUrl: null,
    };
    expect(openStoredCall(sealer, sealer.seal(crawler))).toEqual(crawler);
  });
});
