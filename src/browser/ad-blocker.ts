import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PuppeteerBlocker, Request, type RequestType } from '@ghostery/adblocker-puppeteer';
import type { Frame, Page } from 'puppeteer-core';
import { makePrivateDir, writePrivateFile } from '../store/private-files.js';
import { isDocumentGone } from './document-gone.js';

/** Where Debian's webext-ublock-origin-chromium installs uBlock Origin's bundled filter lists. */
const DEFAULT_FILTER_LISTS_DIR = '/usr/share/chromium/extensions/ublock-origin/assets';

/**
 * The lists uBlock Origin enables by default for ads, trackers and the fixes that go with them,
 * as its package ships them (paths relative to the assets dir). Left out: urlhaus-filter, a
 * malware-host list that is not about ads and whose bare-host lines the engine would read as
 * URL substrings.
 */
const FILTER_LIST_FILES = [
  'thirdparties/easylist/easylist.txt',
  'thirdparties/easylist/easyprivacy.txt',
  'ublock/filters.min.txt',
  'ublock/badware.min.txt',
  'ublock/privacy.min.txt',
  'ublock/unbreak.min.txt',
  'ublock/quick-fixes.min.txt',
] as const;

/**
 * Priority of the blocker's aborts and redirects in puppeteer's cooperative request
 * interception (its pass-through `continue` is priority 0). Another handler on the same page
 * resolves every request with a priority too: `continue(overrides, 0)` to let it through, and
 * abort at this priority or above to block; at equal priority an abort beats a redirect, which
 * beats a continue (https://pptr.dev/guides/network-interception#cooperative-intercept-mode).
 */
const AD_BLOCK_INTERCEPT_PRIORITY = 1;

/*
 * uBO's lists carry `!#if` blocks for other browsers and for abilities the engine lacks here.
 * We render in Chromium and cannot filter HTML responses (puppeteer cannot rewrite bodies), so
 * only env_chromium holds; every other condition (env_firefox, env_safari, env_mobile,
 * cap_html_filtering, ext_ubol...) is false.
 */
const LIST_ENV = new Map([['env_chromium', true]]);
// loadPreprocessors makes the engine honour the `!#if` blocks above instead of loading them all.
const ENGINE_CONFIG = { loadPreprocessors: true } as const;

export interface AdBlockerOptions {
  /** uBlock Origin's assets dir; defaults to Debian's. */
  readonly listsDir?: string;
  /** Directory for the serialized engine (e.g. `<dataDir>/cache`); created if missing. */
  readonly cacheDir: string;
  /**
   * Told when the parsed engine cannot be written to `cacheDir` (read-only or foreign-owned, as a
   * tmpfs that Podman mounts root's); the blocker works all the same, and parses again next start.
   */
  readonly onCacheWriteError?: (error: unknown) => void;
}

export interface AdBlocker {
  /** The serialized engine this instance was read from or written to. */
  readonly cacheFile: string;
  /** `cache` when the serialized engine was reused, `lists` when it was parsed from the lists now. */
  readonly source: 'cache' | 'lists';
  /**
   * Starts blocking in the page before it navigates: network filters through cooperative request
   * interception (see AD_BLOCK_INTERCEPT_PRIORITY), element hiding injected into each frame as it
   * loads. Idempotent. Scriptlet (`+js()`) filters do nothing: their code ships in the library's
   * downloadable resources bundle, which we do not fetch.
   */
  enable(page: Page): Promise<void>;
  /**
   * Applies the cosmetic filters to every frame's current DOM once more and resolves when the
   * styles are in place. The library injects them asynchronously while the page loads, which can
   * land after the capture; call this right before taking it. With `remove`, the elements the
   * hiding rules match in the main frame are taken out of its DOM too. A no-op where blocking is not enabled.
   */
  hideAds(page: Page, removal?: 'hide' | 'remove'): Promise<void>;
  /** Stops blocking in the page; request interception stays on while other request handlers remain. */
  disable(page: Page): Promise<void>;
  /** Whether the filters block (or redirect) a request of `type` to `url` made by a page at `sourceUrl`. */
  isBlocked(url: string, request: { readonly sourceUrl: string; readonly type: RequestType }): boolean;
}

/**
 * Loads the ad and tracker blocker: deserializes the cached engine when the filter lists and
 * the library are unchanged (~25 ms), else parses the lists (2.5-8 s of CPU, on a worker thread)
 * and caches the result where it can. Reads only local files: nothing is downloaded. Fails when a list file is missing.
 */
export async function loadAdBlocker(options: AdBlockerOptions): Promise<AdBlocker> {
  const listsDir = options.listsDir ?? DEFAULT_FILTER_LISTS_DIR;
  const files = FILTER_LIST_FILES.map((file) => path.join(listsDir, file));
  const stats = await Promise.all(files.map((file) => fs.stat(file).catch(() => null)));
  const missing = files.filter((_, i) => stats[i] === null);
  if (missing.length > 0) {
    throw new Error(
      `ad blocker: filter lists not found: ${missing.join(', ')} (install Debian's webext-ublock-origin-chromium)`,
    );
  }
  // The key changes whenever a list is updated (apt upgrade) or the engine's format may have.
  const key = createHash('sha256')
    .update(JSON.stringify({ library: libraryVersion(), config: ENGINE_CONFIG, env: [...LIST_ENV] }))
    .update(files.map((file, i) => `${file}\0${stats[i]?.size}\0${stats[i]?.mtimeMs}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const cacheFile = path.join(options.cacheDir, `adblock-${key}.bin`);

  const cached = await readCachedEngine(cacheFile);
  if (cached !== null) return wrap(cached, cacheFile, 'cache');

  const bytes = await parseInWorker(files);
  await writeCachedEngine(options.cacheDir, cacheFile, bytes).catch((error: unknown) =>
    options.onCacheWriteError?.(error),
  );
  return wrap(PuppeteerBlocker.deserialize(bytes), cacheFile, 'lists');
}

// Plain JavaScript evaluated in a worker thread, so that it runs the same from source and from
// the build; it loads the library by the absolute path the service resolved.
const PARSE_IN_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { PuppeteerBlocker } = require(workerData.library);
const text = workerData.files.map((file) => fs.readFileSync(file, 'utf8')).join('\\n');
const engine = PuppeteerBlocker.parse(text, workerData.config);
engine.updateEnv(new Map(workerData.env));
const bytes = engine.serialize();
parentPort.postMessage(bytes, [bytes.buffer]);
`;

/**
 * Parses the lists into a serialized engine on a worker thread: it takes seconds of CPU, which
 * on the main thread would stall every other call for as long (measured: 8 s under load).
 */
function parseInWorker(files: readonly string[]): Promise<Uint8Array> {
  const library = createRequire(import.meta.url).resolve('@ghostery/adblocker-puppeteer');
  const worker = new Worker(PARSE_IN_WORKER, {
    eval: true,
    workerData: { library, files, config: ENGINE_CONFIG, env: [...LIST_ENV] },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (bytes: Uint8Array) => resolve(bytes));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`ad blocker: the list parser exited with ${code}`)));
  });
}

function libraryVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('@ghostery/adblocker-puppeteer/package.json') as { version: string }).version;
}

/** The cached engine, or null when there is none or it cannot be used (truncated, other engine version). */
async function readCachedEngine(file: string): Promise<PuppeteerBlocker | null> {
  try {
    const bytes = await fs.readFile(file);
    return PuppeteerBlocker.deserialize(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch {
    return null;
  }
}

/** Writes atomically (processes starting together never read a half-written file) and drops older engines. */
async function writeCachedEngine(dir: string, file: string, bytes: Uint8Array): Promise<void> {
  await makePrivateDir(dir);
  const temp = `${file}.${process.pid}.tmp`;
  await writePrivateFile(temp, bytes);
  await fs.rename(temp, file);
  for (const name of await fs.readdir(dir)) {
    if (/^adblock-[0-9a-f]{16}\.bin$/.test(name) && path.join(dir, name) !== file) {
      await fs.rm(path.join(dir, name), { force: true });
    }
  }
}

function wrap(engine: PuppeteerBlocker, cacheFile: string, source: AdBlocker['source']): AdBlocker {
  engine.setRequestInterceptionPriority(AD_BLOCK_INTERCEPT_PRIORITY);
  return {
    cacheFile,
    source,
    async enable(page) {
      await engine.enableBlockingInPage(page);
    },
    async hideAds(page, removal = 'hide') {
      if (!engine.isBlockingEnabled(page)) return;
      const main = page.mainFrame();
      await Promise.all(
        page.frames().map((frame) => hideAdsInFrame(engine, frame, removal === 'remove' && frame === main)),
      );
    },
    async disable(page) {
      if (!engine.isBlockingEnabled(page)) return;
      // The blocker's own listener is still attached here: any other one needs interception kept.
      const keepRequestInterception = page.listenerCount('request') > 1;
      await engine.disableBlockingInPage(page, { keepRequestInterception });
    },
    isBlocked(url, { sourceUrl, type }) {
      return engine.match(Request.fromRawDetails({ url, sourceUrl, type })).match;
    },
  };
}

async function hideAdsInFrame(engine: PuppeteerBlocker, frame: Frame, remove: boolean): Promise<void> {
  const url = frame.url();
  if (frame.detached || !/^https?:/.test(url)) return;
  const { hostname, domain } = Request.fromRawDetails({ url });
  try {
    // The ids, classes and hrefs on the page select the generic hiding rules that apply to it,
    // as the library's own DOM scan does.
    const features = await frame.evaluate(() => {
      const ids = new Set<string>();
      const classes = new Set<string>();
      const hrefs = new Set<string>();
      for (const element of document.querySelectorAll('[id],[class],[href]')) {
        if (element.id !== '') ids.add(element.id);
        for (const name of element.classList) classes.add(name);
        const href = element.getAttribute('href');
        if (href !== null) hrefs.add(href);
      }
      return { ids: [...ids], classes: [...classes], hrefs: [...hrefs] };
    });
    const { active, styles } = engine.getCosmeticsFilters({
      url,
      hostname,
      domain,
      ...features,
      getBaseRules: true,
      getInjectionRules: false,
      getExtendedRules: false,
      getRulesFromHostname: true,
      getRulesFromDOM: true,
    });
    if (!active || styles.length === 0) return;
    // A constructed stylesheet, unlike a <style> tag, is not subject to the page's CSP style-src.
    await frame.evaluate(
      (css: string, removeMatches: boolean) => {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(css);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
        if (!removeMatches) return;
        for (const rule of sheet.cssRules) {
          if (!(rule instanceof CSSStyleRule)) continue;
          for (const element of document.querySelectorAll(rule.selectorText)) element.remove();
        }
      },
      styles,
      remove,
    );
  } catch (error) {
    // A frame that navigates or goes away meanwhile has nothing left to hide.
    if (!frame.detached && !isDocumentGone(error)) throw error;
  }
}
