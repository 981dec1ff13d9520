import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';

/*
 * Everything the service writes under its data directory is its owner's alone: the SQLite file
 * holds the signing secret, key hashes, sessions and sealed job parameters, and blobs are callers'
 * captures. Modes are given on every create rather than left to the process's umask, which the
 * service does not choose (a shell's 022 made them 0755 and 0644).
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` and any missing parent owner-only (0700); an existing directory keeps its mode. */
export async function makePrivateDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Writes a new file owner-only (0600); the mode applies when the write creates the file. */
export async function writePrivateFile(file: string, bytes: Uint8Array): Promise<void> {
  await fsp.writeFile(file, bytes, { mode: PRIVATE_FILE_MODE });
}

/**
 * Creates the SQLite file owner-only before SQLite opens it: SQLite makes a new database 0644 and
 * gives its `-wal` and `-shm` files the database file's mode, so all three are then 0600.
 */
export function makePrivateSqliteFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    // 'wx': only a missing file is created; an existing one is SQLite's to open as it is.
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** A path under the data directory whose mode lets users other than its owner in. */
export interface OpenPath {
  readonly path: string;
  /** Permission bits, e.g. 0o755. */
  readonly mode: number;
  readonly directory: boolean;
}

/** `0755` for 0o755. */
export function octalMode(mode: number): string {
  return `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;
}

/** What to run to make an open path owner-only. */
export function modeFix(open: OpenPath): string {
  return `chmod ${open.directory ? '700' : '600'} ${open.path}`;
}

/**
 * The data directory and what the service keeps secrets in below it (the SQLite files, the blob
 * directory, `webcap mcp`'s captures), where they exist and their modes give group or others any
 * access. The data directory itself counts only when it holds one of those: with PostgreSQL and a
 * bucket it holds the ad blocker's parsed public filter lists alone.
 */
export async function openDataPaths(config: Config): Promise<OpenPath[]> {
  const secrets: string[] = [path.join(config.dataDir, 'captures')];
  if (config.database.kind === 'sqlite') {
    const file = config.database.file;
    secrets.push(file, `${file}-wal`, `${file}-shm`);
  }
  if (config.blobs.kind === 'fs') secrets.push(config.blobs.dir);
  const stats = await Promise.all(secrets.map(statOf));
  const held =
    config.database.kind === 'sqlite' || config.blobs.kind === 'fs' || stats.some((s) => s !== null);
  const candidates = [
    ...(held ? [{ path: config.dataDir, stats: await statOf(config.dataDir) }] : []),
    ...secrets.map((file, index) => ({ path: file, stats: stats[index] ?? null })),
  ];
  return candidates.flatMap(({ path: file, stats: found }) =>
    found !== null && (found.mode & 0o077) !== 0
      ? [{ path: file, mode: found.mode & 0o7777, directory: found.isDirectory() }]
      : [],
  );
}

/** Logs one warning per open path, naming it, its mode and the fix. */
export async function warnOpenDataPaths(config: Config, logger: Pick<Logger, 'warn'>): Promise<void> {
  for (const open of await openDataPaths(config)) {
    logger.warn(
      { path: open.path, mode: octalMode(open.mode) },
      `${open.path} is mode ${octalMode(open.mode)}: users other than its owner may read what the service keeps there; ${modeFix(open)}`,
    );
  }
}

async function statOf(file: string): Promise<fs.Stats | null> {
  try {
    return await fsp.stat(file);
  } catch {
    return null;
  }
}
