import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseConfig } from '../../src/config.js';
import { type DialectName, databaseEnv, freshDatabase, tempDir } from './databases.js';
import { HANG_MS } from './waits.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The build, not the sources through tsx: a process starts in a fraction of the time and CPU
// (the processes project's global setup, built-dist.ts, builds it when a source is newer).
const CLI = [path.join(ROOT, 'dist/cli/main.js')];

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `webcap ARGS` (dist/) as a separate process with only the given environment added, and
 * `input` written to its standard input when given.
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string>,
  input?: string,
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...CLI, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: HANG_MS },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Runs `webcap ARGS --json` and parses what it prints; fails loudly when it does not exit 0. */
export async function cliJson<T = Record<string, unknown>>(
  args: readonly string[],
  env: Record<string, string>,
) {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`webcap ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout so far. */
  output(): string;
  /** Everything the process wrote to stderr so far. */
  errors(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `webcap serve` on a free port and resolves once it listens. */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...CLI, 'serve'], {
    cwd: ROOT,
    // The browser is left cold unless a test asks for it: these servers mostly test other things.
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', BROWSER_PREWARM: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  // 'close', not 'exit': the pipes may still hold the last log lines when the process exits.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // A server that starts after the deadline would outlive the test run.
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${stdout}${stderr}`));
    }, HANG_MS);
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stdout}${stderr}`)));
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(stdout);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          child,
          output: () => stdout,
          errors: () => stderr,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
  });
}

export interface WorkerProcess {
  /** Where its /healthz, /readyz and /metrics answer. */
  readonly url: string;
  readonly child: ChildProcess;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `webcap worker` (health and metrics on a free port) and resolves once it consumes the queue. */
export function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...CLI, 'worker'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      WORKER_PORT: '0',
      BROWSER_PREWARM: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not start: ${output}`));
    }, HANG_MS);
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${output}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /worker running .* on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          child,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
  });
}

/**
 * A fresh database and data directory, and the environment of processes that share them: the
 * admin API on `adminToken`, every loopback target allowed (these tests probe billing and jobs,
 * not the guard), no bootstrap quota, a cold browser, warnings only; `extra` last.
 */
export function processSetup(
  dialect: DialectName,
  adminToken: string,
  extra: Record<string, string> = {},
): { database: DatabaseConfig; env: Record<string, string> } {
  const dataDir = tempDir();
  const database = freshDatabase(dialect, dataDir);
  const env = {
    ...databaseEnv(database, dataDir),
    WEBCAP_ADMIN_TOKEN: adminToken,
    WEBCAP_ALLOW_PRIVATE: '127.0.0.1/32',
    WEBCAP_BOOTSTRAP_QUOTA: '0',
    BROWSER_PREWARM: 'false',
    LOG_LEVEL: 'warn',
    ...extra,
  };
  return { database, env };
}

/** Creates an account named after its slug (with `args`, such as --monthly-quota) and a key on it, by the CLI; returns the key. */
export async function cliAccountKey(
  env: Record<string, string>,
  slug: string,
  args: readonly string[] = [],
): Promise<string> {
  await cliJson(['admin', 'accounts', 'create', '--name', slug, '--slug', slug, ...args], env);
  return (await cliJson<{ key: string }>(['admin', 'keys', 'create', '--account', slug], env)).key;
}
