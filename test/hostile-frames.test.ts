import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.js';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { browserPool, newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * Frames and downloads (docs/capture.md, "Hostile pages"). First, frames inside the page that go where the main frame may not:
 * an iframe of the same site (the page's own renderer) and one of another site (a renderer of its
 * own), each navigating itself or submitting a form to file:, chrome: or view-source:. The render
 * ends as it does for the main frame: 400 blocked, unbilled. Through GET /v1/capture with real
 * Chromium; every page is served by the test on 127.0.0.1.
 */

const NAVIGATION_TIMEOUT_MS = 5000;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const html =
  (body: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><meta charset="utf-8"></head><body>${body}</body></html>`);
  };

const refused = (what: string) =>
  `Bad Request: blocked by the network policy: a frame of the page navigated to a ${what} URL; only http and https are allowed`;

describe('frames that navigate to refused schemes', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;

  const inner: Record<string, string> = {
    'form-file': `<form action="file:///etc/passwd"></form><script>document.forms[0].submit()</script>`,
    'location-file': `<script>location = 'file:///etc/passwd'</script>`,
    'location-chrome': `<script>location = 'chrome://settings'</script>`,
    'link-view-source': `<a href="view-source:http://127.0.0.1/">src</a><script>document.links[0].click()</script>`,
    'meta-file': `<meta http-equiv="refresh" content="0;url=file:///etc/passwd"><p>inner</p>`,
  };

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://fixture');
      const [, kind, name] = url.pathname.split('/');
      if (kind === 'inner' && name !== undefined && inner[name] !== undefined)
        return html(inner[name])(req, res);
      if (kind === 'outer' && name !== undefined) {
        // The frame on this site, or on another one (a renderer process of its own).
        const host = url.searchParams.get('host') ?? '127.0.0.1';
        return html(`<p>outer</p><iframe src="http://${host}:${site.port}/inner/${name}"></iframe>`)(
          req,
          res,
        );
      }
      if (kind === 'nested') {
        return html(`<iframe src="http://elsewhere.webcap.test:${site.port}/outer/form-file"></iframe>`)(
          req,
          res,
        );
      }
      res.writeHead(404).end();
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '1',
        NAVIGATION_TIMEOUT_MS: String(NAVIGATION_TIMEOUT_MS),
      },
      resolver: tableResolver({ 'elsewhere.webcap.test': ['127.0.0.1'] }),
    });
    key = await newAccountKey(t, 'frames', 1000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;
  async function capture(pathname: string): Promise<{ res: LightMyRequestResponse; billed: number }> {
    const before = await used();
    const res = await t.runtime.app.inject({
      url: `/v1/capture?${new URLSearchParams({ url: `http://127.0.0.1:${site.port}${pathname}` })}`,
      headers: { 'x-api-key': key },
    });
    return { res, billed: (await used()) - before };
  }
  function expectBlocked(outcome: { res: LightMyRequestResponse; billed: number }, error: string) {
    expect(outcome.res.statusCode, outcome.res.body.slice(0, 300)).toBe(400);
    expect(outcome.res.json()).toEqual({ error });
    expect(outcome.billed).toBe(0);
  }

  describe.each([
    ['of the same site', '127.0.0.1'],
    ['of another site', 'elsewhere.webcap.test'],
  ])('a frame %s', (_what, host) => {
    it.each([
      ['submits a form to file:', 'form-file', 'file:'],
      ["sets location = 'file:///etc/passwd'", 'location-file', 'file:'],
      ["sets location = 'chrome://settings'", 'location-chrome', 'chrome:'],
      ['clicks a link to view-source:', 'link-view-source', 'view-source:'],
      ['refreshes itself to file:', 'meta-file', 'file:'],
    ])('that %s: 400 blocked, unbilled', async (_how, name, scheme) => {
      expectBlocked(await capture(`/outer/${name}?host=${host}`), refused(scheme));
    });
  });

  it('a frame inside a frame of another site, submitting a form to file: 400 blocked, unbilled', async () => {
    expectBlocked(await capture('/nested'), refused('file:'));
  });

  it('the page of an ordinary frame is captured as usual', async () => {
    inner.plain = '<p>an ordinary frame</p>';
    for (const host of ['127.0.0.1', 'elsewhere.webcap.test']) {
      const { res, billed } = await capture(`/outer/plain?host=${host}`);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['x-webcap-warning']).toBeUndefined();
      expect(billed).toBe(1);
    }
  });
});

/*
 * Downloads on Debian's full browser (CHROMIUM_PATH=/usr/lib/chromium/chromium), which, unlike the
 * headless shell, fetches a download and writes it to a temporary file in $TMPDIR (then
 * ~/Downloads) even when told to deny downloads. The browser starts with HOME and TMPDIR pointing
 * at directories of the test's own, watched: every file that appears there is read at once, and
 * none may hold the download's bytes.
 */
describe('downloads on the full browser', () => {
  const MARKER = 'WEBCAP-DOWNLOAD-BYTES ';
  const FILE = Buffer.from(MARKER.repeat(4096));
  let site: TestServer;
  let t: TestRuntime;
  let key: string;
  let home: string;
  const watchers: fs.FSWatcher[] = [];
  /** Files seen in the watched directories that held the download's bytes. */
  const written: string[] = [];
  /** The page being captured, named beside a file that held the download's bytes. */
  let capturing = 'nothing';
  const hits = new Map<string, number>();

  const pages: Record<string, Handler> = {
    '/normal': html('<p>an ordinary page</p>'),
    '/file.bin': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(FILE);
    },
    '/file.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(FILE);
    },
    '/attachment': (_req, res) => {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-disposition': 'attachment; filename="saved.html"',
      });
      res.end(FILE);
    },
    '/link-download': html(
      '<a href="/file.bin" download="saved.bin">get</a><script>document.links[0].click()</script>',
    ),
    '/link-download-html': html(
      '<a href="/file.html" download="saved.html">get</a><script>document.links[0].click()</script>',
    ),
    '/location-binary': html(`<p>leaving</p><script>location = '/file.bin'</script>`),
    '/frame-attachment': html('<p>a frame</p><iframe src="/attachment"></iframe>'),
    '/redirect-binary': (_req, res) => {
      res.writeHead(302, { location: '/normal', 'content-type': 'application/octet-stream' });
      res.end('moved');
    },
  };

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const pathname = new URL(req.url ?? '/', 'http://fixture').pathname;
      hits.set(pathname, (hits.get(pathname) ?? 0) + 1);
      const handler = pages[pathname];
      if (handler !== undefined) return handler(req, res);
      res.writeHead(404).end();
    });
    t = await startTestRuntime('sqlite', {
      env: {
        CHROMIUM_PATH: '/usr/lib/chromium/chromium',
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '1',
        NAVIGATION_TIMEOUT_MS: String(NAVIGATION_TIMEOUT_MS),
      },
    });
    key = await newAccountKey(t, 'downloads', 1000);
    home = tempDir('webcap-home-');
    const tmp = tempDir('webcap-tmp-');
    for (const dir of [home, tmp]) {
      const watcher = fs.watch(dir, { recursive: true }, (_event, name) => {
        if (name === null) return;
        const file = path.join(dir, name);
        try {
          if (fs.readFileSync(file).includes(MARKER)) written.push(`${file} (while capturing ${capturing})`);
        } catch {
          // A directory, or a file already gone: what it held was read when it was written, if ever.
        }
      });
      watchers.push(watcher);
    }
    const saved = { HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
    Object.assign(process.env, { HOME: home, TMPDIR: tmp });
    try {
      await browserPool(t.runtime).warmUp();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
  afterAll(async () => {
    for (const watcher of watchers) watcher.close();
    await t?.close();
    await site?.close();
  });

  const capture = (pathname: string) => {
    capturing = pathname;
    return t.runtime.app.inject({
      url: `/v1/capture?${new URLSearchParams({ url: `http://127.0.0.1:${site.port}${pathname}` })}`,
      headers: { 'x-api-key': key },
    });
  };

  it.each([
    ['a download link', '/link-download'],
    ['a download link to an HTML file', '/link-download-html'],
    ['a script sending the page to a binary file', '/location-binary'],
    ['a frame whose document is an attachment', '/frame-attachment'],
    ['a redirect whose own body is binary, to an ordinary page', '/redirect-binary'],
  ])('%s: the page is captured', async (_what, pathname) => {
    const res = await capture(pathname);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
  });

  it('a main document sent as an attachment: 400, as in the headless shell', async () => {
    const res = await capture('/attachment');
    expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
    expect(res.json()).toEqual({ error: 'Bad Request: page could not be loaded (net::ERR_ABORTED)' });
  });

  it('none of them wrote a byte of the download: nothing in ~/Downloads or the temporary directory', async () => {
    // The next render settles whatever the last one left behind before the directories are read.
    expect((await capture('/normal')).statusCode).toBe(200);
    expect((hits.get('/file.bin') ?? 0) + (hits.get('/attachment') ?? 0)).toBeGreaterThan(0);
    expect(written).toEqual([]);
    // The full browser may make ~/Downloads when a download begins; it stays empty.
    const downloads = path.join(home, 'Downloads');
    expect(fs.existsSync(downloads) ? fs.readdirSync(downloads) : []).toEqual([]);
  });
});
