import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type CrawlPage, Webcap, WebcapError } from '@webcap/sdk';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWebcap } from '../src/cli/program.js';
import { createLogger } from '../src/logging.js';
import { RemoteBackend } from '../src/mcp/remote.js';
import { createMcpServer } from '../src/mcp/server.js';
import { type CrawlSite, SWATCHES, startCrawlSite } from './helpers/crawl-site.js';
import { removeTempDirs, tempDir } from './helpers/databases.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * The whole-site crawl's clients against a real listening service (SQLite, the in-process queue,
 * real Chromium) crawling the fixture site of test/helpers/crawl-site.ts: the SDK's crawl.*,
 * `webcap crawl-site` writing files (and images), and the crawl_start / crawl_status MCP tools.
 */

/** Five pages, whatever order they finish in: the home page and the docs three links deep. */
const CRAWL = {
  limit: 5,
  max_depth: 3,
  include_paths: ['/docs/*'],
  sitemap: 'skip' as const,
  ignore_query_params: true,
};
/**
 * How long each page answers in the tests that stop a crawl midway: its four levels then take
 * 16 s at least, far more than the few calls that stop it, and each page stays within
 * NAVIGATION_TIMEOUT_MS.
 */
const SLOW_MS = 4000;
const PATHS = ['/', '/docs/0', '/docs/1', '/docs/2', '/docs/7'];
const TITLES: Record<string, string> = {
  '/': 'Home',
  '/docs/0': 'Doc 0',
  '/docs/1': 'Doc 1',
  '/docs/2': 'Doc 2',
  '/docs/7': 'Doc 7',
};

/** What a progress line is redrawn after: carriage return, erase to the end of the line. */
const CLEAR_LINE = '\r\x1b[K';

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

describe('crawl clients', () => {
  let site: CrawlSite;
  let t: TestRuntime;
  let base: string;

  beforeAll(async () => {
    site = await startCrawlSite();
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '2',
        JOB_CONCURRENCY: '4',
        // Bounds a hang only: a 4 s page renders within it on a loaded machine.
        NAVIGATION_TIMEOUT_MS: '120000',
        RENDER_TIMEOUT_MS: '180000',
        LOG_LEVEL: 'warn',
      },
      resolver: site.resolver,
    });
    base = await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    removeTempDirs();
  });

  const webcap = (apiKey: string) => new Webcap({ baseUrl: base, apiKey, retries: 0 });
  const pathsOf = (pages: readonly { url: string }[]) =>
    pages.map((page) => new URL(page.url).pathname).sort();

  describe('SDK', () => {
    it('start, wait, then every page through pages(), a few per answer', async () => {
      const client = webcap(await newAccountKey(t, 'sdk-crawl', 100));
      const accepted = await client.crawl.start({ url: `${site.origin()}/`, ...CRAWL });
      expect(accepted).toMatchObject({ success: true, status: 'queued' });
      expect(accepted.crawl_id).toMatch(/^crawl_/);
      const polled: string[] = [];
      const ended = await client.crawl.wait(accepted.crawl_id, {
        intervalMs: 100,
        timeoutMs: HANG_MS,
        onPoll: (record) => polled.push(record.status),
      });
      expect(ended.status).toBe('completed');
      expect(polled.at(-1)).toBe('completed');
      expect(ended.counts).toEqual({
        discovered: 5,
        completed: 5,
        failed: 0,
        skipped: 0,
        credits_used: 5,
        running: 0,
      });
      const pages: CrawlPage[] = [];
      for await (const page of client.crawl.pages(accepted.crawl_id, { limit: 2 })) pages.push(page);
      expect(pathsOf(pages)).toEqual(PATHS);
      for (const page of pages) {
        const title = TITLES[new URL(page.url).pathname] ?? '';
        expect(page).toMatchObject({ status: 'completed', status_code: 200, metadata: { title } });
        expect(page.markdown).toContain(`This is ${title}, a page of the test site.`);
      }
      // get reads one answer: the cursor it gives continues after its pages.
      const first = await client.crawl.get(accepted.crawl_id, { limit: 3 });
      expect(first.pages.map((page) => page.url)).toEqual(pages.slice(0, 3).map((page) => page.url));
      const rest = await client.crawl.get(accepted.crawl_id, { cursor: first.cursor ?? '', limit: 3 });
      expect(rest.pages.map((page) => page.url)).toEqual(pages.slice(3).map((page) => page.url));
      expect(rest.next).toBeNull();
      // An ended crawl cannot be cancelled.
      const refused = await client.crawl.cancel(accepted.crawl_id).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WebcapError);
      expect((refused as WebcapError).status).toBe(409);
    });

    it('wait gives up at its timeout, leaving the crawl; cancel ends it, and wait then sees its end', async () => {
      const client = webcap(await newAccountKey(t, 'sdk-cancel', 100));
      site.slowMs = SLOW_MS;
      try {
        const { crawl_id: id } = await client.crawl.start({ url: `${site.origin()}/`, ...CRAWL });
        const late = await client.crawl
          .wait(id, { timeoutMs: 200, intervalMs: 50 })
          .catch((error: unknown) => error);
        expect(late).toBeInstanceOf(WebcapError);
        expect((late as WebcapError).kind).toBe('timeout');
        const cancelled = await client.crawl.cancel(id);
        expect(cancelled.status).toBe('cancelled');
        const ended = await client.crawl.wait(id, { intervalMs: 100, timeoutMs: HANG_MS });
        expect(ended).toMatchObject({ status: 'cancelled', counts: { running: 0 } });
        expect(ended.counts.completed).toBeLessThan(5);
      } finally {
        site.slowMs = 0;
      }
    });

    it('errors: a bad parameter is a 400 naming it, an unknown crawl a 404', async () => {
      const client = webcap(await newAccountKey(t, 'sdk-errors', 100));
      const bad = await client.crawl
        .start({ url: `${site.origin()}/`, limit: 0 })
        .catch((error: unknown) => error);
      expect(bad).toMatchObject({ status: 400 });
      expect((bad as WebcapError).message).toContain('limit');
      const unknown = await client.crawl.get('crawl_unknown').catch((error: unknown) => error);
      expect(unknown).toMatchObject({ status: 404 });
    });
  });

  describe('CLI', () => {
    interface Run {
      readonly code: number;
      readonly stdout: string;
      readonly stderr: string;
    }

    /** `webcap ARGS` in this process against the service; `interrupt` is called with the Ctrl-C handler once one is set. */
    async function cli(
      args: readonly string[],
      key: string,
      options: { tty?: boolean; interrupt?: (ctrlC: () => void, stderr: () => string) => void } = {},
    ): Promise<Run> {
      let stdout = '';
      let stderr = '';
      const code = await runWebcap(
        args,
        () => {
          throw new Error('a crawl verb read the service configuration');
        },
        {
          stdout: (text) => {
            stdout += text;
          },
          stderr: (text) => {
            stderr += text;
          },
          stderrIsTTY: options.tty === true,
          env: { WEBCAP_URL: base, WEBCAP_API_KEY: key },
          onInterrupt: (handler) => {
            options.interrupt?.(handler, () => stderr);
            return () => undefined;
          },
        },
      );
      return { code, stdout, stderr };
    }

    const crawlArgs = [
      '--limit',
      '5',
      '--max-depth',
      '3',
      '--include-paths',
      '/docs/*',
      '--sitemap',
      'skip',
      '--ignore-query-params',
    ];

    it('crawl-site writes one Markdown file per page, named from its path, and index.json, owner-only', async () => {
      const key = await newAccountKey(t, 'cli-crawl', 100);
      const dir = path.join(tempDir(), 'out', 'site');
      const run = await cli(['crawl-site', `${site.origin()}/`, ...crawlArgs, '-o', dir, '--json'], key, {
        tty: true,
      });
      expect(run.stderr).not.toContain('webcap:');
      expect(run.code).toBe(0);
      // A bar of pages finished out of discovered, redrawn in place on a terminal, erased at the end.
      const bars = run.stderr.split(CLEAR_LINE).filter((part) => part.startsWith('crawl ['));
      expect(bars.length).toBeGreaterThan(0);
      for (const bar of bars) expect(bar).toMatch(/^crawl \[[#.]{24}\] \d+\/\d+ pages$/);
      expect(run.stderr.endsWith(CLEAR_LINE)).toBe(true);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      const files = ['docs_0.md', 'docs_1.md', 'docs_2.md', 'docs_7.md', 'index.json', 'index.md'];
      expect(fs.readdirSync(dir).sort()).toEqual(files);
      for (const file of files) expect(fs.statSync(path.join(dir, file)).mode & 0o777).toBe(0o600);
      const doc = fs.readFileSync(path.join(dir, 'docs_7.md'), 'utf8');
      expect(
        doc.startsWith(`---\nurl: "${site.origin()}/docs/7"\ntitle: "Doc 7"\nstatus_code: 200\n---\n\n`),
      ).toBe(true);
      expect(doc).toContain('This is Doc 7, a page of the test site.');
      const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as {
        status: string;
        pages: { url: string; file: string; status: string; status_code: number }[];
      };
      expect(index.status).toBe('completed');
      expect(Object.fromEntries(index.pages.map((page) => [new URL(page.url).pathname, page.file]))).toEqual({
        '/': 'index.md',
        '/docs/0': 'docs_0.md',
        '/docs/1': 'docs_1.md',
        '/docs/2': 'docs_2.md',
        '/docs/7': 'docs_7.md',
      });
      const printed = JSON.parse(run.stdout) as {
        status: string;
        counts: { completed: number };
        pages: unknown[];
      };
      expect(printed).toMatchObject({ status: 'completed', counts: { completed: 5 }, directory: dir });
      expect(printed.pages).toEqual(index.pages);
    });

    it("crawl-site --formats screenshot writes each page's PNG beside its Markdown", async () => {
      const key = await newAccountKey(t, 'cli-crawl-shots', 100);
      const dir = path.join(tempDir(), 'shots');
      const args = [
        '--max-depth',
        '0',
        '--sitemap',
        'skip',
        '--formats',
        'markdown',
        '--formats',
        'screenshot',
      ];
      const run = await cli(['crawl-site', `${site.origin()}/swatches/1`, ...args, '-o', dir, '--json'], key);
      expect(run.stderr).not.toContain('webcap:');
      expect(run.code).toBe(0);
      expect(fs.readdirSync(dir).sort()).toEqual(['index.json', 'swatches_1.md', 'swatches_1.png']);
      expect(fs.statSync(path.join(dir, 'swatches_1.png')).mode & 0o777).toBe(0o600);
      const { data, info } = await sharp(path.join(dir, 'swatches_1.png'))
        .raw()
        .toBuffer({ resolveWithObject: true });
      const at = (150 * info.width + 150) * info.channels;
      expect({ width: info.width, rgb: [...data.subarray(at, at + 3)] }).toEqual({
        width: 1280,
        rgb: [...(SWATCHES[1] ?? [])],
      });
      const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as {
        pages: { file: string; image?: string }[];
      };
      expect(index.pages).toMatchObject([{ file: 'swatches_1.md', image: 'swatches_1.png' }]);
    });

    it('Ctrl-C cancels the crawl before exiting 130; a planted link is replaced, not followed', async () => {
      const key = await newAccountKey(t, 'cli-interrupt', 100);
      const dir = tempDir();
      const outside = path.join(tempDir(), 'victim');
      fs.writeFileSync(outside, 'untouched');
      fs.symlinkSync(outside, path.join(dir, 'index.json'));
      site.slowMs = SLOW_MS;
      try {
        const run = await cli(['crawl-site', `${site.origin()}/`, ...crawlArgs, '-o', dir], key, {
          interrupt: (ctrlC, stderr) => {
            // Once the crawl has started, as a user would press Ctrl-C while it runs.
            const pressed = setInterval(() => {
              if (stderr().includes('started')) {
                clearInterval(pressed);
                ctrlC();
              }
            }, 20);
          },
        });
        expect(run.code).toBe(130);
        const id = /^(crawl_\S+) started/.exec(run.stderr)?.[1] ?? '';
        expect(run.stderr).toContain(`webcap: interrupted: crawl ${id} cancelled;`);
        expect((await webcap(key).crawl.get(id)).status).toBe('cancelled');
        expect(fs.readFileSync(outside, 'utf8')).toBe('untouched');
        expect(fs.lstatSync(path.join(dir, 'index.json')).isFile()).toBe(true);
        expect(JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8'))).toMatchObject({
          status: 'cancelled',
        });
        await webcap(key).crawl.wait(id, { intervalMs: 100, timeoutMs: HANG_MS });
      } finally {
        site.slowMs = 0;
      }
    });

    it('crawl-status and crawl-cancel; usage errors exit 2 before anything is sent', async () => {
      const key = await newAccountKey(t, 'cli-status', 100);
      const client = webcap(key);
      const { crawl_id: id } = await client.crawl.start({ url: `${site.origin()}/`, ...CRAWL });
      await client.crawl.wait(id, { intervalMs: 100, timeoutMs: HANG_MS });
      const status = await cli(['crawl-status', id], key);
      expect(status).toMatchObject({ code: 0, stderr: '' });
      expect(status.stdout).toBe(
        `${id}\tcompleted\t${site.origin()}/\npages: 5 discovered, 5 completed, 0 failed, 0 skipped, 0 running; 5 credits used\n`,
      );
      const json = JSON.parse((await cli(['crawl-status', id, '--limit', '2', '--json'], key)).stdout) as {
        pages: unknown[];
      };
      expect(json.pages).toHaveLength(2);
      const cancel = await cli(['crawl-cancel', id], key);
      expect(cancel.code).toBe(1);
      expect(cancel.stderr).toMatch(/^webcap: 409 /);
      const before = (await client.usage()).total_used;
      const usage = async (args: string[], message: string) => {
        const run = await cli(args, key);
        expect(run).toMatchObject({ code: 2 });
        expect(run.stderr).toContain(message);
      };
      await usage(['crawl-site', `${site.origin()}/`], "required option '-o, --output <dir>' not specified");
      await usage(
        ['crawl-site', `${site.origin()}/`, '--limit', '0', '-o', tempDir()],
        '--limit must be >= 1',
      );
      await usage(
        ['crawl-site', `${site.origin()}/`, '--sitemap', 'all', '-o', tempDir()],
        '--sitemap must be one of',
      );
      await usage(['crawl-status', '../etc'], 'ID must be a crawl id');
      await usage(['crawl-status', id, '--limit', '500'], '--limit must be a whole number from 1 to 100');
      expect((await client.usage()).total_used).toBe(before);
    });
  });

  describe('MCP', () => {
    async function viaHttp(key: string): Promise<Client> {
      const client = new Client({ name: 'webcap-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
        { timeout: HANG_MS },
      );
      return client;
    }

    /** The tools on the SDK (`webcap mcp --server`), over an in-memory transport. */
    async function viaSdk(key: string): Promise<Client> {
      const server = createMcpServer(new RemoteBackend(webcap(key)), createLogger('error'));
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'webcap-test', version: '1' });
      await client.connect(clientSide, { timeout: HANG_MS });
      return client;
    }

    const call = async (client: Client, name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: HANG_MS })) as CallToolResult;

    for (const [door, slug, connect] of [
      ['in process (/mcp)', 'mcp-http', viaHttp],
      ['through the SDK', 'mcp-sdk', viaSdk],
    ] as const) {
      it(`crawl_start answers the id; crawl_status the counts and pages, read on by cursor (${door})`, async () => {
        const key = await newAccountKey(t, slug, 100);
        const client = await connect(key);
        try {
          const started = textOf(await call(client, 'crawl_start', { url: `${site.origin()}/`, ...CRAWL }));
          const id = /crawl_id "(crawl_[^"]+)"/.exec(started)?.[1] ?? '';
          expect(started).toBe(
            `Crawl ${id} is queued. Call crawl_status with crawl_id "${id}" (free) to follow it and read its pages; each page fetched costs 1 credit.`,
          );
          await webcap(key).crawl.wait(id, { intervalMs: 100, timeoutMs: HANG_MS });
          const first = textOf(await call(client, 'crawl_status', { crawl_id: id, limit: 3 }));
          expect(first).toContain(
            `crawl ${id}: completed from ${site.origin()}/\npages: 5 discovered, 5 completed, 0 failed, 0 skipped, 0 running; 5 credits used`,
          );
          expect(first).toContain('3 pages:');
          const cursor = /More: call crawl_status with cursor "(\d+)"\.$/.exec(first)?.[1];
          expect(cursor).toBeDefined();
          const second = textOf(await call(client, 'crawl_status', { crawl_id: id, cursor }));
          expect(second).toContain(`2 pages after cursor "${cursor}":`);
          expect(second.endsWith('All pages are read.')).toBe(true);
          const listed = [
            ...`${first}\n${second}`.matchAll(
              /^## \d+\. (Home|Doc \d) (\S+) \(completed, HTTP 200, depth \d\)$/gm,
            ),
          ];
          expect(pathsOf(listed.map((match) => ({ url: match[2] as string })))).toEqual(PATHS);
          expect(`${first}\n${second}`).toContain('This is Doc 7, a page of the test site.');
          const bad = await call(client, 'crawl_start', { url: `${site.origin()}/`, limit: 0 });
          expect(bad.isError).toBe(true);
          expect(textOf(bad)).toMatch(/^400 .*limit/);
          const missing = await call(client, 'crawl_status', { crawl_id: 'crawl_unknown' });
          expect(missing.isError).toBe(true);
          expect(textOf(missing)).toMatch(/^404 /);
        } finally {
          await client.close();
        }
      });
    }
  });
});
