import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onExit } from './exit-hooks.js';

/*
 * The cache-hit load: wrk (Debian's package), one thread, in its own process. A load generator
 * in Node (autocannon, before) spent more CPU per answer than the service on the cores the two
 * share, so the machine's limit it measured was its own: on 2026-11-29, quiet machine, the same
 * bare node:http floor answered 18,400 req/s to autocannon and 39,800 to wrk.
 */

const REPORT = fileURLToPath(new URL('./wrk-report.lua', import.meta.url));
const MARK = 'WRK_JSON ';

export interface LoadOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  /** How long to load, in seconds; fractions allowed (wrk is stopped by SIGINT, which it reports as a normal end). */
  readonly seconds: number;
}

export interface LoadResult {
  readonly requests: number;
  /** The time wrk measured over, in seconds. */
  readonly seconds: number;
  /** Answers that were neither 2xx nor 3xx. */
  readonly non2xx: number;
  /** Connect, read, write errors and timeouts. */
  readonly errors: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
}

interface Report {
  readonly requests: number;
  readonly durationUs: number;
  readonly connect: number;
  readonly read: number;
  readonly write: number;
  readonly status: number;
  readonly timeout: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

/** Runs wrk against `url` for `seconds`; rejects when wrk is missing or reports nothing. */
export function loadWithWrk(options: LoadOptions): Promise<LoadResult> {
  const args = ['-t1', `-c${options.connections}`, '-d1h', '-s', REPORT];
  for (const [name, value] of Object.entries(options.headers)) args.push('-H', `${name}: ${value}`);
  args.push(options.url);
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const forget = onExit(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGINT'), options.seconds * 1000);
  return new Promise((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      forget();
      reject(
        error.code === 'ENOENT'
          ? new Error('cache hits need wrk: apt-get install wrk (scripts/install-system-deps.sh installs it)')
          : error,
      );
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      forget();
      const line = output.split('\n').find((entry) => entry.startsWith(MARK));
      if (line === undefined) {
        reject(new Error(`wrk exited with ${code} without a report:\n${output}`));
        return;
      }
      const report = JSON.parse(line.slice(MARK.length)) as Report;
      resolve({
        requests: report.requests,
        seconds: report.durationUs / 1e6,
        non2xx: report.status,
        errors: report.connect + report.read + report.write + report.timeout,
        latencyP50Ms: report.p50Us / 1000,
        latencyP99Ms: report.p99Us / 1000,
      });
    });
  });
}
