import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processTree, treeMemoryBytes } from '../src/browser/process-tree.js';
import { isAlive } from './helpers/chromium.js';
import { tempDir } from './helpers/databases.js';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import {
  browserPid,
  browserPool,
  newAccountKey,
  startTestRuntime,
  type TestRuntime,
} from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * Pages that attack the renderer rather than the network, through GET /v1/capture with real
 * Chromium; every page is served by the test on 127.0.0.1. For each: the answer is an image of
 * the right size or the 4xx/5xx {"error"} that names why (a refusal is told from a timeout by its
 * message, not by how long it took), a failure is not billed, and the next ordinary capture right
 * after it has the right pixels, on the same browser.
 *
 * Two services, so that no outcome depends on the machine's speed: pages that never finish meet
 * short timeouts, which they reach on any machine; every other page meets timeouts far above what
 * it needs on a slow, loaded machine (a 100 MB image load, a renderer filling its heap).
 */

/** For the pages that never finish: short, to keep the suite quick. */
const NAVIGATION_TIMEOUT_MS = 5000;
const RENDER_TIMEOUT_MS = 7000;
/** For every other page: never reached by a page that finishes, however loaded the machine. */
const ROOMY_NAVIGATION_TIMEOUT_MS = 60_000;
const ROOMY_RENDER_TIMEOUT_MS = 90_000;
/** Low enough to keep the suite quick; the bound is the same code at any value. */
const MAX_FULL_PAGE_HEIGHT_PX = 5000;
/** 50 MB of noise in a real PNG, and 50 MB of zeros claiming to be one. */
const BIG_IMAGE_SIDE_PX = 4096;
const FAKE_IMAGE_BYTES = 50 * 1024 * 1024;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const page =
  (body: string, head = ''): Handler =>
  (_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`);
  };

/** The ordinary page: white, with a red box at (40, 60), 300 x 150. */
const NORMAL_BODY =
  '<style>html,body{margin:0;background:#fff}</style>' +
  '<div style="position:absolute;left:40px;top:60px;width:300px;height:150px;background:rgb(255,0,0)"></div>';

/** A runtime with its own browser, and a key on it. */
interface Service {
  readonly t: TestRuntime;
  readonly key: string;
  readonly browserPid: number;
}

describe('hostile pages', () => {
  let site: TestServer;
  /** Roomy timeouts: every page that finishes (or crashes) does so before them. */
  let roomy: Service;
  /** Short timeouts, for the pages that never finish. */
  let hurried: Service;
  /** Every runtime started, closed at the end even if the start failed part way. */
  const opened: TestRuntime[] = [];
  const hits = new Map<string, number>();
  /** What appeared directly in Chromium's home and temporary directories, and during which test. */
  const created: { path: string; test: string }[] = [];
  const watchers: fs.FSWatcher[] = [];
  let bigPng: Buffer;

  const pages: Record<string, Handler> = {
    '/normal': page(NORMAL_BODY),
    '/loop-inline': page(`${NORMAL_BODY}<script>while (true) {}</script>`),
    '/loop-after-load': page(
      `${NORMAL_BODY}<script>addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0))</script>`,
    ),
    // Blue only when every dialog was dismissed: confirm answered false, prompt null.
    '/dialogs': page(
      `${NORMAL_BODY}<script>
        alert('hello');
        const confirmed = confirm('sure?');
        const answer = prompt('name?', 'default');
        document.documentElement.style.background = confirmed === false && answer === null ? 'rgb(0,0,255)' : 'rgb(255,255,0)';
      </script>`,
    ),
    '/beforeunload': page(
      `${NORMAL_BODY}<script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'stay'; })</script>`,
    ),
    '/popups-open': page(
      `${NORMAL_BODY}<script>for (let i = 0; i < 300; i++) window.open('/popup-target?' + i)</script>`,
    ),
    '/popups-links': page(
      `${NORMAL_BODY}<a id="out" href="/popup-target" target="_blank">out</a>
      <script>for (let i = 0; i < 300; i++) document.getElementById('out').click()</script>`,
    ),
    '/popup-target': page('<p>a popup</p>'),
    '/form-file': page(
      `${NORMAL_BODY}<form action="file:///etc/passwd"></form><script>document.forms[0].submit()</script>`,
    ),
    '/location-file': page(`${NORMAL_BODY}<script>location = 'file:///etc/passwd'</script>`),
    '/location-mailto': page(`${NORMAL_BODY}<script>location = 'mailto:someone@example.com'</script>`),
    '/form-mailto': page(
      `${NORMAL_BODY}<form action="mailto:someone@example.com"></form><script>document.forms[0].submit()</script>`,
    ),
    '/app-link': page(`${NORMAL_BODY}<script>location = 'myapp://open?x=1'</script>`),
    '/meta-file': page(NORMAL_BODY, '<meta http-equiv="refresh" content="0;url=file:///etc/passwd">'),
    '/click-chrome': page(
      `${NORMAL_BODY}<a href="chrome://settings">settings</a><script>document.links[0].click()</script>`,
    ),
    // Another site (its own renderer process) whose page then goes to file:.
    '/cross-site': (_req, res) => {
      res.writeHead(302, { location: `http://elsewhere.webcap.test:${site.port}/location-file` });
      res.end();
    },
    '/redirect-file': (_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    },
    '/attachment': (_req, res) => {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-disposition': 'attachment; filename="hostile-download.html"',
      });
      res.end('<p>a file to save</p>');
    },
    '/archive.zip': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/zip' });
      res.end(randomBytes(64 * 1024));
    },
    '/click-download': page(
      `${NORMAL_BODY}<a href="/archive.zip" download="hostile-download.zip">zip</a><script>document.links[0].click()</script>`,
    ),
    '/print': page(`${NORMAL_BODY}<script>window.print()</script>`),
    // 1000 px bands, red then blue, down 200,000 px.
    '/tall': page(
      '<style>html,body{margin:0}</style><div style="height:200000px;background:repeating-linear-gradient(rgb(255,0,0) 0 1000px, rgb(0,0,255) 1000px 2000px)"></div>',
    ),
    '/big-images': page(
      `${NORMAL_BODY}<img src="/big.png" style="position:absolute;left:400px;top:300px;width:256px;height:256px">
      <img src="/fake.png" style="position:absolute;left:700px;top:300px;width:256px;height:256px">`,
    ),
    '/big.png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': bigPng.length });
      res.end(bigPng);
    },
    '/fake.png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': FAKE_IMAGE_BYTES });
      res.end(Buffer.alloc(FAKE_IMAGE_BYTES));
    },
    // Arrays of doubles on the JavaScript heap until the renderer dies.
    '/oom': page(
      `${NORMAL_BODY}<script>const kept = []; for (;;) kept.push(new Array(1e6).fill(0.5));</script>`,
    ),
    '/drip': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<!doctype html><p>');
      const timer = setInterval(() => res.write('.'), 100);
      res.on('close', () => clearInterval(timer));
    },
    '/stall': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.flushHeaders();
    },
  };

  beforeAll(async () => {
    const raw = randomBytes(BIG_IMAGE_SIDE_PX * BIG_IMAGE_SIDE_PX * 3);
    bigPng = await sharp(raw, { raw: { width: BIG_IMAGE_SIDE_PX, height: BIG_IMAGE_SIDE_PX, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    site = await startServer((req, res) => {
      const pathname = new URL(req.url ?? '/', 'http://fixture').pathname;
      hits.set(pathname, (hits.get(pathname) ?? 0) + 1);
      const handler = pages[pathname];
      if (handler !== undefined) return handler(req, res);
      res.statusCode = 404;
      res.end();
    });
    const runtime = async (navigationTimeoutMs: number, renderTimeoutMs: number) => {
      const t = await startTestRuntime('sqlite', {
        env: {
          WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
          BROWSER_CONCURRENCY: '1',
          NAVIGATION_TIMEOUT_MS: String(navigationTimeoutMs),
          RENDER_TIMEOUT_MS: String(renderTimeoutMs),
          MAX_FULL_PAGE_HEIGHT_PX: String(MAX_FULL_PAGE_HEIGHT_PX),
        },
        resolver: tableResolver({ 'elsewhere.webcap.test': ['127.0.0.1'] }),
      });
      opened.push(t);
      return t;
    };
    const runtimes = {
      roomy: await runtime(ROOMY_NAVIGATION_TIMEOUT_MS, ROOMY_RENDER_TIMEOUT_MS),
      hurried: await runtime(NAVIGATION_TIMEOUT_MS, RENDER_TIMEOUT_MS),
    };
    // Chromium writes a download's first bytes to $HOME/Downloads (the full browser) or $TMPDIR
    // (the headless shell told to deny downloads), and deletes them a moment later: the browser
    // starts with both pointing at directories of the test's own, watched for anything created.
    const home = tempDir('webcap-home-');
    const tmp = tempDir('webcap-tmp-');
    for (const dir of [home, tmp]) {
      const watcher = fs.watch(dir, (_event, name) => {
        if (name !== null)
          created.push({ path: path.join(dir, name), test: expect.getState().currentTestName ?? '' });
      });
      watchers.push(watcher);
    }
    const saved = { HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
    Object.assign(process.env, { HOME: home, TMPDIR: tmp });
    try {
      for (const t of Object.values(runtimes)) await browserPool(t.runtime).warmUp();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    const service = async (t: TestRuntime): Promise<Service> => ({
      t,
      key: await newAccountKey(t, 'hostile', 10_000),
      browserPid: await browserPid(t.runtime, t.logs),
    });
    roomy = await service(runtimes.roomy);
    hurried = await service(runtimes.hurried);
  });
  afterAll(async () => {
    for (const watcher of watchers) watcher.close();
    for (const t of opened) await t.close();
    await site?.close();
  });

  const capture = ({ t, key }: Service, pathname: string, query: Record<string, string> = {}) =>
    t.runtime.app.inject({
      url: `/v1/capture?${new URLSearchParams({ url: `http://127.0.0.1:${site.port}${pathname}`, ...query })}`,
      headers: { 'x-api-key': key },
    });
  const used = async ({ t, key }: Service) =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;

  /** The call on the service (the roomy one unless told), how long it took, and what it cost. */
  async function call(pathname: string, query: Record<string, string> = {}, service = roomy) {
    const before = await used(service);
    const started = Date.now();
    const res = await capture(service, pathname, query);
    const ms = Date.now() - started;
    return { res, ms, billed: (await used(service)) - before };
  }

  async function rgb(bytes: Buffer, x: number, y: number): Promise<number[]> {
    const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (y * info.width + x) * 3;
    return [data[at] ?? -1, data[at + 1] ?? -1, data[at + 2] ?? -1];
  }
  const RED = [255, 0, 0];
  const WHITE = [255, 255, 255];
  const BLUE = [0, 0, 255];
  async function expectPixel(bytes: Buffer, x: number, y: number, expected: number[]) {
    const actual = await rgb(bytes, x, y);
    for (const [i, value] of actual.entries()) {
      expect(Math.abs(value - (expected[i] ?? 0)), `pixel (${x}, ${y}) is ${actual}`).toBeLessThanOrEqual(3);
    }
  }

  /** A PNG of the ordinary page at the default viewport, billed once. */
  async function expectNormalCapture(res: LightMyRequestResponse, billed: number) {
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(await sharp(res.rawPayload).metadata()).toMatchObject({ width: 1280, height: 1024 });
    await expectPixel(res.rawPayload, 100, 100, RED);
    await expectPixel(res.rawPayload, 600, 600, WHITE);
    expect(billed).toBe(1);
  }

  /** A failure: the status, the whole `{"error"}` body, and nothing billed. */
  function expectFailure(
    outcome: { res: LightMyRequestResponse; billed: number },
    status: number,
    error: string,
  ) {
    expect(outcome.res.statusCode, outcome.res.body.slice(0, 300)).toBe(status);
    expect(outcome.res.headers['content-type']).toMatch(/^application\/json/);
    expect(outcome.res.json()).toEqual({ error });
    expect(outcome.billed).toBe(0);
  }

  /** The service is unaffected: the next ordinary capture is right, on the same browser. */
  async function expectServiceUnaffected(service = roomy) {
    const next = await call('/normal', {}, service);
    await expectNormalCapture(next.res, next.billed);
    expect(await browserPid(service.t.runtime, service.t.logs)).toBe(service.browserPid);
  }

  /** CPU time a process has used, in ticks of 1/100 s (proc(5): utime and stime). */
  const cpuTicks = (pid: number) => {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  };
  /**
   * The browser's renderer that used the most CPU over the next second, if that was at least a
   * twentieth of a core (a page spinning gets far more, even with the machine's two cores shared
   * with other tests; an idle renderer gets next to none); null otherwise.
   */
  async function busiestRenderer(browserPid: number): Promise<number | null> {
    const renderers = (await processTree(browserPid)).filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
      } catch {
        return false;
      }
    });
    const before = renderers.map(cpuTicks);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    let busiest: number | null = null;
    let most = 5;
    for (const [i, pid] of renderers.entries()) {
      const used = cpuTicks(pid) - (before[i] ?? 0);
      if (used >= most) [busiest, most] = [pid, used];
    }
    return busiest;
  }
  /**
   * A 500 timeout, not before `limitMs` (the timer cannot fire early, on any machine), unbilled, the
   * service unaffected, and the renderer that spun gone with its context.
   */
  async function expectSpinnerStopped(
    outcome: Awaited<ReturnType<typeof callSpinning>>,
    error: string,
    limitMs: number,
  ) {
    expectFailure(outcome, 500, error);
    expect(outcome.ms).toBeGreaterThanOrEqual(limitMs - 50);
    await expectServiceUnaffected(hurried);
    const { spinner } = outcome;
    expect(spinner).not.toBeNull();
    await vi.waitFor(() => expect(isAlive(spinner as number)).toBe(false), {
      timeout: HANG_MS,
      interval: 100,
    });
  }

  /** Starts the call and, once the page was served, finds the renderer spinning on its script. */
  async function callSpinning(pathname: string) {
    const served = hits.get(pathname) ?? 0;
    const pending = call(pathname, {}, hurried);
    await vi.waitFor(() => expect(hits.get(pathname)).toBe(served + 1), { timeout: HANG_MS, interval: 20 });
    const spinner = await busiestRenderer(hurried.browserPid);
    return { ...(await pending), spinner };
  }

  describe('scripts that never yield', () => {
    it('an infinite loop in an inline script: a 500 timeout at NAVIGATION_TIMEOUT_MS, unbilled', async () => {
      const outcome = await callSpinning('/loop-inline');
      await expectSpinnerStopped(
        outcome,
        `Internal Error: timeout: the page did not finish loading within ${NAVIGATION_TIMEOUT_MS} ms`,
        NAVIGATION_TIMEOUT_MS,
      );
    });

    it('a busy loop started after load: a 500 timeout at RENDER_TIMEOUT_MS, unbilled', async () => {
      const outcome = await callSpinning('/loop-after-load');
      await expectSpinnerStopped(
        outcome,
        `Internal Error: timeout: the page did not render within ${RENDER_TIMEOUT_MS} ms`,
        RENDER_TIMEOUT_MS,
      );
    });
  });

  describe('dialogs, popups and print', () => {
    it('alert, confirm and prompt at load are dismissed: the page renders', async () => {
      const outcome = await call('/dialogs');
      expect(outcome.res.statusCode, outcome.res.body.slice(0, 300)).toBe(200);
      expect(outcome.billed).toBe(1);
      await expectPixel(outcome.res.rawPayload, 100, 100, RED);
      await expectPixel(outcome.res.rawPayload, 600, 600, BLUE);
      await expectServiceUnaffected();
    });

    // Chromium shows a beforeunload dialog only to a page the user interacted with, and contexts are
    // closed without running the handlers: nothing to dismiss.
    it('a beforeunload handler changes nothing', async () => {
      const outcome = await call('/beforeunload');
      await expectNormalCapture(outcome.res, outcome.billed);
      await expectServiceUnaffected();
    });

    it.each([
      ['window.open', '/popups-open'],
      ['target=_blank link clicks', '/popups-links'],
    ])('300 popups by %s: none opens, the page renders', async (_how, pathname) => {
      const before = hits.get('/popup-target') ?? 0;
      const outcome = await call(pathname);
      await expectNormalCapture(outcome.res, outcome.billed);
      expect(hits.get('/popup-target') ?? 0).toBe(before);
      await expectServiceUnaffected();
    });

    it('window.print() at load changes nothing: image and PDF', async () => {
      const image = await call('/print');
      await expectNormalCapture(image.res, image.billed);
      const pdf = await call('/print', { format: 'pdf' });
      expect(pdf.res.statusCode).toBe(200);
      expect(pdf.res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
      expect(pdf.billed).toBe(1);
      await expectServiceUnaffected();
    });
  });

  describe('navigations to refused schemes end the render with a refusal, not a timeout', () => {
    const refused = (what: string) =>
      `Bad Request: blocked by the network policy: the page navigated to a ${what} URL; only http and https are allowed`;
    it.each([
      ['a form that submits itself to file:', '/form-file', refused('file:')],
      ["location = 'file:///etc/passwd'", '/location-file', refused('file:')],
      ['the same on another site, after a redirect there', '/cross-site', refused('file:')],
      ['a meta refresh to file:', '/meta-file', refused('file:')],
      ['a link clicked to chrome://settings', '/click-chrome', refused('chrome:')],
      [
        'a 302 to file:///etc/passwd',
        '/redirect-file',
        'Bad Request: blocked by the network policy: the page redirected to a scheme other than http or https',
      ],
    ])('%s: 400 blocked, unbilled', async (_what, pathname, error) => {
      const outcome = await call(pathname);
      expectFailure(outcome, 400, error);
      await expectServiceUnaffected();
    });
  });

  describe('links to external apps are left to an app the browser does not have', () => {
    it.each([
      ["location = 'mailto:...'", '/location-mailto'],
      ['a form that submits itself to mailto:', '/form-mailto'],
      ["location = 'myapp://open'", '/app-link'],
    ])('%s: the page is captured as it is', async (_what, pathname) => {
      const outcome = await call(pathname);
      await expectNormalCapture(outcome.res, outcome.billed);
      await expectServiceUnaffected();
    });
  });

  describe('downloads', () => {
    it.each([
      ['Content-Disposition: attachment', '/attachment'],
      ['a non-HTML content type (application/zip)', '/archive.zip'],
    ])('a main document answered with %s: 400, unbilled', async (_what, pathname) => {
      const outcome = await call(pathname);
      expectFailure(outcome, 400, 'Bad Request: page could not be loaded (net::ERR_ABORTED)');
      await expectServiceUnaffected();
    });

    it('a download started by a link click: the page is captured, the file is not fetched', async () => {
      const before = hits.get('/archive.zip') ?? 0;
      const outcome = await call('/click-download');
      await expectNormalCapture(outcome.res, outcome.billed);
      // The headless shell refuses the download before asking for it.
      expect(hits.get('/archive.zip') ?? 0).toBe(before);
      await expectServiceUnaffected();
    });

    it('none of them wrote a file: nothing appeared in the browser’s home or temporary directory', () => {
      expect(hits.get('/attachment')).toBe(1);
      expect(hits.get('/archive.zip')).toBe(1);
      // Chromium keeps temporary files of its own there (at start, printing a PDF), not during these.
      expect(created.filter(({ test }) => test.includes(' > downloads > '))).toEqual([]);
    });
  });

  describe('size', () => {
    it('a 200,000 px page with full_page=true is cut at MAX_FULL_PAGE_HEIGHT_PX', async () => {
      const outcome = await call('/tall', { full_page: 'true' });
      expect(outcome.res.statusCode, outcome.res.body.slice(0, 300)).toBe(200);
      expect(outcome.billed).toBe(1);
      expect(await sharp(outcome.res.rawPayload).metadata()).toMatchObject({
        width: 1280,
        height: MAX_FULL_PAGE_HEIGHT_PX,
      });
      // Band 3 (from 3000 px) is blue, band 4 red down to the cut.
      const { data, info } = await sharp(outcome.res.rawPayload)
        .extract({ left: 100, top: 3500, width: 1, height: 1500 })
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect(info.height).toBe(1500);
      expect([...data.subarray(0, 3)]).toEqual(BLUE);
      expect([...data.subarray(-3)]).toEqual(RED);
      await expectServiceUnaffected();
    });

    it('a 50 MB PNG and 50 MB of garbage claiming to be one: captured in bounded memory', async () => {
      expect(bigPng.length).toBeGreaterThan(50_000_000);
      // The browser's memory, read over and over while the call runs (each read takes 25-300 ms).
      let peakBytes = 0;
      let running = true;
      const sampling = (async () => {
        while (running) peakBytes = Math.max(peakBytes, await treeMemoryBytes(roomy.browserPid));
      })();
      const outcome = await call('/big-images');
      running = false;
      await sampling;
      // About 500 MB measured: the browser, the decoded 64 MB image and its scaled copies.
      expect(peakBytes).toBeLessThan(1024 * 1024 * 1024);
      await expectNormalCapture(outcome.res, outcome.billed);
      expect(hits.get('/big.png')).toBe(1);
      expect(hits.get('/fake.png')).toBe(1);
      // The noise is drawn where the image is: not one colour.
      const { channels } = await sharp(outcome.res.rawPayload)
        .extract({ left: 400, top: 300, width: 256, height: 256 })
        .stats();
      expect(channels[0]?.stdev).toBeGreaterThan(20);
      await expectServiceUnaffected();
    });
  });

  describe('a renderer that dies, a page that never ends', () => {
    it('a page that allocates until its renderer dies: 400 (a crash, not a timeout), unbilled, the browser lives on', async () => {
      const outcome = await call('/oom');
      expectFailure(
        outcome,
        400,
        'Bad Request: the page crashed the browser tab rendering it (it ran out of memory or hit a fatal error)',
      );
      await expectServiceUnaffected();
    });

    it.each([
      ['drips bytes forever', '/drip'],
      ['sends its headers and then nothing', '/stall'],
    ])('a page that %s: a 500 timeout at NAVIGATION_TIMEOUT_MS, unbilled', async (_what, pathname) => {
      const outcome = await call(pathname, {}, hurried);
      expectFailure(
        outcome,
        500,
        `Internal Error: timeout: the page did not finish loading within ${NAVIGATION_TIMEOUT_MS} ms`,
      );
      expect(outcome.ms).toBeGreaterThanOrEqual(NAVIGATION_TIMEOUT_MS - 50);
      await expectServiceUnaffected(hurried);
    });
  });
});
