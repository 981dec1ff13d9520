import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../src/mcp/tools.js';
import { cliAccountKey, processSetup, runCli, type ServerProcess, startServer } from './helpers/cli.js';
import { tempDir } from './helpers/databases.js';
import { startServer as startSite, type TestServer } from './helpers/net-fixtures.js';
import { HANG_MS } from './helpers/waits.js';

/* `webcap mcp` over stdio, as a desktop agent starts it: in-process on the local database, and on a `webcap serve` through the SDK. */

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/cli/main.js');
const SMALL =
  '<!doctype html><html><head><title>Small page</title></head><body style="background:#c33"><p>Contact us at hello@example.com.</p></body></html>';

function textOf(result: CallToolResult): string {
  return result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

describe('webcap mcp over stdio', () => {
  let site: TestServer;
  let env: Record<string, string>;
  let key: string;
  let server: ServerProcess | undefined;
  const clients: Client[] = [];

  const page = () => `http://127.0.0.1:${site.port}/small`;

  async function stdio(args: string[], extra: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'webcap-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', ...args],
        env: { PATH: process.env.PATH ?? '', ...env, ...extra },
        stderr: 'ignore',
      }),
      // The SDK's default, 60 s, was reached by a process starting on a loaded machine.
      { timeout: HANG_MS },
    );
    clients.push(client);
    return client;
  }

  async function call(
    client: Client,
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args }, undefined, {
      timeout: HANG_MS,
    })) as CallToolResult;
  }

  const totalUsed = async (client: Client) =>
    (JSON.parse(textOf(await call(client, 'usage'))) as { total_used: number }).total_used;

  beforeAll(async () => {
    site = await startSite((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SMALL);
    });
    ({ env } = processSetup('sqlite', 'mcp-processes-admin-token-0000'));
    key = await cliAccountKey(env, 'mcp', ['--monthly-quota', '100']);
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.stop();
    await site?.close();
  });

  it('in-process: the tools run on the local engines, billed to a key of the local database; captures are saved as files', async () => {
    const client = await stdio([], { WEBCAP_API_KEY: key });
    const listed = (await client.listTools(undefined, { timeout: HANG_MS })).tools;
    expect(listed.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    const before = await totalUsed(client);
    const content = textOf(await call(client, 'content', { url: page() }));
    expect(content).toContain('# Small page');
    expect(content).toContain('Contact us at hello@example.com.');
    const capture = await call(client, 'capture', { url: page(), viewport_width: 800, viewport_height: 600 });
    const saved = /saved to: (\S+)/.exec(textOf(capture))?.[1] ?? '';
    expect(saved).toMatch(/\/captures\/[^/]+\.png$/);
    expect(existsSync(saved)).toBe(true);
    expect(await sharp(saved).metadata()).toMatchObject({ width: 800, height: 600 });
    expect(textOf(capture)).not.toContain('screenshot_url');
    const image = capture.content.find((part) => part.type === 'image');
    expect(
      image?.type === 'image' && (await sharp(Buffer.from(image.data, 'base64')).metadata()),
    ).toMatchObject({
      format: 'jpeg',
      width: 800,
      height: 600,
    });
    const blocked = await call(client, 'website_crawler', { url: 'http://10.1.2.3/' });
    expect(blocked.isError).toBe(true);
    expect(textOf(blocked)).toMatch(/^400 Bad Request: blocked by the network policy/);
    const async = textOf(await call(client, 'capture', { url: page(), async: true }));
    expect(async).toBe(
      '400 Bad Request: async needs PUBLIC_BASE_URL in this mode: a job answers with a hosted link',
    );
    // Screenshot steps are answered as hosted links, which this mode has no address to serve.
    for (const tool of ['capture', 'content']) {
      const steps = textOf(await call(client, tool, { url: page(), actions: '[{"type":"screenshot"}]' }));
      expect(steps).toBe(
        '400 Bad Request: actions[0] (screenshot): needs PUBLIC_BASE_URL in this mode: the images are answered as hosted links',
      );
    }
    expect(await totalUsed(client)).toBe(before + 2);
  });

  it('in-process: a key the local database does not know stops it at start, saying how to make one', async () => {
    const result = await runCli(['mcp', '--key', 'wk_not_a_key'], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('webcap mcp: Invalid API Key; it needs an API key');
    expect(result.stderr).toContain('webcap admin keys create --account SLUG');
    // The key was in the command line: said on stderr, where it cannot disturb JSON-RPC.
    expect(result.stderr).toContain('webcap: warning: --key puts the API key in the command line');
  });

  it('in-process: --key-file gives the key, out of the command line and without the warning', async () => {
    const file = path.join(tempDir(), 'key');
    writeFileSync(file, 'wk_not_a_key\n', { mode: 0o600 });
    const fromFile = await runCli(['mcp', '--key-file', file], env);
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toContain('webcap mcp: Invalid API Key; it needs an API key');
    expect(fromFile.stderr).not.toContain('warning');
  }, 120_000);

  it('a server that is not an http(s) URL stops it at start, as the API verbs say it', async () => {
    for (const [args, extra, said] of [
      [['--server', 'ftp://127.0.0.1'], {}, '--server must be an http(s) URL (got "ftp://127.0.0.1")'],
      [[], { WEBCAP_URL: 'nowhere' }, 'WEBCAP_URL must be an http(s) URL (got "nowhere")'],
    ] as const) {
      const result = await runCli(['mcp', '--key', key, ...args], { ...env, ...extra });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`webcap mcp: ${said}`);
    }
  });

  it('remote: the tools call a webcap server through the SDK, billed there; async capture and job_status', async () => {
    server = await startServer(env);
    const client = await stdio(['--server', server.url, '--key', key], {});
    const before = await totalUsed(client);
    const content = textOf(await call(client, 'content', { url: page() }));
    expect(content).toContain('Contact us at hello@example.com.');
    const crawl = textOf(await call(client, 'website_crawler', { url: page() }));
    expect(crawl).toBe(`HTTP 200\n\n${SMALL}`);
    const blocked = await call(client, 'content', { url: 'http://10.1.2.3/' });
    expect(blocked.isError).toBe(true);
    expect(textOf(blocked)).toMatch(/^400 Bad Request: blocked by the network policy/);
    const capture = await call(client, 'capture', { url: page() });
    expect(textOf(capture)).toMatch(new RegExp(`^screenshot_url: ${server.url}/v1/files/\\S+\\.png`));
    expect(capture.content.some((part) => part.type === 'image')).toBe(true);
    const submitted = textOf(await call(client, 'capture', { url: page(), async: true }));
    const jobId = /^Job (\S+) is queued\./.exec(submitted)?.[1] ?? '';
    let status = '';
    for (const deadline = Date.now() + HANG_MS; Date.now() < deadline; ) {
      status = textOf(await call(client, 'job_status', { job_id: jobId }));
      if (!/: (queued|running)\./.test(status)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toMatch(new RegExp(`^job ${jobId}: completed\\nscreenshot_url: `));
    expect(await totalUsed(client)).toBe(before + 4);
    const steps = textOf(
      await call(client, 'capture', { url: page(), actions: '[{"type":"screenshot","full_page":true}]' }),
    );
    expect(steps).toMatch(new RegExp(`\nactions screenshot 1: ${server.url}/v1/files/\\S+\\.png\\?`));
    const wrong = await stdio(['--server', server.url, '--key', 'wk_not_a_key'], {});
    expect(textOf(await call(wrong, 'usage'))).toBe('401 Invalid API Key');
  });
});
