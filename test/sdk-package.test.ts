import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.js';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * The SDK as a project outside the clone gets it (docs/clients.md): `npm pack -w @webcap/sdk`
 * makes the tarball (its prepack builds dist/), a new project installs it with npm, TypeScript
 * checks a caller against the types the tarball carries, and Node runs that caller against the
 * service listening on 127.0.0.1. Nothing here resolves to the clone's sources. The install is
 * offline, with an empty npm cache of its own: the SDK's one dependency (openapi-fetch, and its
 * helpers) is packed from the clone's node_modules, so the test reaches no registry (the image's
 * test run has neither a cache nor the registry's certificate chain).
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = path.join(ROOT, 'node_modules/.bin/tsc');

const CALLER = `import { Webcap, WebcapError } from '@webcap/sdk';

// The consumer has no @types/node: the SDK's own types must be enough.
declare const process: { env: Record<string, string | undefined> };

const webcap = new Webcap({ baseUrl: process.env.BASE_URL, apiKey: process.env.KEY, retries: 0 });
const usage = await webcap.usage();
const shot = await webcap.capture({ url: process.env.PAGE ?? '', viewport_width: 320, viewport_height: 200 });
let refused: number | null = null;
try {
  await new Webcap({ baseUrl: process.env.BASE_URL, apiKey: 'wc_test_wrong', retries: 0 }).usage();
} catch (error) {
  if (error instanceof WebcapError) refused = error.status;
}
const bytes = shot.kind === 'file' ? shot.bytes.length : 0;
console.log(JSON.stringify({ kind: shot.kind, type: shot.kind === 'file' ? shot.contentType : null, bytes, refused, usage }));
`;

describe('@webcap/sdk installed from its tarball', () => {
  let site: TestServer;
  let t: TestRuntime;
  let project: string;
  let tarball: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    const packs = tempDir('webcap-sdk-pack-');
    const packed = await run('npm', ['pack', '-w', '@webcap/sdk', '--json', '--pack-destination', packs], {
      cwd: ROOT,
    });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    if (info === undefined) throw new Error(`npm pack printed no tarball: ${packed.stdout}`);
    tarball = path.join(packs, info.filename);
    expect(info.files.map((file) => file.path)).toEqual(
      expect.arrayContaining(['package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/client.js']),
    );

    project = tempDir('webcap-sdk-project-');
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'sdk-consumer', version: '1.0.0', private: true, type: 'module' }),
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          outDir: 'out',
        },
        include: ['caller.ts'],
      }),
    );
    fs.writeFileSync(path.join(project, 'caller.ts'), CALLER);
    const dependencies = await run(
      'npm',
      [
        'pack',
        '--ignore-scripts',
        '--json',
        '--pack-destination',
        packs,
        './node_modules/openapi-fetch',
        './node_modules/openapi-typescript-helpers',
      ],
      { cwd: ROOT },
    );
    const dependencyTarballs = (
      JSON.parse(dependencies.stdout.slice(dependencies.stdout.indexOf('['))) as { filename: string }[]
    ).map((pack) => path.join(packs, pack.filename));
    const cache = tempDir('webcap-sdk-npm-cache-');
    await run(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', `--cache=${cache}`, tarball, ...dependencyTarballs],
      {
        cwd: project,
      },
    );

    site = await startServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><body style="background:#0a0">hi</body></html>');
    });
    t = await startTestRuntime('sqlite', {
      env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}` },
      resolver: tableResolver({ 'site.example': ['127.0.0.1'] }),
    });
    const key = await newAccountKey(t, 'sdk', 100);
    await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.runtime.app.server.address() as AddressInfo;
    env = {
      ...process.env,
      BASE_URL: `http://127.0.0.1:${port}`,
      KEY: key,
      PAGE: `http://site.example:${site.port}/`,
    } as Record<string, string>;
  });

  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('installs with its built JavaScript and types, outside the clone', () => {
    const installed = path.join(project, 'node_modules/@webcap/sdk');
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(fs.existsSync(path.join(installed, 'dist/index.js'))).toBe(true);
    expect(fs.existsSync(path.join(installed, 'dist/index.d.ts'))).toBe(true);
    expect(fs.existsSync(path.join(installed, 'src'))).toBe(false);
  });

  it('type-checks a caller against the types it carries, and the caller runs against the service', async () => {
    // tsc prints its errors on stdout, which the rejection's message leaves out.
    await run(TSC, ['-p', 'tsconfig.json'], { cwd: project }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed in the consumer project:\n${error.stdout}`);
    });
    const { stdout } = await run(process.execPath, ['out/caller.js'], { cwd: project, env });
    const result = JSON.parse(stdout) as {
      kind: string;
      type: string | null;
      bytes: number;
      refused: number | null;
      usage: { account: { slug: string } };
    };
    expect(result).toMatchObject({ kind: 'file', type: 'image/png', refused: 401 });
    expect(result.bytes).toBeGreaterThan(100);
    expect(result.usage.account.slug).toBe('sdk');
  });
});
