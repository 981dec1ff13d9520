import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSize } from '../helpers/chromium.js';
import { tempDir } from '../helpers/databases.js';
import { dockerLikeSeccomp, expectRunning, freeLowPort, podman, run, waitFor } from './podman.js';

/**
 * The image as operators run it (docs/deploy.md): read-only root, a tmpfs /tmp, a volume on /data,
 * the default user and command. Built by scripts/container-image.sh (layers cached), or taken as
 * WEBCAP_TEST_IMAGE names it. Host networking lets Chromium in the container reach the page this
 * test serves on the host's 127.0.0.1; the service listens on 127.0.0.1 too.
 */
const IMAGE = process.env.WEBCAP_TEST_IMAGE ?? 'webcap:dev';
const NAME = `webcap-test-${randomBytes(4).toString('hex')}`;
const VOLUME = `${NAME}-data`;
/** The user the Dockerfile runs as, by number so that Kubernetes' runAsNonRoot can check it. */
const WEBCAP_USER = { name: 'webcap', id: '10001:10001' };
/** The page's background, read back from the screenshot's pixels. */
const BACKGROUND = { r: 0x33, g: 0xaa, b: 0x66 };

/** A second container run as the first: same volume, same network, read-only. */
const BESIDE = [
  '--network=host',
  '--read-only',
  '--tmpfs=/tmp',
  `--volume=${VOLUME}:/data`,
  '--env=HOST=127.0.0.1',
];

let site: Server;
let sitePort: number;
let port: number;
let base: string;
let key: string;

interface Started {
  readonly port: number;
  readonly base: string;
  readonly key: string;
}

/** Starts the image detached with the run options shared by every container here, and reads its key. */
async function startContainer(name: string, options: readonly string[]): Promise<Started> {
  const port = await freeLowPort();
  const base = `http://127.0.0.1:${port}`;
  await podman([
    'run',
    '--detach',
    `--name=${name}`,
    '--network=host',
    '--read-only',
    '--tmpfs=/tmp',
    '--env=HOST=127.0.0.1',
    `--env=PORT=${port}`,
    `--env=WEBCAP_ALLOW_PRIVATE=127.0.0.1/32:${sitePort}`,
    ...options,
    IMAGE,
  ]);
  const logs = await waitFor(`${name} to listen`, async () => {
    // The key is on the container's stderr, which podman logs writes to its own.
    const { stdout, stderr } = await run('podman', ['logs', name]);
    if (stdout.includes(`listening on ${base}`)) return `${stdout}${stderr}`;
    await expectRunning(name);
    return undefined;
  });
  const printed = /development API key \(shown only once\):\s+(\S+)/.exec(logs);
  if (printed?.[1] === undefined) throw new Error(`no key in the output: ${logs}`);
  return { port, base, key: printed[1] };
}

/** GET /v1/capture of the test's page at 800 × 600. */
function capture(started: Started): Promise<Response> {
  const target = `http://127.0.0.1:${sitePort}/`;
  return fetch(
    `${started.base}/v1/capture?url=${encodeURIComponent(target)}&viewport_width=800&viewport_height=600`,
    {
      headers: { 'x-api-key': started.key },
    },
  );
}

beforeAll(async () => {
  if (process.env.WEBCAP_TEST_IMAGE === undefined) {
    const built = await run('bash', ['scripts/container-image.sh'], 25 * 60_000);
    if (built.code !== 0) throw new Error(`image build failed: ${built.stdout.slice(-4000)}${built.stderr}`);
  }
  site = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html><body style="margin:0;background:rgb(${BACKGROUND.r},${BACKGROUND.g},${BACKGROUND.b})">` +
        '<h1>webcap in a container</h1><p>日本語 中文 한국어 Ελληνικά Русский العربية हिन्दी 😀</p></body></html>',
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as AddressInfo).port;
  await podman(['volume', 'create', VOLUME]);
  ({ port, base, key } = await startContainer(NAME, [`--volume=${VOLUME}:/data`]));
});

afterAll(async () => {
  await run('podman', ['rm', '--force', '--volumes', '--time=0', NAME]);
  await run('podman', ['volume', 'rm', '--force', VOLUME]);
  await new Promise((resolve) => site?.close(resolve));
});

/** Each process in the container: its user and command line (read from the host: no ps inside). */
async function processes(name = NAME): Promise<{ user: string; args: string }[]> {
  const table = await podman(['top', name, 'user', 'args']);
  return table
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [user = '', ...args] = line.trim().split(/\s+/);
      return { user, args: args.join(' ') };
    });
}

describe('the container image', () => {
  it('prints a key at its first start and takes a capture of a page on the host', async () => {
    expect(key).toMatch(/^wc_test_/);
    const response = await capture({ port, base, key });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const png = new Uint8Array(await response.arrayBuffer());
    expect(pngSize(png)).toEqual({ width: 800, height: 600 });
    const { data } = await sharp(png)
      .extract({ left: 700, top: 500, width: 1, height: 1 })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([...data]).toEqual([BACKGROUND.r, BACKGROUND.g, BACKGROUND.b]);
  });

  it('runs every process as the webcap user, Chromium with its sandbox', async () => {
    expect((await podman(['image', 'inspect', '--format', '{{.Config.User}}', IMAGE])).trim()).toBe(
      WEBCAP_USER.id,
    );
    const all = await processes();
    expect(all.map((p) => p.args)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^\/usr\/bin\/tini -- node dist\/cli\/main\.js serve/)]),
    );
    expect(new Set(all.map((p) => p.user))).toEqual(new Set([WEBCAP_USER.name]));
    const chromium = all.filter((p) => p.args.includes('chromium-headless-shell'));
    expect(chromium.length).toBeGreaterThan(0);
    expect(chromium.filter((p) => p.args.includes('--no-sandbox'))).toEqual([]);
  });

  it('writes only to /data and /tmp', async () => {
    const write = (file: string) => run('podman', ['exec', NAME, 'sh', '-c', `: > ${file}`]);
    expect((await write('/app/written')).code).not.toBe(0);
    expect((await write('/written')).code).not.toBe(0);
    expect((await write('/tmp/written')).code).toBe(0);
    expect((await podman(['exec', NAME, 'ls', '/data'])).split('\n')).toContain('webcap.sqlite');
    // Owner-only (docs/security.md, "Files on disk"): the image's /data, and what the service made.
    expect(await podman(['exec', NAME, 'stat', '-c', '%a %n', '/data', '/data/webcap.sqlite'])).toBe(
      '700 /data\n600 /data/webcap.sqlite\n',
    );
  });

  it('runs doctor beside the server: Chromium, ffmpeg, the fonts, the database and the blobs check out', async () => {
    const doctor = await run('podman', [
      'run',
      '--rm',
      ...BESIDE,
      `--env=PORT=${port}`,
      IMAGE,
      'doctor',
      '--json',
      // Each check's own bound (5 s) is for an operator's machine; a loaded test machine can take longer.
      '--timeout-ms=60000',
    ]);
    expect(doctor.code, `${doctor.stdout}${doctor.stderr}`).toBe(0);
    const { checks } = JSON.parse(doctor.stdout) as { checks: { name: string; status: string }[] };
    const status = Object.fromEntries(checks.map((check) => [check.name, check.status]));
    expect(status).toMatchObject({
      chromium: 'ok',
      ffmpeg: 'ok',
      'fonts latin': 'ok',
      'fonts cjk': 'ok',
      'fonts emoji': 'ok',
      database: 'ok',
      blobs: 'ok',
    });
  });

  it('runs admin on the same volume', async () => {
    const accounts = await podman(['run', '--rm', ...BESIDE, IMAGE, 'admin', 'accounts', 'list', '--json']);
    const { accounts: list } = JSON.parse(accounts) as { accounts: { slug: string }[] };
    expect(list.map((account) => account.slug)).toEqual(['default']);
  });

  it.each(['serve', 'worker', 'admin', 'doctor', 'mcp'])('has the %s command', async (command) => {
    const help = await podman(['run', '--rm', '--network=none', IMAGE, command, '--help']);
    expect(help).toContain(`Usage: webcap ${command}`);
  });

  it('answers its HEALTHCHECK', async () => {
    const healthcheck = await podman([
      'image',
      'inspect',
      '--format',
      '{{json .Config.Healthcheck.Test}}',
      IMAGE,
    ]);
    expect(JSON.parse(healthcheck)[0]).toBe('CMD');
    expect((await run('podman', ['healthcheck', 'run', NAME])).code).toBe(0);
  });

  it('ends with exit 0 on SIGTERM within the grace period', async () => {
    // podman stop sends SIGTERM, then SIGKILL after --time seconds (docs/deploy.md's 45): exit 0
    // means the service drained and exited by itself before that (a SIGKILL reads 137).
    await podman(['stop', '--time=45', NAME]);
    const state = await podman(['inspect', '--format', '{{.State.ExitCode}}', NAME]);
    expect(state.trim()).toBe('0');
    const { stdout } = await run('podman', ['logs', NAME]);
    expect(stdout).toContain('"msg":"shutting down"');
  });
});

/**
 * Docker's default seccomp profile (and containerd's RuntimeDefault, its copy) refuses new user
 * namespaces to a process without CAP_SYS_ADMIN, which Chromium's sandbox needs; podman's allows
 * them. Emulated here from podman's own profile as Docker's restricts it. docs/deploy.md gives the
 * operator's two ways out; this pins what each does.
 */
describe('the sandbox under a Docker-like seccomp profile', () => {
  const names: string[] = [];
  let profile: string;

  beforeAll(async () => {
    profile = path.join(tempDir('webcap-seccomp-'), 'docker-like.json');
    await writeFile(profile, JSON.stringify(await dockerLikeSeccomp()));
  });

  afterAll(async () => {
    for (const name of names) await run('podman', ['rm', '--force', '--volumes', '--time=0', name]);
  });

  async function startUnder(options: readonly string[]): Promise<Started> {
    const name = `${NAME}-${names.length}`;
    names.push(name);
    return startContainer(name, [`--security-opt=seccomp=${profile}`, ...options]);
  }

  it('as the webcap user, Chromium cannot start: captures answer 503', async () => {
    const response = await capture(await startUnder([]));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: 'Service Unavailable: the browser could not be started; retry later',
    });
  });

  it('as root (--user 0), the service drops the sandbox and captures', async () => {
    const response = await capture(await startUnder(['--user=0']));
    expect(response.status).toBe(200);
    expect(pngSize(new Uint8Array(await response.arrayBuffer()))).toEqual({ width: 800, height: 600 });
    const chromium = (await processes(names.at(-1) ?? '')).filter((p) =>
      p.args.includes('chromium-headless-shell'),
    );
    expect(chromium.length).toBeGreaterThan(0);
    expect(chromium.every((p) => p.user === 'root' && p.args.includes('--no-sandbox'))).toBe(true);
  });
  it('as the webcap user with CHROMIUM_SANDBOX=off, Chromium runs unsandboxed and captures', async () => {
    const response = await capture(await startUnder(['--env=CHROMIUM_SANDBOX=off']));
    expect(response.status).toBe(200);
    expect(pngSize(new Uint8Array(await response.arrayBuffer()))).toEqual({ width: 800, height: 600 });
    const chromium = (await processes(names.at(-1) ?? '')).filter((p) =>
      p.args.includes('chromium-headless-shell'),
    );
    expect(chromium.length).toBeGreaterThan(0);
    expect(chromium.every((p) => p.user === WEBCAP_USER.name && p.args.includes('--no-sandbox'))).toBe(true);
  });
});
