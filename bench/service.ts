import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { processTree } from '../src/browser/process-tree.js';
import { signedQueryString } from '../src/requests/signed-link.js';
import { VIEWPORT } from './baselines.js';
import { processCpuMs } from './cpu-time.js';
import { onExit } from './exit-hooks.js';

/** The API key the benchmark bootstraps; never a real one. */
const BENCH_KEY = 'bench-key-0123456789abcdef';

/** The admin API's token, through which the bench makes a key that signs links; never a real one. */
const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/** How long the bench's signed links last: longer than any run. */
const SIGNED_LINK_SECONDS = 86_400;

/** This checkout, whose build (dist/) the service runs unless told another's. */
const CHECKOUT = fileURLToPath(new URL('..', import.meta.url));

export interface ServiceOptions {
  /** BROWSER_CONCURRENCY; null keeps the service's default. */
  readonly browserConcurrency: number | null;
  /** Connections of the benchmark's HTTP client: the client concurrency. */
  readonly clients: number;
  /** WEBCAP_ALLOW_PRIVATE: the fixture hosts and port. */
  readonly allowPrivate: string;
  readonly dataDir: string;
  /** The service's output (its JSON log at LOG_LEVEL, info as in production) is appended here. */
  readonly logFile: string;
  /** CHROMIUM_PATH, when the operator set one. */
  readonly chromiumPath: string | undefined;
  /** More of the service's environment (the soak's METRICS_TOKEN and SOAK_SERVICE_ENV), set last. */
  readonly env?: Readonly<Record<string, string>>;
  /** The checkout whose build runs (`--against`'s worktree); this one by default. */
  readonly root?: string;
  /** More Node flags for the service (the soak's --inspect), after BENCH_SERVICE_NODE_ARGS's. */
  readonly nodeArgs?: readonly string[];
}

/** The real service in a child process, listening on 127.0.0.1 at a free port. */
export interface Service {
  readonly baseUrl: string;
  readonly key: string;
  /** The capture URL of `target` as the benchmark asks for it (png, 1280×1024). */
  capturePath(target: string, extra?: Record<string, string>): string;
  /** GET /v1/capture; resolves with the image bytes, throws on any status but 200. */
  shoot(target: string): Promise<Buffer>;
  /**
   * `path` (a GET of an endpoint that takes signed links) as a signed link of a key of the
   * bench's account, made on the first call through the admin API (docs/signed-links.md).
   */
  signedLink(path: string): Promise<string>;
  /** GET `path` with the bench's key; resolves with the status and body. */
  get(path: string): Promise<{ status: number; body: Buffer }>;
  /** The service's browser, once it has launched. */
  browserPid(): Promise<number | null>;
  /** CPU time of the service's own process (every thread, not its browser), in ms. */
  cpuMs(): number;
  /** Time the service's main thread has spent runnable but waiting for a CPU (Linux schedstat), in ms. */
  runQueueWaitMs(): number;
  /** Resident memory of the service's own process (not its browser), in bytes. */
  rssBytes(): number;
  /** Resident memory of the service's extractor processes (its node children), summed, in bytes. */
  extractorRssBytes(): Promise<number>;
  close(): Promise<void>;
}

/** VmRSS of one process, in bytes. */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

/** Resolves with the address the service prints once it listens; the rest of its output goes to `log`. */
function listeningAddress(child: ChildProcess, log: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (child.stdout === null) throw new Error('the service has no stdout');
    const lines = createInterface({ input: child.stdout });
    let address: string | null = null;
    let open = true;
    child.once('exit', () => {
      open = false;
    });
    lines.on('line', (line) => {
      if (open) writeSync(log, `${line}\n`);
      const match = /^webcap: listening on (\S+)/.exec(line);
      if (address === null && match?.[1] !== undefined) {
        address = match[1];
        resolve(address);
      }
    });
    child.once('exit', (code) => reject(new Error(`the service exited with ${code} before listening`)));
  });
}

/**
 * Starts `webcap serve` from the checkout's dist/ with the bench's settings and waits until it
 * listens. The service gets SIGTERM if the bench exits without closing it.
 */
export async function startService(options: ServiceOptions): Promise<Service> {
  // The built CLI: the service runs as `webcap serve` does in production, compiled, in its own process.
  const cli = path.join(options.root ?? CHECKOUT, 'dist/cli/main.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run bench does)`);
  const log = openSync(options.logFile, 'a');
  // BENCH_SERVICE_NODE_ARGS: Node flags for a look inside the service while the bench drives it (--cpu-prof).
  const nodeArgs = [
    ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
    ...(options.nodeArgs ?? []),
  ];
  const child = spawn(process.execPath, [...nodeArgs, cli, 'serve'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: '127.0.0.1',
      PORT: '0',
      WEBCAP_DATA_DIR: options.dataDir,
      WEBCAP_ALLOW_PRIVATE: options.allowPrivate,
      MAX_QUEUE_DEPTH: '64',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      WEBCAP_BOOTSTRAP_KEY: BENCH_KEY,
      WEBCAP_BOOTSTRAP_QUOTA: '100000000',
      WEBCAP_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      ...(options.browserConcurrency === null
        ? {}
        : { BROWSER_CONCURRENCY: String(options.browserConcurrency) }),
      ...(options.chromiumPath === undefined ? {} : { CHROMIUM_PATH: options.chromiumPath }),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', log],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const forget = onExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  let baseUrl: string;
  try {
    baseUrl = await listeningAddress(child, log);
  } catch (error) {
    forget();
    closeSync(log);
    throw error;
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error('the service started without a pid');
  const http = new Pool(baseUrl, { connections: options.clients + 1, pipelining: 1 });
  const capturePath = (target: string, extra: Record<string, string> = {}) => {
    const query = new URLSearchParams({
      url: target,
      format: 'png',
      viewport_width: String(VIEWPORT.width),
      viewport_height: String(VIEWPORT.height),
      ...extra,
    });
    return `/v1/capture?${query}`;
  };
  let signingKey: Promise<{ id: string; signing_secret: string }> | null = null;
  const makeSigningKey = async () => {
    const response = await http.request({
      method: 'POST',
      path: '/admin/v1/keys',
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'default', alias: 'bench-signed-links' }),
    });
    const text = await response.body.text();
    if (response.statusCode !== 201)
      throw new Error(`making a signing key answered ${response.statusCode}: ${text}`);
    return JSON.parse(text) as { id: string; signing_secret: string };
  };
  return {
    baseUrl,
    key: BENCH_KEY,
    capturePath,
    async signedLink(path) {
      signingKey ??= makeSigningKey();
      const { id, signing_secret: signingSecret } = await signingKey;
      const url = new URL(path, baseUrl);
      const query = signedQueryString(Object.fromEntries(url.searchParams), {
        keyId: id,
        expires: Math.floor(Date.now() / 1000) + SIGNED_LINK_SECONDS,
        signingSecret,
      });
      return `${url.pathname}?${query}`;
    },
    async shoot(target) {
      const response = await http.request({
        method: 'GET',
        path: capturePath(target),
        headers: { 'x-api-key': BENCH_KEY },
      });
      const body = Buffer.from(await response.body.arrayBuffer());
      if (response.statusCode !== 200) {
        throw new Error(
          `capture of ${target} answered ${response.statusCode}: ${body.toString().slice(0, 300)}`,
        );
      }
      return body;
    },
    async get(path) {
      const response = await http.request({ method: 'GET', path, headers: { 'x-api-key': BENCH_KEY } });
      return { status: response.statusCode, body: Buffer.from(await response.body.arrayBuffer()) };
    },
    async browserPid() {
      // The browser is the service's child that runs the Chromium executable.
      for (const member of await processTree(pid)) {
        try {
          const parent = readFileSync(`/proc/${member}/stat`, 'utf8').split(') ')[1]?.split(' ')[1];
          if (Number(parent) === pid && /chrom/.test(readlinkSync(`/proc/${member}/exe`))) return member;
        } catch {
          // Exited meanwhile.
        }
      }
      return null;
    },
    cpuMs: () => processCpuMs(pid),
    runQueueWaitMs: () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1_000_000,
    rssBytes: () => rssOf(pid),
    async extractorRssBytes() {
      let total = 0;
      for (const member of await processTree(pid)) {
        try {
          const parent = readFileSync(`/proc/${member}/stat`, 'utf8').split(') ')[1]?.split(' ')[1];
          if (Number(parent) === pid && /node/.test(readlinkSync(`/proc/${member}/exe`)))
            total += rssOf(member);
        } catch {
          // Exited meanwhile (an extractor replaced).
        }
      }
      return total;
    },
    async close() {
      await http.close();
      child.kill('SIGTERM');
      const deadline = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      forget();
      clearTimeout(deadline);
      closeSync(log);
    },
  };
}
