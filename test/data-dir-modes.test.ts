import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirModesCheck } from '../src/cli/doctor/data-dir-modes.js';
import { DIALECTS, tempDir } from './helpers/databases.js';
import { startTestRuntime } from './helpers/runtime.js';

/*
 * Issue 32, item 4: the data directory and what the service writes there are owner-only, whatever
 * the umask of the process (this one's is the usual 022, under which they used to be 0755/0644).
 */
const modeOf = (file: string): string => `0${(fs.statSync(file).mode & 0o777).toString(8)}`;

const warningsOf = (logs: readonly string[]): Array<{ path: string; mode: string; msg: string }> =>
  logs
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.level === 40 && typeof entry.path === 'string');

describe.each(DIALECTS)('the data directory on %s', (dialect) => {
  it('creates the directory, the database files and blobs owner-only, and warns of nothing', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const test = await startTestRuntime(dialect, { env: { WEBCAP_DATA_DIR: dataDir } });
    try {
      await test.runtime.calls.blobs.put('cache/ab/cd/entry', Buffer.from('bytes'), {
        contentType: 'text/plain',
      });
      expect(modeOf(dataDir)).toBe('0700');
      for (const dir of ['blobs', 'blobs/cache', 'blobs/cache/ab', 'blobs/cache/ab/cd']) {
        expect({ dir, mode: modeOf(path.join(dataDir, dir)) }).toEqual({ dir, mode: '0700' });
      }
      expect(modeOf(path.join(dataDir, 'blobs/cache/ab/cd/entry'))).toBe('0600');
      if (dialect === 'sqlite') {
        for (const file of ['webcap.sqlite', 'webcap.sqlite-wal', 'webcap.sqlite-shm']) {
          expect({ file, mode: modeOf(path.join(dataDir, file)) }).toEqual({ file, mode: '0600' });
        }
      }
      expect(warningsOf(test.logs)).toEqual([]);
      expect(await dataDirModesCheck(test.config).run({} as never)).toMatchObject({ status: 'ok' });
    } finally {
      await test.close();
    }
  });

  it('warns once at start of an existing directory that others may read, and doctor says so', async () => {
    const dataDir = path.join(tempDir(), 'data');
    fs.mkdirSync(dataDir);
    fs.chmodSync(dataDir, 0o755);
    const blobsDir = path.join(dataDir, 'blobs');
    fs.mkdirSync(blobsDir);
    fs.chmodSync(blobsDir, 0o750);
    const test = await startTestRuntime(dialect, { env: { WEBCAP_DATA_DIR: dataDir } });
    try {
      expect(warningsOf(test.logs).map(({ path: file, mode }) => ({ path: file, mode }))).toEqual([
        { path: dataDir, mode: '0755' },
        { path: blobsDir, mode: '0750' },
      ]);
      expect(warningsOf(test.logs)[0]?.msg).toContain(`chmod 700 ${dataDir}`);
      const verdict = await dataDirModesCheck(test.config).run({} as never);
      expect(verdict).toEqual({
        name: 'data dir modes',
        status: 'warn',
        detail: `other users may read: ${dataDir} (0755), ${blobsDir} (0750)`,
        fix: `chmod 700 ${dataDir}; chmod 700 ${blobsDir}`,
      });
    } finally {
      await test.close();
    }
  });
});

describe('an existing SQLite file others may read', () => {
  it('is named in the warning, with its mode', async () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, 'webcap.sqlite');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o644);
    const test = await startTestRuntime('sqlite', { env: { WEBCAP_DATA_DIR: dataDir } });
    try {
      const warned = warningsOf(test.logs).map(({ path: at, mode }) => ({ path: at, mode }));
      expect(warned).toContainEqual({ path: file, mode: '0644' });
      expect(warningsOf(test.logs).find((entry) => entry.path === file)?.msg).toContain(`chmod 600 ${file}`);
    } finally {
      await test.close();
    }
  });
});
