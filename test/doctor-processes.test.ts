import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type ServerProcess, startServer } from './helpers/cli.js';
import { databaseEnv, freshDatabase, tempDir } from './helpers/databases.js';
import { S3RVER_CREDENTIALS, startS3rver } from './helpers/s3rver.js';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/*
 * `webcap doctor` as a process (dist/): it ends on its own whatever it found (nothing it opened
 * keeps it alive, even what stalled), with fontconfig's own view of the machine's fonts; and a
 * second `webcap serve` on the port a running one holds is one line on stderr.
 */

/** A TCP server that accepts connections and never sends a byte. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let silent: Awaited<ReturnType<typeof silentServer>>;
beforeAll(async () => {
  silent = await silentServer();
});
afterAll(() => silent.close());

/** The status and name of each line of a human report, in order. */
function verdicts(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((line) => /^(ok|warn|fail) /.test(line))
    .map((line) => line.split(/ {2,}/).slice(0, 2));
}

describe('webcap doctor as a process', () => {
  it('ends by itself with 0 when nothing failed, its PostgreSQL, Redis and S3 connections closed', async () => {
    const dataDir = tempDir();
    const s3 = await startS3rver(['doctor-bucket']);
    try {
      const result = await runCli(['doctor'], {
        ...databaseEnv(freshDatabase('postgres', dataDir), dataDir),
        PORT: '0',
        REDIS_URL: TEST_REDIS_URL,
        BLOB_S3_BUCKET: 'doctor-bucket',
        BLOB_S3_ENDPOINT: s3.endpoint,
        BLOB_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        BLOB_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
        WEBCAP_SIGNING_SECRET: 'a-signing-secret-of-at-least-32-characters',
      });
      // Only the exit 0 path depends on everything being closed: main.ts ends the others itself.
      expect(result.code).toBe(0);
      expect(verdicts(result.stdout)).toEqual(verdicts(result.stdout).map(([, name]) => ['ok', name]));
      expect(result.stdout).toMatch(/^ok {4}redis {11}redis:\/\/127\.0\.0\.1:6379: Redis \d/m);
      expect(result.stdout).toContain('write, read and delete work');
    } finally {
      await s3.close();
    }
  });

  it('ends by itself with 1 when PostgreSQL, Redis and S3 never answer', async () => {
    const stalled = `127.0.0.1:${silent.port}`;
    const result = await runCli(['doctor', '--timeout-ms', '1000'], {
      WEBCAP_DATA_DIR: tempDir(),
      PORT: '0',
      DATABASE_URL: `postgres://postgres@${stalled}/webcap`,
      REDIS_URL: `redis://${stalled}`,
      BLOB_S3_BUCKET: 'bucket',
      BLOB_S3_ENDPOINT: `http://${stalled}`,
      BLOB_S3_ACCESS_KEY_ID: 'doctor',
      BLOB_S3_SECRET_ACCESS_KEY: 'doctor',
      WEBCAP_SIGNING_SECRET: 'a-signing-secret-of-at-least-32-characters',
    });
    // runCli kills a process still running after 60 s, which then exits 1 with no report.
    expect(result.code).toBe(1);
    const failed = verdicts(result.stdout).filter(([status]) => status === 'fail');
    expect(result.stderr).toContain(`webcap: doctor: ${failed.length} checks failed\n`);
    expect(failed).toEqual(
      expect.arrayContaining([
        ['fail', 'database'],
        ['fail', 'redis'],
        ['fail', 'blobs'],
      ]),
    );
    // The 1000 ms deadline bounds every check, so on a loaded machine a program the doctor runs
    // (chromium, ffmpeg, fontconfig) may miss it too; nothing may fail for another reason.
    const failedLines = result.stdout.split('\n').filter((line) => line.startsWith('fail '));
    // The check's own words, or the runner's when the check itself overran.
    const missed = /no (answer|verdict) within 1000 ms/;
    expect(failedLines.filter((line) => !missed.test(line))).toEqual([]);
  });

  it('fonts fontconfig does not know: failed for Latin, warned for CJK and emoji, each with its package', async () => {
    const dir = tempDir();
    const conf = path.join(dir, 'fonts.conf');
    // A configuration with no font directory: fontconfig finds no font at all.
    fs.writeFileSync(conf, `<?xml version="1.0"?>\n<fontconfig><cachedir>${dir}</cachedir></fontconfig>\n`);
    const result = await runCli(['doctor'], { WEBCAP_DATA_DIR: dir, PORT: '0', FONTCONFIG_FILE: conf });
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    const block = (name: string) => {
      const at = lines.findIndex((line) => line.split(/ {2,}/)[1] === name);
      return lines.slice(at, at + 2);
    };
    const install = 'or scripts/install-system-deps.sh for everything webcap needs';
    expect(block('fonts latin')).toEqual([
      'fail  fonts latin     no font for Latin: such text renders as empty boxes',
      `  fix: apt-get install fonts-liberation, ${install}`,
    ]);
    expect(block('fonts cjk')).toEqual([
      'warn  fonts cjk       no font for Japanese, Chinese, Korean: such text renders as empty boxes',
      `  fix: apt-get install fonts-noto-cjk, ${install}`,
    ]);
    expect(block('fonts emoji')).toEqual([
      'warn  fonts emoji     no font for colour emoji: such text renders as empty boxes',
      `  fix: apt-get install fonts-noto-color-emoji, ${install}`,
    ]);
  });

  it('without fontconfig: how to install it', async () => {
    const result = await runCli(['doctor', '--json'], {
      WEBCAP_DATA_DIR: tempDir(),
      PORT: '0',
      // No fc-list on the way; the doctor's other programs are named by their full path.
      PATH: tempDir(),
    });
    expect(result.code).toBe(1);
    const { checks } = JSON.parse(result.stdout) as {
      checks: { name: string; detail: string; fix: string }[];
    };
    expect(checks.find((check) => check.name === 'fonts latin')).toEqual({
      name: 'fonts latin',
      status: 'fail',
      detail: 'fc-list not found: fontconfig is not installed',
      fix: 'apt-get install fontconfig',
    });
  });
});

describe('a port already taken at `webcap serve`', () => {
  let server: ServerProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { WEBCAP_DATA_DIR: tempDir(), LOG_LEVEL: 'warn' };
    server = await startServer(env);
  });
  afterAll(() => server.stop());

  it('the doctor says a webcap holds it; a second serve says so in one line and exits 2', async () => {
    const port = new URL(server.url).port;
    const doctor = await runCli(['doctor', '--json'], { ...env, PORT: port });
    const { checks } = JSON.parse(doctor.stdout) as {
      checks: { name: string; status: string; detail: string }[];
    };
    expect(checks.find((check) => check.name === 'port')).toMatchObject({
      status: 'ok',
      detail: `127.0.0.1:${port} is taken by a running webcap (GET /healthz answers)`,
    });

    const second = await runCli(['serve'], { ...env, PORT: port, BROWSER_PREWARM: 'false' });
    expect(second.code).toBe(2);
    expect(second.stderr).toBe(
      `webcap: configuration error: PORT must be a free port on 127.0.0.1 (EADDRINUSE) (got "${port}")\n`,
    );
  });
});
