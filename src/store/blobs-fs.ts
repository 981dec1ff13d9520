import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../clock.js';
import { type BlobStore, checkBlob, type PutBlobOptions, type StoredBlob } from './blobs.js';
import { makePrivateDir, writePrivateFile } from './private-files.js';

/*
 * One file per blob: a JSON header line, then the bytes. A single file lets one rename publish
 * bytes and metadata together; a sidecar file would leave a moment where the two disagree.
 */
interface Header {
  readonly contentType: string;
  readonly expiresAt: string | null;
  readonly metadata: Readonly<Record<string, string>>;
}

// Keys never start with a dot (blobs.ts), so temp files cannot collide with a blob.
const TEMP_PREFIX = '.tmp-';
// A temp file this old belongs to a write that died (crash, full disk); a sweep removes it.
const STALE_TEMP_MS = 3_600_000;
// More than any header: a content type of 255 characters, 2 KB of metadata, JSON escapes.
const HEADER_READ_BYTES = 16_384;

/** Blobs as files under a local directory; writes are atomic (temp file + rename in the same directory). */
export class FsBlobStore implements BlobStore {
  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
  ) {}

  async put(key: string, bytes: Uint8Array, options: PutBlobOptions): Promise<void> {
    checkBlob(key, options);
    const file = this.fileOf(key);
    await makePrivateDir(path.dirname(file));
    const header: Header = {
      contentType: options.contentType,
      expiresAt: options.expiresAt?.toISOString() ?? null,
      metadata: options.metadata ?? {},
    };
    const temp = path.join(path.dirname(file), `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
    try {
      // No fsync: a blob lost to a power cut is a cache miss or a link that 404s, not lost data.
      await writePrivateFile(temp, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), bytes]));
      await fs.rename(temp, file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<StoredBlob | null> {
    checkBlob(key);
    let data: Buffer;
    try {
      data = await fs.readFile(this.fileOf(key));
    } catch (error) {
      if (isAbsent(error)) return null;
      throw error;
    }
    const newline = data.indexOf(0x0a);
    const header = parseHeader(data.subarray(0, newline < 0 ? 0 : newline), key);
    const expiresAt = header.expiresAt === null ? null : new Date(header.expiresAt);
    if (expiresAt !== null && expiresAt.getTime() <= this.clock().getTime()) return null;
    return {
      bytes: data.subarray(newline + 1),
      contentType: header.contentType,
      expiresAt,
      metadata: header.metadata,
    };
  }

  async delete(key: string): Promise<void> {
    checkBlob(key);
    try {
      await fs.unlink(this.fileOf(key));
    } catch (error) {
      if (!isAbsent(error)) throw error;
    }
  }

  async sweepExpired(): Promise<number> {
    const now = this.clock().getTime();
    let deleted = 0;
    for await (const file of walk(this.dir)) {
      if (path.basename(file).startsWith(TEMP_PREFIX)) {
        const stat = await fs.stat(file).catch(() => null);
        if (stat !== null && now - stat.mtimeMs > STALE_TEMP_MS) await fs.rm(file, { force: true });
        continue;
      }
      const expiresAt = await readExpiry(file);
      // A put may replace the file between this read and the unlink; the fresh blob is then lost,
      // which costs a cache miss at worst (hosted file ids are never reused).
      if (expiresAt !== null && expiresAt <= now) {
        await fs.rm(file, { force: true });
        deleted += 1;
      }
    }
    return deleted;
  }

  async close(): Promise<void> {
    // Nothing is held open between calls.
  }

  private fileOf(key: string): string {
    // checkBlob has ruled out empty, '.' and '..' segments: the path stays under dir.
    return path.join(this.dir, ...key.split('/'));
  }
}

function isAbsent(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  // ENOTDIR / EISDIR: a key whose path crosses, or names, another key's directory is absent too.
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

function parseHeader(line: Buffer, key: string): Header {
  try {
    const header = JSON.parse(line.toString('utf8')) as Partial<Header>;
    if (
      typeof header.contentType === 'string' &&
      (header.expiresAt === null || typeof header.expiresAt === 'string') &&
      typeof header.metadata === 'object' &&
      header.metadata !== null
    ) {
      return { contentType: header.contentType, expiresAt: header.expiresAt, metadata: header.metadata };
    }
  } catch {
    // Reported below with the key.
  }
  throw new Error(`blob ${key} has no valid header`);
}

/** Expiry in epoch ms from the header, reading only the file's first bytes; null for none or no valid header. */
async function readExpiry(file: string): Promise<number | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if (isAbsent(error)) return null;
    throw error;
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEADER_READ_BYTES), 0, HEADER_READ_BYTES, 0);
    const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
    if (newline < 0) return null;
    const header = parseHeader(buffer.subarray(0, newline), file);
    return header.expiresAt === null ? null : new Date(header.expiresAt).getTime();
  } catch {
    // Not one of ours (or torn by hand): leave it alone.
    return null;
  } finally {
    await handle.close();
  }
}

async function* walk(dir: string): AsyncGenerator<string> {
  let entries: Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isAbsent(error)) return;
    throw error;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}
