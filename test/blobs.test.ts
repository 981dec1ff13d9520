import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../src/clock.js';
import type { BlobStore } from '../src/store/blobs.js';
import { FsBlobStore } from '../src/store/blobs-fs.js';
import { MemoryCachedBlobStore } from '../src/store/blobs-memory.js';
import { S3BlobStore, type S3BlobStoreConfig } from '../src/store/blobs-s3.js';
import { tempDir } from './helpers/databases.js';
import { type RawEndpoint, startRawEndpoint } from './helpers/raw-endpoint.js';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from './helpers/s3rver.js';
import { HANG_MS } from './helpers/waits.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const BUCKET = 'webcap-blobs';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3rver([BUCKET]);
});
afterAll(async () => {
  await s3.close();
});

function s3Config(prefix: string): S3BlobStoreConfig {
  return {
    kind: 's3',
    bucket: BUCKET,
    endpoint: s3.endpoint,
    region: 'us-east-1',
    credentials: S3RVER_CREDENTIALS,
    prefix,
    timeoutMs: HANG_MS,
    maxAttempts: 2,
  };
}

interface Subject {
  readonly store: BlobStore;
  /** Moves the store's clock. */
  setNow(date: Date): void;
}

function withClock(make: (clock: Clock) => BlobStore): Subject {
  let now = T0;
  return {
    store: make(() => now),
    setNow(date) {
      now = date;
    },
  };
}

// Each S3 subject gets a prefix of its own, so tests sharing the bucket never see each other's blobs.
let prefixes = 0;
const IMPLEMENTATIONS: [string, () => Subject][] = [
  ['local directory', () => withClock((clock) => new FsBlobStore(path.join(tempDir(), 'blobs'), clock))],
  ['S3 (s3rver)', () => withClock((clock) => new S3BlobStore(s3Config(`t${++prefixes}/`), clock))],
  [
    'local directory behind the memory cache',
    () =>
      withClock(
        (clock) =>
          new MemoryCachedBlobStore(new FsBlobStore(path.join(tempDir(), 'blobs'), clock), 1_000_000, clock),
      ),
  ],
];

describe.each(IMPLEMENTATIONS)('blob store contract: %s', (_name, make) => {
  let subject: Subject;
  let store: BlobStore;
  beforeEach(() => {
    subject = make();
    store = subject.store;
    return () => store.close();
  });

  it('returns what was put, byte for byte, with its content type', async () => {
    const bytes = randomBytes(70_000);
    bytes[10] = 0x0a; // newlines in the payload must not confuse any header format
    await store.put('files/abc.png', bytes, { contentType: 'image/png' });
    const blob = await store.get('files/abc.png');
    expect(blob).not.toBeNull();
    expect(Buffer.compare(blob?.bytes ?? Buffer.alloc(0), bytes)).toBe(0);
    expect(blob?.contentType).toBe('image/png');
    expect(blob?.expiresAt).toBeNull();
    expect(blob?.metadata).toEqual({});
  });

  it('keeps metadata as put, apart from the expiry', async () => {
    const metadata = { width: '1290', height: '2796', 'x-note': 'a value, with spaces' };
    const expiresAt = new Date(T0.getTime() + 60_000);
    await store.put('cache/meta', Buffer.from('x'), { contentType: 'image/png', expiresAt, metadata });
    expect((await store.get('cache/meta'))?.metadata).toEqual(metadata);
  });

  it('keeps an empty blob', async () => {
    await store.put('empty', new Uint8Array(0), { contentType: 'application/octet-stream' });
    expect((await store.get('empty'))?.bytes.length).toBe(0);
  });

  it('returns null for a key never put', async () => {
    expect(await store.get('files/never')).toBeNull();
  });

  it('replaces a blob put again under the same key', async () => {
    await store.put('k', Buffer.from('first'), { contentType: 'text/plain' });
    await store.put('k', Buffer.from('second'), { contentType: 'application/pdf' });
    const blob = await store.get('k');
    expect(blob?.bytes.toString()).toBe('second');
    expect(blob?.contentType).toBe('application/pdf');
  });

  it('deletes, and deleting an absent key is not an error', async () => {
    await store.put('gone', Buffer.from('x'), { contentType: 'text/plain' });
    await store.delete('gone');
    expect(await store.get('gone')).toBeNull();
    await expect(store.delete('gone')).resolves.toBeUndefined();
  });

  it('reads an expiring blob until its expiry and as absent from that instant', async () => {
    const expiresAt = new Date(T0.getTime() + 60_000);
    await store.put('cache/x', Buffer.from('bytes'), { contentType: 'image/png', expiresAt });
    expect((await store.get('cache/x'))?.expiresAt?.toISOString()).toBe(expiresAt.toISOString());
    subject.setNow(new Date(expiresAt.getTime() - 1));
    expect(await store.get('cache/x')).not.toBeNull();
    subject.setNow(expiresAt);
    expect(await store.get('cache/x')).toBeNull();
  });

  it('sweeps expired blobs only and says how many', async () => {
    const soon = new Date(T0.getTime() + 1000);
    const later = new Date(T0.getTime() + 3_600_000);
    await store.put('files/old-1', Buffer.from('a'), { contentType: 'image/png', expiresAt: soon });
    await store.put('cache/old-2', Buffer.from('b'), { contentType: 'image/png', expiresAt: soon });
    await store.put('files/fresh', Buffer.from('c'), { contentType: 'image/png', expiresAt: later });
    await store.put('forever', Buffer.from('d'), { contentType: 'image/png' });
    expect(await store.sweepExpired()).toBe(0);
    subject.setNow(new Date(soon.getTime() + 1));
    expect(await store.sweepExpired()).toBe(2);
    expect(await store.sweepExpired()).toBe(0);
    // Gone for real, not only hidden: even at an earlier time they do not come back.
    subject.setNow(T0);
    expect(await store.get('files/old-1')).toBeNull();
    expect(await store.get('cache/old-2')).toBeNull();
    expect((await store.get('files/fresh'))?.bytes.toString()).toBe('c');
    expect((await store.get('forever'))?.bytes.toString()).toBe('d');
  });

  it('never shows a reader a mix of two writes to one key', async () => {
    const a = Buffer.alloc(300_000, 0x61);
    const b = Buffer.alloc(200_000, 0x62);
    const writes = Array.from({ length: 10 }, (_, i) =>
      store.put('race', i % 2 === 0 ? a : b, { contentType: i % 2 === 0 ? 'text/a' : 'text/b' }),
    );
    const reads: Promise<void>[] = [];
    for (let i = 0; i < 10; i++) {
      reads.push(
        store.get('race').then((blob) => {
          if (blob === null) return;
          const expected = blob.contentType === 'text/a' ? a : b;
          expect(Buffer.compare(blob.bytes, expected)).toBe(0);
        }),
      );
    }
    await Promise.all([...writes, ...reads]);
    expect(['text/a', 'text/b']).toContain((await store.get('race'))?.contentType);
  });

  it.each([
    '',
    '../escape',
    'files/../../escape',
    '/absolute',
    'a//b',
    'trailing/',
    '.hidden',
    'files/.tmp-x',
    'back\\slash',
    'space here',
    'nul\u0000',
    'é',
    'x'.repeat(129),
  ])('refuses the key %j before any I/O', async (key) => {
    await expect(store.put(key, Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(
      /invalid blob key/,
    );
    await expect(store.get(key)).rejects.toThrow(/invalid blob key/);
    await expect(store.delete(key)).rejects.toThrow(/invalid blob key/);
  });

  it.each([
    [{ Width: '1' }],
    [{ 'expires-at': '2999-01-01T00:00:00.000Z' }],
    [{ note: 'line\nbreak' }],
    [{ note: 'é' }],
    [{ big: 'x'.repeat(2048) }],
  ])('refuses metadata %j that S3 would not keep as given', async (metadata) => {
    await expect(store.put('k', Buffer.from('x'), { contentType: 'text/plain', metadata })).rejects.toThrow(
      /invalid blob metadata/,
    );
  });

  it('refuses a content type that could not be sent back as a header', async () => {
    await expect(
      store.put('k', Buffer.from('x'), { contentType: 'text/plain\r\nx-evil: 1' }),
    ).rejects.toThrow(/content type/);
    await expect(store.put('k', Buffer.from('x'), { contentType: '' })).rejects.toThrow(/content type/);
  });
});

describe('local directory store', () => {
  it('writes only under its directory, through temp files it does not leave behind', async () => {
    const root = tempDir();
    const store = new FsBlobStore(path.join(root, 'blobs'), () => T0);
    await store.put('files/a.png', Buffer.from('png'), { contentType: 'image/png' });
    await expect(store.put('../outside', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow();
    expect(fs.readdirSync(root)).toEqual(['blobs']);
    expect(fs.readdirSync(path.join(root, 'blobs/files'))).toEqual(['a.png']);
  });

  it('reads as absent a key whose path crosses another key', async () => {
    const store = new FsBlobStore(path.join(tempDir(), 'blobs'), () => T0);
    await store.put('a', Buffer.from('file'), { contentType: 'text/plain' });
    await store.put('b/c', Buffer.from('nested'), { contentType: 'text/plain' });
    expect(await store.get('a/x')).toBeNull();
    expect(await store.get('b')).toBeNull();
    await expect(store.delete('b')).resolves.toBeUndefined();
  });

  it('sweeps temp files of writes that died, once they are an hour old, and leaves foreign files alone', async () => {
    const dir = path.join(tempDir(), 'blobs');
    let now = new Date();
    const store = new FsBlobStore(dir, () => now);
    await store.put('files/kept', Buffer.from('x'), { contentType: 'text/plain' });
    const temp = path.join(dir, 'files', '.tmp-deadbeef');
    fs.writeFileSync(temp, 'half a write');
    // Written after `now` was read, the file's mtime would be a few ms later: pin it to `now`.
    fs.utimesSync(temp, now, now);
    fs.writeFileSync(path.join(dir, 'README'), 'not a blob');
    expect(await store.sweepExpired()).toBe(0);
    expect(fs.existsSync(temp)).toBe(true);
    now = new Date(now.getTime() + 3_600_001);
    expect(await store.sweepExpired()).toBe(0);
    expect(fs.existsSync(temp)).toBe(false);
    expect(fs.readdirSync(dir).sort()).toEqual(['README', 'files']);
    expect((await store.get('files/kept'))?.bytes.toString()).toBe('x');
  });

  it('sweeps nothing, without error, before the directory exists', async () => {
    const store = new FsBlobStore(path.join(tempDir(), 'never-made'), () => T0);
    expect(await store.sweepExpired()).toBe(0);
  });
});

describe('memory cache in front of a store', () => {
  /** A store that counts its reads, behind a memory cache of `maxBytes` keeping what `keeps` names. */
  function counted(maxBytes: number, keeps?: (key: string) => boolean) {
    let now = T0;
    const clock = () => now;
    const inner = new FsBlobStore(path.join(tempDir(), 'blobs'), clock);
    const reads: string[] = [];
    const get = inner.get.bind(inner);
    inner.get = (key) => {
      reads.push(key);
      return get(key);
    };
    return {
      cached: new MemoryCachedBlobStore(inner, maxBytes, clock, keeps),
      reads,
      setNow: (date: Date) => {
        now = date;
      },
    };
  }

  it('answers repeated reads from memory, and keeps nothing on write', async () => {
    const { cached, reads } = counted(1000);
    await cached.put('a', Buffer.from('first'), { contentType: 'text/plain' });
    for (let i = 0; i < 3; i++) expect((await cached.get('a'))?.bytes.toString()).toBe('first');
    expect(await cached.get('absent')).toBeNull();
    expect(await cached.get('absent')).toBeNull();
    expect(reads).toEqual(['a', 'absent', 'absent']);
  });

  it('keeps at most its budget, dropping the least recently used, and never a blob over a quarter of it', async () => {
    const { cached, reads } = counted(250);
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      await cached.put(key, Buffer.alloc(60, key), { contentType: 'x/y' });
    }
    await cached.put('f', Buffer.alloc(63, 'f'), { contentType: 'x/y' });
    for (const key of ['a', 'b', 'c', 'a', 'd', 'e', 'f']) await cached.get(key);
    expect(reads).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    reads.length = 0;
    // 300 bytes were over 250: b, the least recently read, went; f is over a quarter of 250.
    for (const key of ['a', 'c', 'd', 'e']) expect((await cached.get(key))?.bytes[0]).toBe(key.charCodeAt(0));
    expect(reads).toEqual([]);
    for (const key of ['b', 'f']) expect((await cached.get(key))?.bytes[0]).toBe(key.charCodeAt(0));
    expect(reads).toEqual(['b', 'f']);
  });

  it('holds no more memory than it counts: a view into a larger buffer is kept as a copy of its own', async () => {
    const clock = () => T0;
    const inner = new FsBlobStore(path.join(tempDir(), 'blobs'), clock);
    // As a store may answer (blobs-s3.ts wraps the body it read): a view into a larger buffer.
    const get = inner.get.bind(inner);
    inner.get = async (key) => {
      const blob = await get(key);
      if (blob === null) return null;
      const larger = Buffer.allocUnsafeSlow(blob.bytes.length + 1_048_576);
      blob.bytes.copy(larger, 4096);
      return { ...blob, bytes: larger.subarray(4096, 4096 + blob.bytes.length) };
    };
    const cached = new MemoryCachedBlobStore(inner, 1000, clock);
    await cached.put('k', Buffer.alloc(100, 7), { contentType: 'x/y' });
    await cached.get('k');
    const kept = await cached.get('k');
    expect(kept?.bytes.buffer.byteLength).toBe(100);
    expect(kept?.bytes.every((byte) => byte === 7)).toBe(true);
  });

  it('keeps copies only of the keys it is told to', async () => {
    const { cached, reads } = counted(1000, (key) => key.startsWith('cache/'));
    for (const key of ['cache/a', 'files/b']) await cached.put(key, Buffer.from(key), { contentType: 'x/y' });
    for (let i = 0; i < 2; i++) {
      for (const key of ['cache/a', 'files/b']) expect((await cached.get(key))?.bytes.toString()).toBe(key);
    }
    expect(reads).toEqual(['cache/a', 'files/b', 'files/b']);
  });

  it('lets a kept copy expire with the stored blob', async () => {
    const { cached, reads, setNow } = counted(1000);
    await cached.put('k', Buffer.from('v'), { contentType: 'x/y', expiresAt: new Date(T0.getTime() + 1000) });
    expect(await cached.get('k')).not.toBeNull();
    expect(await cached.get('k')).not.toBeNull();
    setNow(new Date(T0.getTime() + 1000));
    expect(await cached.get('k')).toBeNull();
    expect(reads).toEqual(['k', 'k']);
  });
});

describe('S3 store', () => {
  const raw = () =>
    new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });

  it('keeps its objects under the prefix, with the expiry as object metadata', async () => {
    const store = new S3BlobStore(s3Config('prefixed/app/'), () => T0);
    const expiresAt = new Date(T0.getTime() + 5000);
    await store.put('files/p.png', Buffer.from('png'), { contentType: 'image/png', expiresAt });
    const client = raw();
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'prefixed/' }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual(['prefixed/app/files/p.png']);
    const object = await fetch(`${s3.endpoint}/${BUCKET}/prefixed/app/files/p.png`);
    expect(object.headers.get('x-amz-meta-expires-at')).toBe(expiresAt.toISOString());
    expect(await object.text()).toBe('png');
    client.destroy();
    await store.close();
  });

  it('sweeps only its own prefix and never deletes objects without its expiry metadata', async () => {
    const client = raw();
    await client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'mine/foreign',
        Body: 'someone else',
        ContentType: 'text/plain',
      }),
    );
    let now = T0;
    const mine = new S3BlobStore(s3Config('mine/'), () => now);
    const other = new S3BlobStore(s3Config('other/'), () => now);
    const expiresAt = new Date(T0.getTime() + 1000);
    await mine.put('old', Buffer.from('a'), { contentType: 'text/plain', expiresAt });
    await other.put('old', Buffer.from('b'), { contentType: 'text/plain', expiresAt });
    now = new Date(expiresAt.getTime() + 1);
    expect(await mine.sweepExpired()).toBe(1);
    const left = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    const keys = left.Contents?.map((object) => object.Key) ?? [];
    expect(keys).toContain('mine/foreign');
    expect(keys).toContain('other/old');
    expect(keys).not.toContain('mine/old');
    client.destroy();
    await mine.close();
    await other.close();
  });
});

describe('S3 store: a bucket that stalls', () => {
  const stalledConfig = (endpoint: string): S3BlobStoreConfig => ({
    ...s3Config('stalled/'),
    endpoint,
    timeoutMs: 300,
    maxAttempts: 2,
  });
  let silent: RawEndpoint;
  beforeAll(async () => {
    silent = await startRawEndpoint('stall');
  });
  afterAll(async () => {
    await silent.close();
  });

  it('fails each operation, after one retry, when the bucket reads requests and never answers', async () => {
    const store = new S3BlobStore(stalledConfig(silent.endpoint), () => T0);
    const operations: [string, () => Promise<unknown>][] = [
      ['put', () => store.put('files/a.png', Buffer.from('png'), { contentType: 'image/png' })],
      ['get', () => store.get('files/a.png')],
      ['delete', () => store.delete('files/a.png')],
    ];
    for (const [name, operation] of operations) {
      const before = silent.requests();
      await expect(operation(), name).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(silent.requests() - before, name).toBe(2);
    }
    await store.close();
  });

  it('fails a read whose body stops arriving', async () => {
    // The headers promise 100 bytes; 10 arrive, then nothing.
    const truncated = await startRawEndpoint({
      bytes: `HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 100\r\n\r\n${'x'.repeat(10)}`,
      hold: true,
    });
    const store = new S3BlobStore(stalledConfig(truncated.endpoint), () => T0);
    try {
      await expect(store.get('files/a.png')).rejects.toMatchObject({ name: 'TimeoutError' });
    } finally {
      await store.close();
      await truncated.close();
    }
  });

  it('retries on a fresh connection, so one stalled connection does not fail the operation', async () => {
    // The first connection is read and never answered; later ones go through to s3rver.
    const target = new URL(s3.endpoint);
    let connections = 0;
    const sockets = new Set<net.Socket>();
    const flaky = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      connections += 1;
      if (connections === 1) {
        socket.resume();
        return;
      }
      const upstream = net.connect(Number(target.port), target.hostname);
      upstream.on('error', () => socket.destroy());
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const store = new S3BlobStore(
      // The stalled attempt waits this out, so it cannot be HANG_MS; s3rver answers the retry in
      // far within it; a healthy run waits 15 s, not minutes.
      { ...stalledConfig(`http://127.0.0.1:${(flaky.address() as AddressInfo).port}`), timeoutMs: 15_000 },
      () => T0,
    );
    try {
      await store.put('files/retried.png', Buffer.from('png'), { contentType: 'image/png' });
      expect(connections).toBe(2);
      expect((await store.get('files/retried.png'))?.bytes.toString()).toBe('png');
    } finally {
      await store.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => flaky.close(resolve));
    }
  });
});
