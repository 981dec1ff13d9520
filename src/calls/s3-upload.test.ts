import { describe, expect, it } from 'vitest';
import { checkCallerBucket } from '../requests/caller-bucket.js';
import { objectUrl } from './s3-upload.js';

const CREDENTIALS = { s3_access_key_id: 'AKIAEXAMPLE', s3_secret_key: 'secret/with+chars' };

describe('objectUrl', () => {
  const target = (bucket: string, endpoint: string | null = null) =>
    checkCallerBucket({
      ...CREDENTIALS,
      s3_bucket: bucket,
      s3_region: 'eu-west-3',
      storage_endpoint: endpoint,
    });

  it('is virtual-host style on AWS', () => {
    expect(objectUrl(target('shots'), 'webcap/2030/01/01/x.png')).toBe(
      'https://shots.s3.eu-west-3.amazonaws.com/webcap/2030/01/01/x.png',
    );
  });

  it('is path style on AWS for a dotted bucket, as the SDK addresses it', () => {
    expect(objectUrl(target('shots.example.com'), 'x.png')).toBe(
      'https://s3.eu-west-3.amazonaws.com/shots.example.com/x.png',
    );
  });

  it('is path style on a custom endpoint', () => {
    expect(objectUrl(target('shots', 'https://minio.example.com/'), 'a/b.png')).toBe(
      'https://minio.example.com/shots/a/b.png',
    );
  });

  it("percent-encodes each key segment as S3 does, including !'()*", () => {
    expect(objectUrl(target('shots'), "a b/it's (1)*!/ü?#%.png")).toBe(
      'https://shots.s3.eu-west-3.amazonaws.com/a%20b/it%27s%20%281%29%2A%21/%C3%BC%3F%23%25.png',
    );
  });
});
