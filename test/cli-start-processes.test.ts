import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.js';
import { closedPort } from './helpers/net-fixtures.js';
import { HANG_MS } from './helpers/waits.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RECORDER = path.join(ROOT, 'test/helpers/record-imports.mjs');

/** The packages that only the service, the worker and the admin commands need. */
const SERVICE_ONLY = [
  'puppeteer-core',
  '@aws-sdk/client-s3',
  'socks',
  'kysely',
  'pg',
  'better-sqlite3',
  'argon2',
  'bullmq',
  'ioredis',
  'fastify',
];

/** `webcap ARGS` (dist/) run to its end; resolves with its exit code and the packages it imported. */
function packagesImported(args: readonly string[], env: Record<string, string> = {}) {
  const file = path.join(tempDir(), 'imports.txt');
  return new Promise<{ code: number; stderr: string; packages: Set<string> }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', RECORDER, 'dist/cli/main.js', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', WEBCAP_TEST_IMPORTS: file, ...env },
        timeout: HANG_MS,
      },
      (error, _stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        const urls = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : [];
        const packages = new Set(
          urls.flatMap((url) => {
            const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
            return match?.[1] === undefined ? [] : [match[1]];
          }),
        );
        resolve({ code, stderr, packages });
      },
    );
  });
}

/*
 * The CLI's start: `webcap --help` and the API verbs, which are clients of a service, load none of
 * the service's browser driver, storage, database or queue packages (docs/cli.md, "Start-up").
 */
describe('webcap starts without the service stack', () => {
  it('--help and a verb load none of it; an admin command loads the database drivers it needs', async () => {
    const help = await packagesImported(['--help']);
    expect(help.code).toBe(0);
    expect(help.packages).toContain('commander');
    expect(SERVICE_ONLY.filter((name) => help.packages.has(name))).toEqual([]);

    const port = await closedPort();
    const capture = await packagesImported(
      ['capture', 'https://example.com/', '-o', path.join(tempDir(), 'x.png')],
      {
        WEBCAP_URL: `http://127.0.0.1:${port}`,
        WEBCAP_API_KEY: 'wc_test_unused',
      },
    );
    // 3: the service could not be reached; the verb ran through its whole request.
    expect(capture.code).toBe(3);
    expect(capture.packages).toContain('typebox');
    expect(SERVICE_ONLY.filter((name) => capture.packages.has(name))).toEqual([]);

    // The recorder sees what a command does load: the admin commands open the database.
    const admin = await packagesImported(['admin', 'accounts', 'list', '--json'], {
      WEBCAP_DATA_DIR: tempDir(),
    });
    expect(admin.stderr).toBe('');
    expect(admin.code).toBe(0);
    expect(['kysely', 'better-sqlite3'].filter((name) => admin.packages.has(name))).toEqual([
      'kysely',
      'better-sqlite3',
    ]);
  });
});
