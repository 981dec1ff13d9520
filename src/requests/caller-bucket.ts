import { Type } from 'typebox';
import type { CallerBucket } from '../calls/s3-upload.js';
import { invalidParam } from '../errors.js';
import { Flag, flag } from './common-fields.js';

/** The s3_* parameters of GET /v1/capture and storage_endpoint, as the caller sent them (s3_url=true). */
export interface CallerBucketParams {
  readonly s3_access_key_id?: string | null;
  readonly s3_secret_key?: string | null;
  readonly s3_bucket?: string | null;
  readonly s3_object_key?: string | null;
  readonly s3_region?: string | null;
  readonly storage_endpoint?: string | null;
}

// AWS's rules: on AWS the bucket becomes a host name label, so nothing else may pass.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,32}$/;
const CREDENTIAL = /^[\x21-\x7e]{1,256}$/;
const MAX_KEY_BYTES = 1024;
const DEFAULT_REGION = 'us-east-1';

function present(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value !== '';
}

function credential(name: string, value: string | null | undefined): string {
  if (!present(value)) throw invalidParam(name, 'is required when s3_url is true');
  if (!CREDENTIAL.test(value)) {
    throw invalidParam(name, 'must be 1 to 256 printable characters without spaces');
  }
  return value;
}

function checkObjectKey(key: string): string {
  if (key.startsWith('/')) throw invalidParam('s3_object_key', 'must not start with /');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
    throw invalidParam('s3_object_key', `must be at most ${MAX_KEY_BYTES} bytes`);
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\x00-\x1f\x7f]/.test(key)) throw invalidParam('s3_object_key', 'must not contain control characters');
  // In a path-style URL a '..' segment could be resolved into another bucket by a proxy or server.
  if (key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw invalidParam('s3_object_key', "must not contain empty, '.' or '..' path segments");
  }
  return key;
}

function checkEndpoint(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidParam('storage_endpoint', 'must be an http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidParam('storage_endpoint', 'must be an http or https URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidParam(
      'storage_endpoint',
      'must not carry credentials; use s3_access_key_id and s3_secret_key',
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw invalidParam('storage_endpoint', 'must not have a query or fragment');
  }
  let end = url.pathname.length;
  while (end > 0 && url.pathname[end - 1] === '/') end -= 1;
  return `${url.origin}${url.pathname.slice(0, end)}`;
}

/** Checks the s3_* parameters and storage_endpoint; throws invalidParam naming the first bad one. Call it before rendering. */
export function checkCallerBucket(params: CallerBucketParams): CallerBucket {
  const accessKeyId = credential('s3_access_key_id', params.s3_access_key_id);
  const secretAccessKey = credential('s3_secret_key', params.s3_secret_key);
  if (!present(params.s3_bucket)) throw invalidParam('s3_bucket', 'is required when s3_url is true');
  if (!BUCKET.test(params.s3_bucket)) {
    throw invalidParam('s3_bucket', 'must be a bucket name: 3 to 63 characters of a-z 0-9 . -');
  }
  const region = present(params.s3_region) ? params.s3_region : DEFAULT_REGION;
  if (!REGION.test(region)) throw invalidParam('s3_region', 'must be a region name such as us-east-1');
  return {
    accessKeyId,
    secretAccessKey,
    bucket: params.s3_bucket,
    objectKey: present(params.s3_object_key) ? checkObjectKey(params.s3_object_key) : null,
    region,
    endpoint: present(params.storage_endpoint) ? checkEndpoint(params.storage_endpoint) : null,
  };
}

/** The fields of a capture's upload to the caller's own bucket (s3_url=true; spec, GET /v1/capture). */
export const callerBucketFields = {
  s3_url: Type.Optional(Flag),
  s3_access_key_id: Type.Optional(Type.String({ maxLength: 256 })),
  s3_secret_key: Type.Optional(Type.String({ maxLength: 256 })),
  s3_bucket: Type.Optional(Type.String({ maxLength: 256 })),
  s3_object_key: Type.Optional(Type.String({ maxLength: 1024 })),
  s3_region: Type.Optional(Type.String({ maxLength: 64 })),
  storage_endpoint: Type.Optional(Type.String({ maxLength: 2048 })),
};

/** The checked bucket a validated request uploads to, or null without s3_url=true. */
export function callerBucketOf(
  input: CallerBucketParams & { readonly s3_url?: boolean | '1' | '0' },
): CallerBucket | null {
  return flag(input.s3_url) ? checkCallerBucket(input) : null;
}
