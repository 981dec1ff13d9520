import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSize } from './helpers/chromium.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/databases.js';
import { closedPort, startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

const PAGE = '<!doctype html><html><body style="margin:0;background:#08f"><h1>shot</h1></body></html>';

/*
 * `webcap capture` as a user runs it: the built dist/cli/main.js as a process of its own, against
 * a real listening service, with the service's own configuration broken in its environment
 * (the API verbs are clients and must not read it).
 */
describe('webcap capture as a process', () => {
  let site: TestServer;
  let t: TestRuntime;
  let env: Record<string, string>;
  let pageUrl: string;

  beforeAll(async () => {
    site = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    });
    t = await startTestRuntime('sqlite', {
      env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, LOG_LEVEL: 'warn' },
    });
    const server = await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const key = await newAccountKey(t, 'shell', 100);
    env = { WEBCAP_URL: server, WEBCAP_API_KEY: key, PORT: 'eighty', DATABASE_URL: 'mysql://x' };
    pageUrl = `http://127.0.0.1:${site.port}/`;
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('capture URL -o FILE writes the PNG and exits 0', async () => {
    const file = path.join(tempDir(), 'shot.png');
    const result = await runCli(
      ['capture', pageUrl, '-o', file, '--viewport-width', '1024', '--height', '700'],
      env,
    );
    expect(result.stderr).toBe(`wrote ${fs.statSync(file).size} bytes (image/png) to ${file}\n`);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(pngSize(fs.readFileSync(file))).toEqual({ width: 1024, height: 700 });
  });

  it('capture URL piped writes the PNG bytes to stdout', async () => {
    const child = spawn(
      process.execPath,
      ['dist/cli/main.js', 'capture', pageUrl, '--width', '500', '--height', '400'],
      {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(pngSize(Buffer.concat(chunks))).toEqual({ width: 500, height: 400 });
  });

  it('exits 3 when the server cannot be reached, and 2 for a bad value', async () => {
    const port = await closedPort();
    const unreachable = await runCli(['usage', '--server', `http://127.0.0.1:${port}`], env);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toMatch(
      /^webcap: cannot reach http:\/\/127\.0\.0\.1:\d+: network error: [^\n]+\n$/,
    );
    const bad = await runCli(['capture', pageUrl, '--scale-factor', '9', '-o', '/dev/null'], env);
    expect(bad).toMatchObject({ code: 2, stderr: 'webcap: --scale-factor must be <= 4\n' });
  });
});
