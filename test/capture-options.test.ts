import { execFile } from 'node:child_process';
import type http from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PDF } from '../src/engines/capture/params.js';
import { printPdf } from '../src/engines/capture/pdf.js';
import { launchChromium } from './helpers/chromium.js';
import { startCanary, startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * /v1/capture's PDF and image options (docs/capture.md, "PDF options" and "Image options") and
 * the page options styles and hide_selectors, end to end: real Chromium behind the egress proxy,
 * pages served by the test, PDFs read back with poppler's pdfinfo, pdftotext and pdftoppm.
 */

/** Three stacked 100 px bands, red, green and blue, on a page with no background of its own. */
const BANDS = `<!doctype html><html><head><style>
  html, body { margin: 0; background: transparent; }
  div { height: 100px; width: 400px; }
</style></head><body>
  <div id="red" style="background: rgb(255, 0, 0)"></div>
  <div id="green" style="background: rgb(0, 255, 0)"></div>
  <div id="blue" style="background: rgb(0, 0, 255)"></div>
</body></html>`;

/** Text at the top, then 2400 px: three Letter pages at scale 1. */
const DOCUMENT = `<!doctype html><html><head><style>
  body { margin: 0; background: rgb(255, 0, 0); font: 16px sans-serif; }
</style></head><body><p style="margin: 0">Opening words</p><div style="height: 2400px"></div></body></html>`;

/** A wide, tall page with a green square at (1500, 2000), well outside the viewport. */
const FAR = `<!doctype html><html><head><style>
  body { margin: 0; width: 3000px; height: 3000px; background: white; position: relative; }
  #far { position: absolute; left: 1500px; top: 2000px; width: 200px; height: 200px; background: rgb(0, 255, 0); }
</style></head><body><div id="far"></div></body></html>`;

/** A page whose policy forbids every inline style and script. */
const STRICT = `<!doctype html><html><body><p id="note">strict</p></body></html>`;
const STRICT_CSP = "default-src 'none'; style-src 'none'; script-src 'none'";

function pages(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://site').pathname;
  const body: Record<string, string> = {
    '/bands': BANDS,
    '/document': DOCUMENT,
    '/far': FAR,
    '/strict': STRICT,
    '/tall': '<!doctype html><body style="margin: 0"><div style="height: 17000px"></div></body>',
  };
  const html = body[path];
  if (html === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    ...(path === '/strict' ? { 'content-security-policy': STRICT_CSP } : {}),
  });
  res.end(html);
}

/** Runs a poppler tool on a PDF given on its standard input; its standard output. */
function poppler(tool: string, args: readonly string[], pdf: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(tool, [...args], { encoding: 'buffer', maxBuffer: 64 << 20 }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(error),
    );
    child.stdin?.end(pdf);
  });
}

/** Each page's size in points, from pdfinfo. */
async function pageSizes(pdf: Buffer): Promise<[number, number][]> {
  const info = (await poppler('pdfinfo', ['-f', '1', '-l', '1000', 'fd://0'], pdf)).toString();
  return [...info.matchAll(/^Page +\d+ size: +([\d.]+) x ([\d.]+) pts/gm)].map((m) => [
    Number(m[1]),
    Number(m[2]),
  ]);
}

/** The first page's words with their boxes in points, from pdftotext -bbox. */
async function words(
  pdf: Buffer,
): Promise<{ text: string; xMin: number; yMin: number; xMax: number; yMax: number }[]> {
  const html = (await poppler('pdftotext', ['-bbox', '-f', '1', '-l', '1', 'fd://0', '-'], pdf)).toString();
  const box =
    /<word xMin="(-?[\d.]+)" yMin="(-?[\d.]+)" xMax="(-?[\d.]+)" yMax="(-?[\d.]+)">([^<]*)<\/word>/g;
  return [...html.matchAll(box)].map((m) => ({
    xMin: Number(m[1]),
    yMin: Number(m[2]),
    xMax: Number(m[3]),
    yMax: Number(m[4]),
    text: m[5] ?? '',
  }));
}

/** RGBA of one pixel of an encoded image. */
async function rgba(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [...data.subarray(at, at + 4)];
}

describe('capture options: PDF, image and page styles', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    site = await startServer(pages);
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '2',
        NAVIGATION_TIMEOUT_MS: '20000',
        FILE_URL_TTL_SECONDS: '3600',
      },
    });
    key = await newAccountKey(t, 'options', 10_000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const url = (path: string) => `http://127.0.0.1:${site.port}${path}`;
  const capture = (query: Record<string, string>) =>
    t.runtime.app.inject({
      url: `/v1/capture?${new URLSearchParams(query)}`,
      headers: { 'x-api-key': key },
    });
  const pdf = async (query: Record<string, string>) => {
    const res = await capture({ url: url('/document'), format: 'pdf', ...query });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    return res.rawPayload;
  };
  const refused = async (query: Record<string, string>, message: RegExp) => {
    const res = await capture(query);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
    expect(res.json().error).toMatch(message);
  };

  describe('happy: PDF', () => {
    it('defaults unchanged: Letter, portrait, no margins, the background printed, every page', async () => {
      const file = await pdf({});
      expect(await pageSizes(file)).toEqual([
        [612, 792],
        [612, 792],
        [612, 792],
      ]);
      const [first] = await words(file);
      expect(first?.text).toBe('Opening');
      expect(first?.xMin).toBeLessThan(2);
      const png = await poppler(
        'pdftoppm',
        ['-png', '-r', '10', '-f', '1', '-l', '1', '-singlefile', 'fd://0'],
        file,
      );
      expect(await rgba(png, 40, 60)).toEqual([255, 0, 0, 255]);
    });

    it('pdf_paper_format and pdf_landscape set the paper: A4 landscape is 842 x 595 points', async () => {
      const sizes = await pageSizes(await pdf({ pdf_paper_format: 'a4', pdf_landscape: 'true' }));
      expect(sizes.length).toBeGreaterThan(0);
      for (const [width, height] of sizes) {
        // Chromium's A4 is 8.27 x 11.7 in, within a point of ISO's 841.89 x 595.28.
        expect(Math.abs(width - 841.89)).toBeLessThan(1);
        expect(Math.abs(height - 595.28)).toBeLessThan(1);
      }
      const [width, height] = (await pageSizes(await pdf({ pdf_paper_format: 'a6' })))[0] ?? [];
      expect([Math.round(width ?? 0), Math.round(height ?? 0)]).toEqual([298, 420]);
    });

    it('pdf_margin and its sides place the content: 2in left and 1in top start the text 144 and 72 points in', async () => {
      const [first] = await words(await pdf({ pdf_margin: '1in', pdf_margin_left: '2in' }));
      expect(first?.text).toBe('Opening');
      expect(first?.xMin).toBeCloseTo(144, 0);
      expect(first?.yMin).toBeGreaterThan(68);
      expect(first?.yMin).toBeLessThan(76);
      const [metric] = await words(await pdf({ pdf_margin_top: '50.8mm', pdf_margin_left: '2.54cm' }));
      expect(metric?.xMin).toBeCloseTo(72, 0);
      expect(metric?.yMin).toBeGreaterThan(140);
      expect(metric?.yMin).toBeLessThan(148);
    });

    it('pdf_print_background=false leaves the page white', async () => {
      const file = await pdf({ pdf_print_background: 'false' });
      const png = await poppler(
        'pdftoppm',
        ['-png', '-r', '10', '-f', '1', '-l', '1', '-singlefile', 'fd://0'],
        file,
      );
      expect(await rgba(png, 40, 60)).toEqual([255, 255, 255, 255]);
    });

    it('pdf_scale shrinks the content onto fewer pages; pdf_page_ranges keeps the pages asked', async () => {
      expect(await pageSizes(await pdf({ pdf_scale: '0.5' }))).toHaveLength(2);
      expect(await pageSizes(await pdf({ pdf_page_ranges: '2-3' }))).toHaveLength(2);
      expect(await pageSizes(await pdf({ pdf_page_ranges: '1, 3' }))).toHaveLength(2);
    });

    it('pdf_fit_one_page prints the whole page on one page as wide as the viewport', async () => {
      const sizes = await pageSizes(await pdf({ pdf_fit_one_page: 'true' }));
      expect(sizes).toHaveLength(1);
      const [width, height] = sizes[0] ?? [];
      // 1280 CSS px wide, 2400 + the paragraph's line tall, at 0.75 points a CSS pixel.
      expect(width).toBeCloseTo(960, 0);
      expect(height).toBeGreaterThan(2400 * 0.75);
      expect(height).toBeLessThan(2460 * 0.75);
    });

    it('pdf_header and pdf_footer print on every page with its number and the total', async () => {
      const file = await pdf({
        pdf_header: '<div style="font-size: 10px">Quarterly report</div>',
        pdf_footer:
          '<div style="font-size: 10px">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
      });
      const text = (await poppler('pdftotext', ['-layout', 'fd://0', '-'], file)).toString();
      const pagesOfText = text.split('\f').filter((page) => page.trim() !== '');
      expect(pagesOfText.length).toBeGreaterThan(1);
      pagesOfText.forEach((page, index) => {
        expect(page).toContain('Quarterly report');
        expect(page).toContain(`Page ${index + 1} of ${pagesOfText.length}`);
      });
      // The templates get 1cm margins of their own: the body text starts below the header.
      const opening = (await words(file)).find((word) => word.text === 'Opening');
      expect(opening?.yMin).toBeGreaterThan(26);
    });
  });

  it('an unstyled pdf_footer prints legibly, centred', async () => {
    const file = await pdf({
      pdf_paper_format: 'letter',
      pdf_footer: 'Chapter <span class="pageNumber"></span>',
    });
    const chapter = (await words(file)).find((word) => word.text === 'Chapter');
    expect(chapter).toBeDefined();
    const { xMin = 0, xMax = 0, yMin = 0, yMax = 0 } = chapter ?? {};
    // 10 CSS px is 7.5 pt; Chromium's own size for template text is about 1 pt.
    expect(yMax - yMin).toBeGreaterThan(6);
    // Letter is 612 pt wide: the word and the page number after it sit about its middle.
    expect(xMin).toBeGreaterThan(250);
    expect(xMax).toBeLessThan(320);
  });

  describe('happy: jobs and request bodies', () => {
    it('an async capture prints with its PDF options, as the synchronous one does', async () => {
      const accepted = await capture({
        url: url('/document'),
        format: 'pdf',
        pdf_paper_format: 'a5',
        pdf_page_ranges: '2',
        is_async: 'true',
      });
      expect(accepted.statusCode, accepted.body).toBe(202);
      const id = accepted.json().job_id as string;
      const deadline = Date.now() + HANG_MS;
      let record = { status: 'queued', result: null as { screenshot_url: string } | null };
      while (record.status !== 'completed' && record.status !== 'failed' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        record = (await t.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } })).json();
      }
      expect(record.status).toBe('completed');
      const link = new URL(record.result?.screenshot_url ?? '');
      const file = await t.runtime.app.inject({ url: link.pathname + link.search });
      const sizes = await pageSizes(file.rawPayload);
      // One page (the second), A5: Chromium's 5.83 x 8.27 in.
      expect(sizes.map(([w, h]) => [Math.round(w), Math.round(h)])).toEqual([[420, 596]]);
    });

    it('the legacy endpoint takes the options in a JSON body, with JSON booleans and numbers', async () => {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: '/capture',
        payload: {
          url: url('/far'),
          access_key: key,
          omit_background: true,
          clip_x: 1450,
          clip_y: 1950,
          clip_width: 300,
          clip_height: 200,
          styles: '#far { background: rgb(0, 0, 255) !important; }',
        },
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(await rgba(res.rawPayload, 100, 100)).toEqual([0, 0, 255, 255]);
      expect((await sharp(res.rawPayload).metadata()).width).toBe(300);
    });
  });

  describe('happy: images', () => {
    it('format=avif: an AVIF image sharp decodes, at the viewport size, with its content type', async () => {
      const res = await capture({ url: url('/bands'), format: 'avif', image_quality: '60' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/avif');
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.format, meta.compression, meta.width, meta.height]).toEqual(['heif', 'av1', 1280, 1024]);
      const [r, g, b] = await rgba(res.rawPayload, 200, 50);
      expect(r).toBeGreaterThan(220);
      expect(g).toBeLessThan(40);
      expect(b).toBeLessThan(40);
    });

    it('format=avif with response_type=json: a hosted .avif file served as image/avif', async () => {
      const res = await capture({ url: url('/bands'), format: 'avif', response_type: 'json' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.format).toBe('avif');
      expect(body.screenshot_url).toMatch(/\/v1\/files\/[A-Za-z0-9_-]+\.avif\?/);
      const file = await t.runtime.app.inject({
        url: new URL(body.screenshot_url).pathname + new URL(body.screenshot_url).search,
      });
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('image/avif');
      expect(file.rawPayload.length).toBe(body.size);
    });

    it('omit_background: a PNG transparent where the page paints nothing, opaque where it does', async () => {
      const res = await capture({ url: url('/bands'), omit_background: 'true' });
      expect(res.statusCode).toBe(200);
      expect((await sharp(res.rawPayload).metadata()).hasAlpha).toBe(true);
      expect(await rgba(res.rawPayload, 200, 50)).toEqual([255, 0, 0, 255]);
      expect((await rgba(res.rawPayload, 800, 600))[3]).toBe(0);
      const opaque = await capture({ url: url('/bands') });
      expect(await rgba(opaque.rawPayload, 800, 600)).toEqual([255, 255, 255, 255]);
    });

    it('omit_background keeps its transparency in webp, avif and a full page', async () => {
      const queries: Record<string, string>[] = [
        { format: 'webp' },
        { format: 'avif' },
        { full_page: 'true' },
      ];
      for (const query of queries) {
        const res = await capture({ url: url('/bands'), omit_background: 'true', ...query });
        expect(res.statusCode, JSON.stringify(query)).toBe(200);
        expect((await rgba(res.rawPayload, 800, 600))[3], JSON.stringify(query)).toBe(0);
      }
    });

    it('clip_*: the region asked, from anywhere in the document, at its size', async () => {
      const res = await capture({
        url: url('/far'),
        clip_x: '1450',
        clip_y: '1950',
        clip_width: '300',
        clip_height: '200',
      });
      expect(res.statusCode).toBe(200);
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.width, meta.height]).toEqual([300, 200]);
      expect(await rgba(res.rawPayload, 10, 10)).toEqual([255, 255, 255, 255]);
      expect(await rgba(res.rawPayload, 100, 100)).toEqual([0, 255, 0, 255]);
    });

    it('clip_* past the edge of the document is clamped to it', async () => {
      const res = await capture({
        url: url('/far'),
        clip_x: '2900',
        clip_y: '2950',
        clip_width: '500',
        clip_height: '500',
      });
      expect(res.statusCode).toBe(200);
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.width, meta.height]).toEqual([100, 50]);
    });
  });

  describe('happy: styles and hide_selectors', () => {
    it('styles change the pixels', async () => {
      const res = await capture({
        url: url('/bands'),
        styles: '#red { background: rgb(0, 0, 255) !important; }',
      });
      expect(res.statusCode).toBe(200);
      expect(await rgba(res.rawPayload, 200, 50)).toEqual([0, 0, 255, 255]);
    });

    it('styles apply on a page whose Content-Security-Policy forbids inline styles', async () => {
      const plain = await capture({ url: url('/strict') });
      expect(await rgba(plain.rawPayload, 600, 600)).toEqual([255, 255, 255, 255]);
      const res = await capture({ url: url('/strict'), styles: 'body { background: rgb(0, 255, 0); }' });
      expect(res.statusCode).toBe(200);
      expect(await rgba(res.rawPayload, 600, 600)).toEqual([0, 255, 0, 255]);
    });

    it('hide_selectors hides an element and keeps its layout; remove_selectors takes the layout away', async () => {
      const hidden = await capture({ url: url('/bands'), hide_selectors: '#green' });
      expect(hidden.statusCode).toBe(200);
      expect(await rgba(hidden.rawPayload, 200, 150)).toEqual([255, 255, 255, 255]);
      expect(await rgba(hidden.rawPayload, 200, 250)).toEqual([0, 0, 255, 255]);
      const removed = await capture({ url: url('/bands'), remove_selectors: '#green' });
      expect(await rgba(removed.rawPayload, 200, 150)).toEqual([0, 0, 255, 255]);
    });

    it('content takes styles and hide_selectors too', async () => {
      const res = await t.runtime.app.inject({
        url: `/v1/content?${new URLSearchParams({ url: url('/bands'), hide_selectors: '#green', styles: 'p { color: red }' })}`,
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    });
  });

  describe('errors', () => {
    it.each([
      [{ format: 'pdf', pdf_paper_format: 'b5' }, /pdf_paper_format/],
      [{ format: 'pdf', pdf_margin: '1em' }, /pdf_margin/],
      [{ format: 'pdf', pdf_margin_top: '99999px' }, /pdf_margin_top/],
      [{ format: 'pdf', pdf_scale: '3' }, /pdf_scale/],
      [{ format: 'pdf', pdf_scale: 'NaN' }, /pdf_scale/],
      [{ format: 'pdf', pdf_page_ranges: '1-' }, /pdf_page_ranges/],
      [{ format: 'pdf', pdf_page_ranges: '3-1' }, /pdf_page_ranges has "3-1"; pages count from 1/],
      [{ format: 'pdf', pdf_page_ranges: '0' }, /pdf_page_ranges has "0"/],
      [{ format: 'pdf', pdf_landscape: 'maybe' }, /pdf_landscape/],
      [
        { format: 'pdf', pdf_fit_one_page: 'true', pdf_paper_format: 'a4', pdf_landscape: 'true' },
        /pdf_paper_format, pdf_landscape cannot be combined with pdf_fit_one_page/,
      ],
      [{ pdf_landscape: 'true', pdf_margin: '1cm' }, /pdf_landscape, pdf_margin needs format=pdf/],
      [{ format: 'webp', pdf_header: 'x' }, /pdf_header needs format=pdf/],
      [{ format: 'jpeg', omit_background: 'true' }, /omit_background needs a format with transparency/],
      [{ format: 'avif', image_quality: '0' }, /image_quality/],
      [{ format: 'tiff' }, /format/],
      [
        { clip_x: '0', clip_y: '0', clip_width: '10' },
        /clip_height must be given with clip_x, clip_y, clip_width/,
      ],
      [{ clip_x: '0', clip_y: '0', clip_width: '0', clip_height: '10' }, /clip_width/],
      [{ clip_x: '-1', clip_y: '0', clip_width: '10', clip_height: '10' }, /clip_x/],
      [
        { clip_x: '0', clip_y: '0', clip_width: '10', clip_height: '10', full_page: 'true' },
        /cannot be combined with full_page/,
      ],
      [
        { clip_x: '0', clip_y: '0', clip_width: '10', clip_height: '10', selector: '#red' },
        /cannot be combined with selector/,
      ],
      [
        { clip_x: '0', clip_y: '0', clip_width: '10', clip_height: '10', format: 'pdf' },
        /cannot be combined with format=pdf/,
      ],
      [{ hide_selectors: 'div[' }, /hide_selectors is not a valid CSS selector/],
      [{ styles: 'x'.repeat(100_001) }, /styles/],
    ])('%j is a 400 naming the parameter', async (query, message) => {
      await refused({ url: url('/bands'), ...query }, message);
    });

    it.each([
      ['<img src="http://127.0.0.1:1/x.png">', /pdf_header may not load anything \(found "src="\)/],
      ['<div style="background: URL(http://127.0.0.1:1/x)">x</div>', /found "URL\("/],
      ['<style>@import "http://127.0.0.1:1/x.css";</style>', /found "@import"/],
      ['<link rel=stylesheet href=x.css>', /pdf_header may not load anything/],
      ['<div style="background: u\\72l(x)">x</div>', /found "\\\\"/],
      ['<div style="background: url&lpar;x)">x</div>', /character references/],
      ['<div style="background: &#117;rl(x)">x</div>', /character references/],
      ['<table background = "x.png"><tr><td>x</td></tr></table>', /found "background ="/],
    ])('a header that would load something is a 400: %s', async (header, message) => {
      await refused({ url: url('/document'), format: 'pdf', pdf_header: header }, message);
    });

    it('a template of text, markup, styles, entities and Chromium classes is accepted', async () => {
      await pdf({
        pdf_footer:
          '<style>.f { font-size: 9px; background: #eee; }</style><div class="f">Terms & conditions &amp; <b>more</b> &nbsp; <span class="title"></span> <span class="url"></span> <span class="date"></span></div>',
      });
    });

    it('pages beyond the document, margins that leave no room, a clip outside the page or an avif too large are a 400 after the render, unbilled', async () => {
      const used = async () =>
        (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
          .total_used as number;
      const before = await used();
      await refused(
        { url: url('/document'), format: 'pdf', pdf_page_ranges: '7-9' },
        /pdf_page_ranges asks for pages beyond the last page of the document/,
      );
      await refused(
        { url: url('/document'), format: 'pdf', pdf_paper_format: 'a6', pdf_margin: '3in' },
        /pdf_margin_top, pdf_margin_right, pdf_margin_bottom, pdf_margin_left leave no room for the content on the paper/,
      );
      await refused(
        { url: url('/far'), clip_x: '3000', clip_y: '0', clip_width: '10', clip_height: '10' },
        /clip_x, clip_y start outside the page, which is 3000x3000 CSS pixels/,
      );
      await refused(
        { url: url('/tall'), format: 'avif', full_page: 'true' },
        /format avif images are at most 16384 pixels a side and 33554432 pixels in all; this one is 1280x17000: use png, jpeg or webp/,
      );
      expect(await used()).toBe(before);
    });
  });

  describe('security', () => {
    let canary: TestServer;
    beforeAll(async () => {
      canary = await startCanary();
    });
    afterAll(async () => {
      await canary?.close();
    });

    it(
      "Chromium loads nothing a header or footer names, even past the edge's refusal",
      async () => {
        // The engine's print, called with templates the edge would refuse, on a page of its own.
        const browser = await launchChromium();
        try {
          const page = await browser.newPage();
          await page.setContent(DOCUMENT);
          const at = `http://127.0.0.1:${canary.port}`;
          const file = await printPdf(
            page,
            {
              ...DEFAULT_PDF,
              margins: { top: '2cm', right: '0', bottom: '2cm', left: '0' },
              headerTemplate: `<div style="background: url(${at}/bg.png)"><img src="${at}/img.png">head</div>`,
              footerTemplate: `<div>foot</div><iframe src="${at}/frame"></iframe><video poster="${at}/poster.png"></video><svg><image href="${at}/svg.png"/></svg>`,
            },
            false,
            20_000,
          );
          expect(file.subarray(0, 5).toString()).toBe('%PDF-');
          const text = (await poppler('pdftotext', ['fd://0', '-'], file)).toString();
          // Templates print small, and pdftotext reads small text with spaces between its letters.
          const letters = text.replace(/\s/g, '');
          expect(letters).toContain('head');
          expect(letters).toContain('foot');
          // Nothing was asked of the canary, not even a connection, within a generous wait.
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(canary.connections()).toBe(0);
        } finally {
          await browser.close();
        }
      },
      HANG_MS,
    );
  });
});
