import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseHTML } from 'linkedom';
import { plainText } from '../src/engines/content/main-content.js';
import {
  type DevPage,
  devPageBytes,
  loadDevSet,
  type SetScore,
  scorePage,
  sumScores,
} from './content-dev-set.js';
import { drive } from './load.js';
import { type Service, startService } from './service.js';

/*
 * The rendered path against the static one on the development set: a sample of its pages is
 * served on 127.0.0.1 with their bytes as stored (no charset in the header, so Chromium sniffs as
 * it would), fetched through the real service's /v1/content (use_defuddle, include_html) and
 * scored exactly as the static row scores the same pages.
 */

export interface RenderedComparison {
  readonly pages: number;
  readonly failures: number;
  readonly rendered: SetScore;
  readonly statics: SetScore;
  /** Pages whose segment outcome differs between the two paths, with both counts. */
  readonly differing: readonly {
    readonly url: string;
    readonly file: string;
    readonly rendered: string;
    readonly statics: string;
  }[];
}

/** Every `step`-th page of the set, from the first: a fixed sample spread over it. */
export function samplePages(set: readonly DevPage[], count: number): DevPage[] {
  const step = Math.max(1, Math.floor(set.length / Math.max(1, count)));
  return set.filter((_, i) => i % step === 0).slice(0, count);
}

function servePages(pages: readonly DevPage[]): Promise<{ port: number; close: () => Promise<void> }> {
  const byPath = new Map(pages.map((page) => [`/${page.file.replace(/\.gz$/, '')}`, page]));
  const server = http.createServer((req, res) => {
    const page = byPath.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (page === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(devPageBytes(page));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}

async function renderedText(service: Service, url: string): Promise<string> {
  const query = new URLSearchParams({ url, use_defuddle: 'true', include_html: 'true' });
  const { status, body } = await service.get(`/v1/content?${query}`);
  if (status !== 200)
    throw new Error(`content of ${url} answered ${status}: ${body.toString().slice(0, 200)}`);
  const html = (JSON.parse(body.toString()) as { data: { html: string } }).data.html;
  return plainText(parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`).document.body);
}

/**
 * Scores `count` sample pages through the service (started here, on `dataDir`), beside their
 * static text as the static row extracted it (`staticText`).
 */
export async function compareRendered(
  count: number,
  staticText: ReadonlyMap<string, string>,
  options: { readonly dataDir: string; readonly logFile: string; readonly chromiumPath: string | undefined },
): Promise<RenderedComparison> {
  const pages = samplePages(loadDevSet(), count);
  const site = await servePages(pages);
  const service = await startService({
    browserConcurrency: 2,
    clients: 2,
    allowPrivate: `127.0.0.1/32:${site.port}`,
    dataDir: options.dataDir,
    logFile: options.logFile,
    chromiumPath: options.chromiumPath,
  });
  const texts = new Map<string, string>();
  try {
    await drive(2, pages.length, async (i) => {
      const page = pages[i] as DevPage;
      const path = page.file.replace(/\.gz$/, '');
      texts.set(page.file, await renderedText(service, `http://127.0.0.1:${site.port}/${path}`));
    });
  } finally {
    await service.close();
    await site.close();
  }
  const done = pages.filter((page) => texts.has(page.file));
  const counts = (text: string, page: DevPage) => scorePage(text, page);
  const show = (c: { tp: number; fn: number; fp: number }) => `TP ${c.tp} FN ${c.fn} FP ${c.fp}`;
  const differing = done.flatMap((page) => {
    const r = counts(texts.get(page.file) ?? '', page);
    const s = counts(staticText.get(page.file) ?? '', page);
    return r.tp === s.tp && r.fp === s.fp
      ? []
      : [{ url: page.url, file: page.file, rendered: show(r), statics: show(s) }];
  });
  return {
    pages: done.length,
    failures: pages.length - done.length,
    rendered: sumScores(done.map((page) => counts(texts.get(page.file) ?? '', page))),
    statics: sumScores(done.map((page) => counts(staticText.get(page.file) ?? '', page))),
    differing,
  };
}

const f3 = (n: number) => n.toFixed(3);

/** The comparison as the bench prints it. */
export function formatRendered(result: RenderedComparison): string {
  const line = (name: string, s: SetScore) =>
    `  ${name.padEnd(22)} P ${f3(s.precision)}  R ${f3(s.recall)}  acc ${f3(s.accuracy)}  F1 ${f3(s.f1)}`;
  return [
    `rendered path on ${result.pages} pages of the development set (${result.failures} failed), served on 127.0.0.1:`,
    line('through /v1/content', result.rendered),
    line('static HTML, same pages', result.statics),
    `  ${result.differing.length} pages score differently:`,
    ...result.differing.map(
      (d) => `    ${d.file} ${d.url.slice(0, 80)}: rendered ${d.rendered}, static ${d.statics}`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Alone (after `npm run build`): `npx tsx bench/content-dev-rendered.ts [--pages=N]`.
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { mainContentText } = await import('./content-dev-quality.js');
  const { devPageHtml } = await import('./content-dev-set.js');
  const count = Number(process.argv.find((a) => a.startsWith('--pages='))?.split('=')[1] ?? 100);
  const statics = new Map(
    samplePages(loadDevSet(), count).map((page) => [page.file, mainContentText(devPageHtml(page), page.url)]),
  );
  const work = mkdtempSync(join(tmpdir(), 'webcap-dev-rendered-'));
  try {
    const result = await compareRendered(count, statics, {
      dataDir: join(work, 'data'),
      logFile: join(work, 'service.log'),
      chromiumPath: process.env.CHROMIUM_PATH,
    });
    console.log(formatRendered(result));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
