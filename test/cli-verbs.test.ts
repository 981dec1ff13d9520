import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANALYZE_FIELDS,
  CAPTURE_FIELDS,
  CONTENT_FIELDS,
  CRAWL_FIELDS,
  EXTRACT_FIELDS,
  MAP_FIELDS,
  WEBSITE_CRAWLER_FIELDS,
} from '../src/cli/call-fields.js';
import { runWebcap } from '../src/cli/program.js';
import { pngSize } from './helpers/chromium.js';
import { tempDir } from './helpers/databases.js';
import { closedPort, startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

const PAGE = `<!doctype html><html lang="en"><head><title>CLI fixture</title>
<style>html, body { margin: 0; background: #fff; }</style></head>
<body><h1>Webcap from the shell</h1><p>Write to hello@webcap-cli.com for a demo of the command line.</p></body></html>`;

/** An article among a site's menus and footer: what `webcap content` prints by default is the article. */
const MENUS = `<!doctype html><html lang="en"><head><title>Tide tables</title></head><body>
<header><nav><ul><li><a href="/">Home</a></li><li><a href="/pricing">Pricing plans</a></li>
<li><a href="/careers">Careers at Acme Harbour</a></li><li><a href="/press">Press room</a></li></ul></nav></header>
<main><article><h1>Tide tables</h1>
<p>The northern harbour keeps its tide tables on a slate by the pier, where the harbour master chalks each high water before dawn.</p>
<p>Fishermen read it on their way to the boats, and the ferry crew check it twice before the first crossing of the day.</p>
<p>In winter the slate moves inside the harbour office, and the times are read out on the radio at six every morning.</p>
</article></main>
<footer><p>Acme Harbour Ltd, registered in the harbour district.</p><a href="/privacy">Privacy policy</a></footer>
</body></html>`;

const VERSION = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version;

/*
 * The API verbs of `webcap` (docs/cli.md) through runWebcap in this process, against a real
 * listening service (real Chromium, SQLite) and pages served by the test on 127.0.0.1. The verbs
 * are clients: the configuration they are given throws if anything reads it.
 */
describe('webcap API verbs', () => {
  let site: TestServer;
  let t: TestRuntime;
  let server: string;
  let key: string;
  let pageUrl: string;
  let silentUrl: string;

  beforeAll(async () => {
    site = await startServer((req, res) => {
      // /silent never answers: the crawler's fetch and the browser's navigation time out on it.
      if (req.url === '/silent') return;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(req.url === '/menus' ? MENUS : PAGE);
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        NAVIGATION_TIMEOUT_MS: '3000',
        FETCH_HEADERS_TIMEOUT_MS: '500',
        LOG_LEVEL: 'warn',
      },
    });
    server = await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
    key = await newAccountKey(t, 'cli', 1000);
    pageUrl = `http://127.0.0.1:${site.port}/page`;
    silentUrl = `http://127.0.0.1:${site.port}/silent`;
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  interface Run {
    readonly code: number;
    readonly stdout: string;
    readonly stderr: string;
    /** What went to stdout as bytes (a capture without -o). */
    readonly bytes: Buffer;
  }

  /** `webcap ARGS` in this process; stdout and stderr are terminals when `tty`, the env is WEBCAP_URL and WEBCAP_API_KEY unless given. */
  async function webcap(
    args: readonly string[],
    options: { tty?: boolean; env?: Record<string, string> } = {},
  ): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const chunks: Uint8Array[] = [];
    const code = await runWebcap(
      args,
      () => {
        throw new Error('an API verb read the service configuration');
      },
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        stdoutBytes: (bytes) => {
          chunks.push(bytes);
        },
        stdoutIsTTY: options.tty ?? false,
        stderrIsTTY: options.tty ?? false,
        env: options.env ?? { WEBCAP_URL: server, WEBCAP_API_KEY: key },
      },
    );
    return { code, stdout, stderr, bytes: Buffer.concat(chunks) };
  }

  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;

  describe('capture', () => {
    it('-o FILE writes the PNG at the viewport asked for (either spelling) and says so on stderr', async () => {
      const file = path.join(tempDir(), 'shot.png');
      const run = await webcap([
        'capture',
        pageUrl,
        '-o',
        file,
        '--viewport-width',
        '800',
        '--viewport_height=600',
      ]);
      expect(run).toMatchObject({ code: 0, stdout: '' });
      const png = fs.readFileSync(file);
      expect(pngSize(png)).toEqual({ width: 800, height: 600 });
      expect(run.stderr).toBe(`wrote ${png.byteLength} bytes (image/png) to ${file}\n`);
    });

    it('without -o writes the bytes to stdout when it is not a terminal', async () => {
      const run = await webcap(['capture', pageUrl, '--width', '640', '--height', '480', '--format', 'png']);
      expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(pngSize(run.bytes)).toEqual({ width: 640, height: 480 });
    });

    it('refuses to write an image to a terminal before calling, unless told with -o -', async () => {
      const before = await used();
      const run = await webcap(['capture', pageUrl], { tty: true });
      expect(run).toEqual({
        code: 2,
        stdout: '',
        stderr:
          'webcap: the answer is an image or PDF, not written to a terminal: use -o FILE, or redirect stdout\n',
        bytes: Buffer.alloc(0),
      });
      expect(await used()).toBe(before);
      const forced = await webcap(['capture', pageUrl, '-o', '-', '--full-page'], { tty: true });
      expect(forced.code).toBe(0);
      expect(pngSize(forced.bytes).width).toBe(1280);
    });

    it('--json prints the JSON answer with its hosted screenshot_url; with -o, what was written', async () => {
      const run = await webcap(['capture', pageUrl, '--json'], { tty: true });
      expect(run.code).toBe(0);
      const answer = JSON.parse(run.stdout) as { success: boolean; screenshot_url: string };
      expect(answer).toMatchObject({ success: true, screenshot_url: expect.stringContaining('/v1/files/') });
      const hosted = await fetch(answer.screenshot_url);
      expect(pngSize(new Uint8Array(await hosted.arrayBuffer()))).toEqual({ width: 1280, height: 1024 });

      const file = path.join(tempDir(), 'shot.jpg');
      const written = await webcap(['capture', pageUrl, '-o', file, '--format', 'jpeg', '--json']);
      expect(written.code).toBe(0);
      expect(JSON.parse(written.stdout)).toEqual({
        file,
        bytes: fs.statSync(file).size,
        content_type: 'image/jpeg',
        cache: null,
      });
      expect(fs.readFileSync(file).subarray(0, 3).toString('hex')).toBe('ffd8ff');
    });

    it('a bad value or an unknown option is a usage error naming it, before any call', async () => {
      const before = await used();
      expect(await webcap(['capture', pageUrl, '--delay', '11', '-o', '/dev/null'])).toMatchObject({
        code: 2,
        stderr: 'webcap: --delay must be <= 10\n',
      });
      expect(await webcap(['capture', pageUrl, '--format', 'tiff', '-o', '/dev/null'])).toMatchObject({
        code: 2,
        stderr: 'webcap: --format must be one of png, jpeg, jpg, webp, avif, pdf, mp4, webm, gif\n',
      });
      expect(await webcap(['capture', pageUrl, '--pdf-scale', '3', '-o', '/dev/null'])).toMatchObject({
        code: 2,
        stderr: 'webcap: --pdf-scale must be <= 2\n',
      });
      expect(await webcap(['capture', pageUrl, '--viewport-width', 'wide', '-o', '/dev/null'])).toMatchObject(
        {
          code: 2,
          stderr: 'webcap: --viewport-width must be integer\n',
        },
      );
      expect(await webcap(['capture', '', '-o', '/dev/null'])).toMatchObject({
        code: 2,
        stderr: 'webcap: URL must NOT have fewer than 1 characters\n',
      });
      const unknown = await webcap(['capture', pageUrl, '--nope']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("error: unknown option '--nope'");
      const missing = await webcap(['capture']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toBe(
        'webcap: give the page: a URL, --html, --markdown, --html-file or --markdown-file\n',
      );
      const dir = await webcap(['capture', pageUrl, '-o', '/nonexistent-dir/shot.png']);
      expect(dir).toMatchObject({
        code: 2,
        stderr:
          'webcap: -o /nonexistent-dir/shot.png: its directory does not exist or cannot be written to\n',
      });
      expect(await used()).toBe(before);
    });
  });

  describe('content, analyze, website-crawler, usage', () => {
    it('content prints the Markdown; --json the whole envelope', async () => {
      const run = await webcap(['content', pageUrl]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('# Webcap from the shell');
      expect(run.stdout).toContain('Write to hello@webcap-cli.com for a demo of the command line.');
      const json = await webcap(['content', pageUrl, '--json', '--include-html']);
      const envelope = JSON.parse(json.stdout);
      expect(envelope).toMatchObject({
        success: true,
        data: {
          url: pageUrl,
          statusCode: 200,
          metadata: { title: 'CLI fixture', language: 'en' },
          markdown: expect.stringContaining('# Webcap from the shell'),
          html: expect.stringContaining('<h1>Webcap from the shell</h1>'),
        },
      });
    });

    it('content prints the main content by default; --whole-page the menus too', async () => {
      const menusUrl = `http://127.0.0.1:${site.port}/menus`;
      const main = await webcap(['content', menusUrl]);
      expect(main.code, main.stderr).toBe(0);
      expect(main.stdout).toContain('where the harbour master chalks each high water before dawn.');
      expect(main.stdout).not.toContain('Careers at Acme Harbour');
      const whole = await webcap(['content', menusUrl, '--whole-page']);
      expect(whole.code, whole.stderr).toBe(0);
      expect(whole.stdout).toContain('where the harbour master chalks each high water before dawn.');
      expect(whole.stdout).toContain('Careers at Acme Harbour');
      const both = await webcap(['content', menusUrl, '--whole-page', '--use-defuddle']);
      expect(both.code).not.toBe(0);
      expect(both.stderr).toContain('--whole-page');
    });

    it('screenshot steps: their links in the JSON answer, or beside the Markdown on stderr', async () => {
      const actions = JSON.stringify([{ type: 'screenshot' }, { type: 'screenshot', full_page: true }]);
      const shot = await webcap(['capture', pageUrl, '--json', '--actions', actions]);
      expect(shot.code, shot.stderr).toBe(0);
      const links = (JSON.parse(shot.stdout) as { actions: { screenshots: string[] } }).actions.screenshots;
      expect(links).toHaveLength(2);
      const hosted = await fetch(links[0] ?? '');
      expect(pngSize(new Uint8Array(await hosted.arrayBuffer()))).toEqual({ width: 1280, height: 1024 });
      const read = await webcap(['content', pageUrl, '--actions', actions]);
      expect(read.code, read.stderr).toBe(0);
      expect(read.stdout).toContain('# Webcap from the shell');
      expect(read.stderr).toMatch(
        /^actions screenshot 1: http:\/\/\S+\/v1\/files\/\S+\nactions screenshot 2: /m,
      );
      // Without --json a capture answers the image, which cannot carry them: the API's 400.
      const image = await webcap([
        'capture',
        pageUrl,
        '-o',
        path.join(tempDir(), 'x.png'),
        '--actions',
        actions,
      ]);
      expect(image.code).toBe(1);
      expect(image.stderr).toContain('actions[0] (screenshot): needs a JSON answer');
    });

    it('--html-file and --markdown-file send a file as the page (in a POST body); a URL beside one is a 400', async () => {
      const dir = tempDir();
      const htmlFile = path.join(dir, 'page.html');
      const markdownFile = path.join(dir, 'page.md');
      fs.writeFileSync(htmlFile, `<h1>From a file</h1><p>${'padding '.repeat(4000)}</p>`);
      fs.writeFileSync(markdownFile, '# Notes\n\n- one\n- two\n');
      const html = await webcap(['content', '--html-file', htmlFile, '--whole-page']);
      expect(html.code, html.stderr).toBe(0);
      expect(html.stdout.startsWith('# From a file\n')).toBe(true);
      const markdown = await webcap(['content', '--markdown-file', markdownFile, '--json']);
      expect(JSON.parse(markdown.stdout).data).toMatchObject({
        url: 'http://webcap.invalid/',
        metadata: { title: 'Notes' },
        markdown: expect.stringContaining('- one\n- two'),
      });
      const both = await webcap(['content', pageUrl, '--markdown-file', markdownFile]);
      expect(both.code).toBe(1);
      expect(both.stderr).toContain('url and markdown were both given');
      const unreadable = await webcap(['capture', '--html-file', path.join(dir, 'none.html'), '-o', '-']);
      expect(unreadable.code).toBe(2);
      expect(unreadable.stderr).toMatch(/^webcap: --html-file .*none\.html: ENOENT/);
      const twice = await webcap(['content', '--html', '<p>x</p>', '--html-file', htmlFile]);
      expect(twice).toMatchObject({ code: 2, stderr: 'webcap: --html and --html-file: give one of them\n' });
    });

    it('analyze answers every --field asked for, and refuses a reserved one before calling', async () => {
      const run = await webcap([
        'analyze',
        pageUrl,
        '--field',
        'contact_email=the address to write to',
        '--json',
      ]);
      expect(run.code).toBe(0);
      const { data } = JSON.parse(run.stdout) as { data: Record<string, unknown> };
      expect(data.emails).toEqual(['hello@webcap-cli.com']);
      expect(typeof data.contact_email).toBe('string');
      const human = await webcap(['analyze', pageUrl]);
      expect(human.stdout).toContain('emails: hello@webcap-cli.com\n');
      expect(await webcap(['analyze', pageUrl, '--field', 'summary=again'])).toMatchObject({
        code: 2,
        stderr: 'webcap: --field: custom_response field "summary" is a reserved name\n',
      });
      expect(await webcap(['analyze', pageUrl, '--field', 'no-equals-sign'])).toMatchObject({
        code: 2,
        stderr: 'webcap: --field must be name=meaning (got "no-equals-sign")\n',
      });
    });

    it('extract reads --rules FILE and prints the fields; a wrong rule is a usage error naming its path', async () => {
      const rulesFile = path.join(tempDir(), 'rules.json');
      fs.writeFileSync(rulesFile, JSON.stringify({ title: 'h1', missing: '.none' }));
      const human = await webcap(['extract', pageUrl, '--rules', rulesFile]);
      expect(human).toMatchObject({
        code: 0,
        stdout: `${JSON.stringify({ title: 'Webcap from the shell', missing: null }, null, 2)}\n`,
        stderr: 'webcap: warning: extract_rules.missing: the selector ".none" matched nothing\n',
      });
      const json = await webcap(['extract', pageUrl, '--extract-rules', '{"lead":"p"}', '--json']);
      expect(JSON.parse(json.stdout)).toEqual({
        success: true,
        data: { lead: 'Write to hello@webcap-cli.com for a demo of the command line.' },
      });
      expect(await webcap(['extract', pageUrl, '--extract-rules', '{"a":{"selector":"a["}}'])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^webcap: extract_rules\.a\.selector is not a CSS selector/),
      });
      expect(await webcap(['extract', pageUrl])).toMatchObject({
        code: 2,
        stderr: 'webcap: give a schema or rules: --schema FILE, --rules FILE or --extract-rules JSON\n',
      });
    });

    it('extract reads --schema FILE; a wrong schema is a usage error naming its path', async () => {
      const schemaFile = path.join(tempDir(), 'schema.json');
      const schema = { type: 'object', properties: { emails: { type: 'array', items: { type: 'string' } } } };
      fs.writeFileSync(schemaFile, JSON.stringify(schema));
      const json = await webcap(['extract', pageUrl, '--schema', schemaFile, '--json']);
      expect(json).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(json.stdout)).toEqual({ success: true, data: { emails: ['hello@webcap-cli.com'] } });
      const rulesFile = path.join(tempDir(), 'rules.json');
      fs.writeFileSync(rulesFile, '{"title":"h1"}');
      expect(await webcap(['extract', pageUrl, '--schema', schemaFile, '--rules', rulesFile])).toMatchObject({
        code: 2,
        stderr: 'webcap: --schema, --rules and --extract-rules: give one of them\n',
      });
      fs.writeFileSync(
        schemaFile,
        JSON.stringify({ type: 'object', properties: { a: { type: 'string', pattern: '^a' } } }),
      );
      expect(await webcap(['extract', pageUrl, '--schema', schemaFile])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^webcap: schema\.properties\.a\.pattern is not supported/),
      });
      // content with the json format prints the data rather than the Markdown.
      const content = await webcap([
        'content',
        pageUrl,
        '--formats',
        'json',
        '--extract-rules',
        '{"title":"h1"}',
      ]);
      expect(content).toMatchObject({
        code: 0,
        stdout: `${JSON.stringify({ title: 'Webcap from the shell' }, null, 2)}\n`,
      });
    });

    it('website-crawler prints the response in short, or the page source with --return-page-source', async () => {
      const run = await webcap(['website-crawler', pageUrl]);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toBe(
        `200 ${pageUrl}\ncontent-type: text/html; charset=utf-8\nsize: ${Buffer.byteLength(PAGE)} bytes\n`,
      );
      const source = await webcap(['website-crawler', pageUrl, '--return_page_source']);
      expect(source.stdout).toBe(`${PAGE}\n`);
    });

    it('usage prints the account; --json the API record as it is', async () => {
      const json = await webcap(['usage', '--json']);
      expect(json.code).toBe(0);
      const served = (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json();
      expect(JSON.parse(json.stdout)).toEqual(served);
      const human = await webcap(['usage']);
      expect(human.stdout).toContain('account cli (cli), key ');
      expect(human.stdout).toContain(`remaining ${served.remaining}, used ${served.total_used} this period`);
    });

    it('--server and --key win over WEBCAP_URL and WEBCAP_API_KEY', async () => {
      const port = await closedPort();
      const run = await webcap(['usage', '--json', '--server', server, '--key', key], {
        env: { WEBCAP_URL: `http://127.0.0.1:${port}`, WEBCAP_API_KEY: 'wrong' },
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).account.slug).toBe('cli');
    });

    it('--key works but says on stderr that the command line shows it; --key-file keeps it out', async () => {
      const env = { env: { WEBCAP_URL: server } };
      const argument = await webcap(['usage', '--json', '--key', key], env);
      expect(argument.code).toBe(0);
      expect(argument.stderr).toBe(
        'webcap: warning: --key puts the API key in the command line, which other users of this machine can read ' +
          '(ps, /proc/PID/cmdline); set WEBCAP_API_KEY or use --key-file instead\n',
      );
      const file = path.join(tempDir(), 'key');
      fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
      const fromFile = await webcap(['usage', '--json', '--key-file', file], {
        env: { WEBCAP_URL: server, WEBCAP_API_KEY: 'wrong' },
      });
      expect({ code: fromFile.code, stderr: fromFile.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(fromFile.stdout).account.slug).toBe('cli');
    });

    it('--key-file that cannot be read or is empty, or beside --key, is a usage error', async () => {
      const env = { env: { WEBCAP_URL: server } };
      const missing = path.join(tempDir(), 'nothing');
      expect(await webcap(['usage', '--key-file', missing], env)).toMatchObject({
        code: 2,
        stderr: `webcap: --key-file ${missing}: cannot be read (ENOENT)\n`,
      });
      const empty = path.join(tempDir(), 'empty');
      fs.writeFileSync(empty, '\n');
      expect(await webcap(['usage', '--key-file', empty], env)).toMatchObject({
        code: 2,
        stderr: `webcap: --key-file ${empty}: its first line holds no key\n`,
      });
      const both = await webcap(['usage', '--key', key, '--key-file', empty], env);
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('cannot be used with option');
    });
  });

  describe('exit codes', () => {
    it('1 when the API refuses, with its message on one line: 401, 402', async () => {
      expect(await webcap(['usage'], { env: { WEBCAP_URL: server, WEBCAP_API_KEY: 'wc_nope' } })).toEqual({
        code: 1,
        stdout: '',
        stderr: 'webcap: 401 Invalid API Key\n',
        bytes: Buffer.alloc(0),
      });
      const broke = await newAccountKey(t, 'broke', 0);
      const refused = await webcap(['capture', pageUrl, '-o', path.join(tempDir(), 'x.png')], {
        env: { WEBCAP_URL: server, WEBCAP_API_KEY: broke },
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^webcap: 402 Insufficient credits: [^\n]+\n$/);
    });

    it('2 for a server that is not an http(s) URL', async () => {
      expect(await webcap(['usage'], { env: { WEBCAP_URL: 'ftp://x', WEBCAP_API_KEY: key } })).toMatchObject({
        code: 2,
        stderr: 'webcap: WEBCAP_URL must be an http(s) URL (got "ftp://x")\n',
      });
      expect(await webcap(['usage', '--server', 'nowhere'])).toMatchObject({
        code: 2,
        stderr: 'webcap: --server must be an http(s) URL (got "nowhere")\n',
      });
    });

    it('3 when the server fails (a 500 of its own) or cannot be reached', async () => {
      const failed = await webcap(['website-crawler', silentUrl]);
      expect(failed.code).toBe(3);
      expect(failed.stderr).toBe('webcap: 500 Internal Error: timeout: the page sent nothing for 500 ms\n');
      const port = await closedPort();
      const unreachable = await webcap(['usage'], { env: { WEBCAP_URL: `http://127.0.0.1:${port}` } });
      expect(unreachable.code).toBe(3);
      expect(unreachable.stderr).toMatch(
        new RegExp(`^webcap: cannot reach http://127\\.0\\.0\\.1:${port}: network error: [^\\n]+\\n$`),
      );
    });
  });

  describe('async calls and jobs', () => {
    it('capture --async prints the job; jobs wait polls it to its end; jobs get and cancel answer as the API', async () => {
      const submitted = await webcap(['capture', pageUrl, '--async', '--json']);
      expect(submitted.code).toBe(0);
      const job = JSON.parse(submitted.stdout) as { job_id: string; status: string };
      expect(job).toMatchObject({ success: true, job_id: expect.stringMatching(/^job_/), status: 'queued' });

      const waited = await webcap(['jobs', 'wait', job.job_id, '--json', '--timeout', '120']);
      expect(waited.code).toBe(0);
      const record = JSON.parse(waited.stdout);
      expect(record).toMatchObject({
        job_id: job.job_id,
        status: 'completed',
        endpoint: '/v1/capture',
        error: null,
        result: { success: true, screenshot_url: expect.stringContaining('/v1/files/') },
      });
      expect(JSON.parse((await webcap(['jobs', 'get', job.job_id, '--json'])).stdout)).toEqual(record);
      const human = await webcap(['jobs', 'get', job.job_id]);
      expect(human.stdout.split('\n')[0]).toBe(
        `${job.job_id}\tcompleted\t/v1/capture\tcreated ${record.created_at}`,
      );

      const cancel = await webcap(['jobs', 'cancel', job.job_id]);
      expect(cancel.code).toBe(1);
      expect(cancel.stderr).toMatch(/^webcap: 409 Conflict: [^\n]+\n$/);
    });

    it('jobs wait prints what the verb prints: the Markdown, the link of a capture (-o: its file), the extracted data', async () => {
      const jobOf = async (args: readonly string[]) =>
        (JSON.parse((await webcap([...args, '--async', '--json'])).stdout) as { job_id: string }).job_id;
      const content = await jobOf(['content', pageUrl]);
      const capture = await jobOf(['capture', pageUrl]);
      const extract = await jobOf(['extract', pageUrl, '--extract-rules', '{"title":"h1","none":".none"}']);

      const markdown = await webcap(['jobs', 'wait', content, '--timeout', '120']);
      const sync = await webcap(['content', pageUrl]);
      // Its warnings too: this short page has no main content, which `content` now reads by default.
      expect(markdown).toMatchObject({ code: 0, stdout: sync.stdout, stderr: sync.stderr });
      expect(markdown.stdout).toContain('# Webcap from the shell');

      const link = await webcap(['jobs', 'wait', capture, '--timeout', '120']);
      const record = JSON.parse((await webcap(['jobs', 'get', capture, '--json'])).stdout);
      expect(link).toMatchObject({ code: 0, stdout: `${record.result.screenshot_url}\n`, stderr: '' });
      // -o writes the file the link serves, as `capture -o` does.
      const file = path.join(tempDir(), 'job.png');
      const written = await webcap(['jobs', 'wait', capture, '-o', file]);
      const png = fs.readFileSync(file);
      expect(written).toMatchObject({
        code: 0,
        stdout: '',
        stderr: `wrote ${png.byteLength} bytes (image/png) to ${file}\n`,
      });
      expect(png.byteLength).toBe(record.result.size);
      expect(pngSize(png)).toEqual({ width: record.result.width, height: record.result.height });
      expect(await webcap(['jobs', 'wait', content, '-o', file])).toMatchObject({
        code: 2,
        stderr: `webcap: -o is for a capture job's file; ${content} is a /v1/content job: redirect stdout\n`,
      });

      expect(await webcap(['jobs', 'wait', extract, '--timeout', '120'])).toMatchObject({
        code: 0,
        stdout: `${JSON.stringify({ title: 'Webcap from the shell', none: null }, null, 2)}\n`,
        stderr: 'webcap: warning: extract_rules.none: the selector ".none" matched nothing\n',
      });
      // --json is the record as the API answers it.
      expect(JSON.parse((await webcap(['jobs', 'wait', capture, '--json'])).stdout)).toEqual(record);
    });

    it('a job that fails exits as its error; a wait that runs out of time exits 3; a bad id is a usage error', async () => {
      const submitted = await webcap(['content', silentUrl, '--async']);
      expect(submitted.code).toBe(0);
      const id = /^(job_\S+)\tqueued\n/.exec(submitted.stdout)?.[1] ?? '';
      expect(submitted.stdout).toBe(`${id}\tqueued\nwait for it: webcap jobs wait ${id}\n`);
      const failed = await webcap(['jobs', 'wait', id]);
      expect(failed.code).toBe(3);
      expect(failed.stdout).toContain(`${id}\tfailed\t/v1/content`);
      expect(failed.stderr).toMatch(
        new RegExp(`^webcap: job ${id} failed: 500 Internal Error: timeout[^\\n]*\\n$`),
      );

      // Delayed 5 s by the page's own parameter, the job is still running when the wait gives up.
      const slow = JSON.parse(
        (await webcap(['capture', pageUrl, '--delay', '5', '--async', '--json'])).stdout,
      );
      const gaveUp = await webcap(['jobs', 'wait', slow.job_id, '--timeout', '0.5']);
      expect(gaveUp.code).toBe(3);
      expect(gaveUp.stderr).toMatch(
        new RegExp(`^webcap: job ${slow.job_id} is still (queued|running) after 500 ms\\n$`),
      );

      expect(await webcap(['jobs', 'get', '../admin'])).toMatchObject({
        code: 2,
        stderr: 'webcap: ID must be a job id such as job_… (got "../admin")\n',
      });
      expect(await webcap(['jobs', 'wait', slow.job_id, '--timeout', 'soon'])).toMatchObject({ code: 2 });
      expect(await webcap(['capture', pageUrl, '--async', '-o', 'shot.png'])).toMatchObject({
        code: 2,
        stderr: 'webcap: -o is for the file itself; a job answers JSON: use jobs wait --json\n',
      });
      expect(await webcap(['content', pageUrl, '--webhook-url', 'http://127.0.0.1/hook'])).toMatchObject({
        code: 2,
        stderr: 'webcap: --webhook-url needs --async\n',
      });
    });
  });

  describe('the program', () => {
    it('--version prints the package version; --help lists the verbs and the exit codes', async () => {
      expect(await webcap(['--version'])).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
      const help = await webcap(['--help']);
      expect(help.code).toBe(0);
      for (const verb of [
        'capture',
        'content',
        'analyze',
        'extract',
        'website-crawler',
        'crawl-site',
        'crawl-status',
        'crawl-cancel',
        'usage',
        'jobs',
      ]) {
        expect(help.stdout).toMatch(new RegExp(`\\n  ${verb} `));
      }
      expect(help.stdout).toContain('  2  usage or configuration error (nothing was sent)\n');
      const capture = await webcap(['capture', '--help']);
      expect(capture.stdout).toContain('--full-page');
      expect(capture.stdout).toContain('--wait-until <value>');
    });

    it('shows the elapsed time on a terminal only, and erases it at the end', async () => {
      const onTerminal = await webcap(['usage', '--json'], { tty: true });
      expect(onTerminal.code).toBe(0);
      expect(onTerminal.stderr.startsWith('\r\x1b[Kusage 0.0s')).toBe(true);
      expect(onTerminal.stderr.endsWith('\r\x1b[K')).toBe(true);
      expect((await webcap(['usage', '--json'])).stderr).toBe('');
    });

    it("each verb's options are the query parameters its endpoint declares in /openapi.json", async () => {
      const doc = (await t.runtime.app.inject({ url: '/openapi.json' })).json() as {
        paths: Record<string, { get?: { parameters?: { in: string; name: string }[] } }>;
      };
      const declared = (p: string) =>
        (doc.paths[p]?.get?.parameters ?? [])
          // A verb sends its key in the header; signed links are `webcap sign`'s (docs/signed-links.md).
          .filter((param) => param.in === 'query' && !['x_api_key', 'key_id', 'expires'].includes(param.name))
          .map((param) => param.name)
          .sort();
      expect(Object.keys(CAPTURE_FIELDS).sort()).toEqual(declared('/v1/capture'));
      expect(Object.keys(CONTENT_FIELDS).sort()).toEqual(declared('/v1/content'));
      expect(Object.keys(ANALYZE_FIELDS).sort()).toEqual(declared('/v1/analyze'));
      expect(Object.keys(EXTRACT_FIELDS).sort()).toEqual(declared('/v1/extract'));
      expect(Object.keys(WEBSITE_CRAWLER_FIELDS).sort()).toEqual(declared('/v1/website/crawler'));
      expect(Object.keys(CRAWL_FIELDS).sort()).toEqual(declared('/v1/crawl'));
      expect(Object.keys(MAP_FIELDS).sort()).toEqual(declared('/v1/map'));
    });
  });
});
