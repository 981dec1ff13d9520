import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSize } from '../helpers/chromium.js';
import { HANG_MS } from '../helpers/waits.js';
import { type CommandResult, expectRunning, freeLowPort, podman, ROOT, run, waitFor } from './podman.js';

/**
 * compose.yaml as users run it (docs/deploy.md, "Compose"): two `webcap serve` behind nginx, two
 * `webcap worker`, PostgreSQL, Redis and an S3 store, with deploy/compose/ci.override.yaml
 * swapping in the locally built stand-ins of the four images our machines cannot pull. The files
 * are copied to a directory of the test's own, so that a `.env` in the checkout (podman-compose
 * 1.0.3 reads it over the environment) cannot change the settings. podman-compose 1.0.3 ignores
 * depends_on's conditions: the test starts the services in the order they state, waiting for
 * each to be healthy. The page captured is served by the test on the host's address on the
 * project's network, which the containers reach as host.containers.internal.
 */
const IMAGE = process.env.WEBCAP_TEST_IMAGE ?? 'webcap:dev';
const PROJECT = `webcap-test-${randomBytes(4).toString('hex')}`;
const NETWORK = `${PROJECT}_default`;
const METRICS_TOKEN = randomBytes(16).toString('hex');
/** s3rver knows this credential pair only; MinIO's are whatever .env says. */
const S3_CREDENTIALS = { S3_ACCESS_KEY: 'S3RVER', S3_SECRET_KEY: 'S3RVER' };

const container = (service: string) => `${PROJECT}_${service}_1`;
const SERVE = ['serve-1', 'serve-2'];
const WORKERS = ['worker-1', 'worker-2'];

let workDir: string;
let env: NodeJS.ProcessEnv;
let site: Server;
let siteUrl: string;
let base: string;
let key: string;

/** A command in the directory of the copied files, with the settings a .env would hold. */
function inWorkDir(command: string, args: readonly string[]): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: workDir, env, timeout: HANG_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const WITH_STAND_INS = ['-f', 'compose.yaml', '-f', 'deploy/compose/ci.override.yaml'];

/** podman-compose on the copied files and the CI override, under this test's project name. */
function compose(args: readonly string[]): Promise<CommandResult> {
  return inWorkDir('podman-compose', ['-p', PROJECT, ...WITH_STAND_INS, ...args]);
}

/** `podman-compose up -d` of these services (and what they depend on, already running). */
async function up(services: readonly string[]): Promise<void> {
  const result = await compose(['up', '-d', '--no-build', ...services]);
  if (result.code !== 0)
    throw new Error(`podman-compose up ${services.join(' ')}: ${result.stdout.slice(-3000)}`);
}

/** Waits until each service's healthcheck passes (run here: no systemd timer runs them). */
async function healthy(services: readonly string[]): Promise<void> {
  await Promise.all(
    services.map((service) =>
      waitFor(`${service} to be healthy`, async () => {
        if ((await run('podman', ['healthcheck', 'run', container(service)])).code === 0) return true;
        await expectRunning(container(service));
        return undefined;
      }),
    ),
  );
}

/** `webcap ARGS` in a serve container, as an operator runs the CLI there. */
async function webcapIn(service: string, args: readonly string[]): Promise<string> {
  return podman(['exec', container(service), 'node', 'dist/cli/main.js', ...args]);
}

/** The `request completed` lines a container logged for paths starting with prefix. */
async function requestsLogged(
  service: string,
  prefix: string,
): Promise<{ url: string; statusCode: number }[]> {
  const { stdout } = await run('podman', ['logs', container(service)]);
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; url?: string; statusCode?: number })
    .filter((line) => line.msg === 'request completed' && line.url?.startsWith(prefix) === true)
    .map((line) => ({ url: line.url ?? '', statusCode: line.statusCode ?? 0 }));
}

/** A node's webcap_jobs_total{outcome="completed"}, summed over engines, read inside its container. */
async function jobsCompleted(service: string, port: number): Promise<number> {
  const text = await podman([
    'exec',
    container(service),
    'node',
    '-e',
    `fetch('http://127.0.0.1:${port}/metrics', { headers: { authorization: 'Bearer ' + process.env.METRICS_TOKEN } })` +
      '.then((r) => r.text()).then((t) => process.stdout.write(t))',
  ]);
  return text
    .split('\n')
    .filter((line) => line.startsWith('webcap_jobs_total{') && line.includes('outcome="completed"'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** Every container, volume and network podman holds for this project. */
async function leftovers(): Promise<string[]> {
  const containers = await podman([
    'ps',
    '-a',
    '--format',
    '{{.Names}}',
    '--filter',
    `label=io.podman.compose.project=${PROJECT}`,
  ]);
  const volumes = await podman([
    'volume',
    'ls',
    '--format',
    '{{.Name}}',
    '--filter',
    `label=io.podman.compose.project=${PROJECT}`,
  ]);
  const networks = await podman(['network', 'ls', '--format', '{{.Name}}']);
  return [
    ...containers.split('\n'),
    ...volumes.split('\n'),
    ...networks.split('\n').filter((n) => n === NETWORK),
  ].filter((name) => name !== '');
}

/**
 * down -v removes the project's containers and named volumes; the anonymous volumes of images that
 * declare one (the S3 stand-in, in the bucket-making container) and the network stay: removed here.
 */
async function tearDown(): Promise<void> {
  const ids = (
    await run('podman', ['ps', '-aq', '--filter', `label=io.podman.compose.project=${PROJECT}`])
  ).stdout
    .split('\n')
    .filter((id) => id !== '');
  const anonymous = new Set<string>();
  for (const id of ids) {
    const mounts = await run('podman', [
      'inspect',
      '--format',
      '{{range .Mounts}}{{.Type}}={{.Name}} {{end}}',
      id,
    ]);
    for (const mount of mounts.stdout.trim().split(' ')) {
      const [type, name] = mount.split('=');
      if (type === 'volume' && name !== undefined && !name.startsWith(`${PROJECT}_`)) anonymous.add(name);
    }
  }
  await compose(['down', '-v', '-t', '10']);
  for (const volume of anonymous) await run('podman', ['volume', 'rm', '--force', volume]);
  await run('podman', ['network', 'rm', '--force', NETWORK]);
}

beforeAll(async () => {
  const builds = [
    ...(process.env.WEBCAP_TEST_IMAGE === undefined ? ['scripts/container-image.sh'] : []),
    'scripts/container-deps.sh',
  ];
  for (const script of builds) {
    const built = await run('bash', [script], 25 * 60_000);
    if (built.code !== 0) throw new Error(`${script} failed: ${built.stdout.slice(-4000)}${built.stderr}`);
  }
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'webcap-compose-'));
  for (const file of ['compose.yaml', 'deploy/compose/ci.override.yaml', 'deploy/compose/nginx.conf']) {
    fs.mkdirSync(path.dirname(path.join(workDir, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(workDir, file));
  }
  const port = await freeLowPort();
  base = `http://127.0.0.1:${port}`;
  // What a user's .env holds (.env.example).
  env = {
    ...process.env,
    CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? path.join(ROOT, 'scripts/container-podman.conf'),
    WEBCAP_IMAGE: IMAGE,
    WEBCAP_SIGNING_SECRET: randomBytes(32).toString('hex'),
    WEBCAP_ADMIN_TOKEN: randomBytes(16).toString('hex'),
    METRICS_TOKEN,
    POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
    REDIS_PASSWORD: randomBytes(16).toString('hex'),
    ...S3_CREDENTIALS,
    PUBLIC_BASE_URL: base,
    WEBCAP_HTTP_PORT: String(port),
    WEBCAP_ALLOW_PRIVATE: '',
  };

  // In the order compose.yaml's conditions state, which podman-compose 1.0.3 does not wait for:
  // the bucket is made once the store is healthy (at once, on a loaded machine, its client found
  // the store not yet listening and exited 1).
  await up(['postgres', 'redis', 's3']);
  await healthy(['postgres', 'redis', 's3']);
  await up(['s3-bucket']);
  await waitFor('the bucket to be made', async () => {
    const state = await podman([
      'inspect',
      '--format',
      '{{.State.Status}} {{.State.ExitCode}}',
      container('s3-bucket'),
    ]);
    if (state.startsWith('exited') && !state.trim().endsWith(' 0'))
      throw new Error(`s3-bucket ended ${state}`);
    return state.trim() === 'exited 0' ? true : undefined;
  });

  // The page, on the host's address on the project's network; the guard lets captures reach it only.
  const gateway = (
    await podman(['network', 'inspect', '--format', '{{range .Subnets}}{{.Gateway}}{{end}}', NETWORK])
  ).trim();
  site = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html><body style="background:#36a"><h1>compose ${request.url}</h1></body></html>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, gateway, resolve));
  const sitePort = (site.address() as AddressInfo).port;
  siteUrl = `http://host.containers.internal:${sitePort}`;
  env.WEBCAP_ALLOW_PRIVATE = `${gateway}/32:${sitePort}`;

  // serve-1 migrates the schema first; the others start once it is healthy, the proxy last.
  await up(['serve-1']);
  await healthy(['serve-1']);
  await up([...SERVE, ...WORKERS]);
  await healthy([...SERVE, ...WORKERS]);
  await up(['proxy']);
  await healthy(['proxy']);

  await webcapIn('serve-1', [
    'admin',
    'accounts',
    'create',
    '--name',
    'Compose',
    '--slug',
    'compose',
    '--monthly-quota',
    '100',
  ]);
  const created = JSON.parse(
    await webcapIn('serve-1', ['admin', 'keys', 'create', '--account', 'compose', '--json']),
  ) as {
    key: string;
  };
  key = created.key;
});

afterAll(async () => {
  await new Promise((resolve) => (site === undefined ? resolve(undefined) : site.close(resolve)));
  if (workDir !== undefined && (await leftovers()).length > 0) await tearDown();
  if (workDir !== undefined) fs.rmSync(workDir, { recursive: true, force: true });
});

const capture = (query: string, init?: RequestInit) =>
  fetch(`${base}/v1/capture?${query}`, { ...init, headers: { 'x-api-key': key } });

describe('the compose topology', () => {
  it("validates against the Compose schema, and the CI override changes only the stand-ins' images", async () => {
    // docker-compose 1.29's `config` checks the files against its Compose schema and prints the
    // merged result (keys sorted), without a Docker daemon.
    const config = async (files: readonly string[]) => {
      const result = await inWorkDir('docker-compose', [...files, 'config']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      return result.stdout.split('\n');
    };
    const users = await config(['-f', 'compose.yaml']);
    const ci = await config(WITH_STAND_INS);
    expect(ci).toHaveLength(users.length);
    const changed = users.flatMap((line, index) =>
      line === ci[index] ? [] : [[line.trim(), ci[index]?.trim()]],
    );
    expect(changed).toEqual([
      ['image: postgres:15', 'image: webcap-ci/postgres:15'],
      ['image: nginx:1.28', 'image: webcap-ci/nginx:1.22'],
      ['image: redis:7', 'image: webcap-ci/redis:7'],
      ['image: quay.io/minio/minio:RELEASE.2025-09-07T16-13-09Z', 'image: webcap-ci/s3rver:3.7'],
      ['image: quay.io/minio/mc:RELEASE.2025-08-13T08-35-41Z', 'image: webcap-ci/s3rver:3.7'],
    ]);
    expect(users).toContain(`    image: ${IMAGE}`);
  });

  it('takes captures through the proxy, answered by both API nodes, with and without the ad blocker', async () => {
    for (let call = 0; call < 4; call++) {
      const target = encodeURIComponent(`${siteUrl}/sync-${call}`);
      // The ad blocker caches its parsed lists under /data, a tmpfs here that Podman mounts root's:
      // a capture with remove_ads must work whether that cache can be written or not.
      const ads = call % 2 === 1 ? '&remove_ads=true' : '';
      const response = await capture(`url=${target}&viewport_width=800&viewport_height=600${ads}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(pngSize(new Uint8Array(await response.arrayBuffer()))).toEqual({ width: 800, height: 600 });
    }
    // nginx's round robin: each node answered captures (its own request log says so).
    for (const service of SERVE) {
      const answered = await requestsLogged(service, '/v1/capture');
      expect(answered.length).toBeGreaterThan(0);
      expect(answered.every((line) => line.statusCode === 200)).toBe(true);
    }
    const total = (await Promise.all(SERVE.map((service) => requestsLogged(service, '/v1/capture')))).flat();
    expect(total).toHaveLength(4);
  });

  it('runs async captures on the workers and hosts their result in S3, linked through the proxy', async () => {
    const before = await Promise.all(WORKERS.map((service) => jobsCompleted(service, 8081)));
    const jobs: string[] = [];
    for (let call = 0; call < 2; call++) {
      const target = encodeURIComponent(`${siteUrl}/async-${call}`);
      const response = await capture(`url=${target}&viewport_width=640&viewport_height=480&is_async=true`);
      expect(response.status).toBe(202);
      jobs.push(((await response.json()) as { job_id: string }).job_id);
    }
    for (const job of jobs) {
      const record = await waitFor(`job ${job} to end`, async () => {
        const response = await fetch(`${base}/jobs/${job}`, { headers: { 'x-api-key': key } });
        const body = (await response.json()) as {
          status: string;
          result: { screenshot_url: string } | null;
        };
        return body.status === 'queued' || body.status === 'running' ? undefined : body;
      });
      expect(record.status).toBe('completed');
      const link = record.result?.screenshot_url ?? '';
      expect(link.startsWith(`${base}/`)).toBe(true);
      const hosted = await fetch(link);
      expect(hosted.status).toBe(200);
      expect(hosted.headers.get('content-type')).toBe('image/png');
      expect(pngSize(new Uint8Array(await hosted.arrayBuffer()))).toEqual({ width: 640, height: 480 });
    }
    // The workers ran both jobs; the API nodes (JOB_CONCURRENCY=0) ran none.
    const after = await Promise.all(WORKERS.map((service) => jobsCompleted(service, 8081)));
    expect(after.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0)).toBe(2);
    for (const service of SERVE) expect(await jobsCompleted(service, 8080)).toBe(0);
    // The hosted files are objects in the S3 store's bucket, not files of a node.
    const objects = await podman([
      'exec',
      container('s3'),
      'find',
      '/data/webcap',
      '-type',
      'f',
      '-name',
      '*._S3rver_object',
    ]);
    expect(objects.trim().split('\n').length).toBeGreaterThanOrEqual(2);
    for (const service of SERVE) {
      expect((await run('podman', ['exec', container(service), 'ls', '/data/blobs'])).code).not.toBe(0);
    }
  });

  it('comes down leaving no container, volume or network behind', async () => {
    expect((await leftovers()).length).toBeGreaterThan(0);
    await tearDown();
    expect(await leftovers()).toEqual([]);
  });
});
