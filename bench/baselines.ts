import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { chromiumArgs } from '../src/browser/chromium-args.js';

export const VIEWPORT = { width: 1280, height: 1024 } as const;

/**
 * The service's launch flags without the ones that route through its egress proxy: the
 * baselines fetch directly, with no proxy in between.
 */
export function directArgs(): string[] {
  const proxyFlags = ['--proxy-server=', '--proxy-bypass-list=', '--host-resolver-rules='];
  return chromiumArgs({ proxyPort: 0, sandbox: 'auto' }).filter(
    (arg) => !proxyFlags.some((flag) => arg.startsWith(flag)),
  );
}

/** Launches Chromium as the pool does (same executable, same flags minus the proxy). */
export async function launchDirect(executablePath: string): Promise<{ browser: Browser; pid: number }> {
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: directArgs(),
    defaultViewport: null,
    // As the pool launches it: CDP over a pipe rather than a WebSocket.
    pipe: true,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  const pid = browser.process()?.pid;
  if (pid === undefined) throw new Error('browser started without a process');
  return { browser, pid };
}

/** Closes the browser and kills what is left of its process group. */
export async function closeBrowser(browser: Browser, pid: number): Promise<void> {
  await browser.close().catch(() => undefined);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

async function navigateAndShoot(page: Page, url: string): Promise<Uint8Array> {
  await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
  return page.screenshot({ type: 'png' });
}

/** A way of taking shots with plain puppeteer-core: made ready for `concurrency` workers, then used. */
export interface Baseline {
  shoot(url: string, worker: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * The floor (a): one page per worker, each in its own context made once, reused for every
 * shot: navigate, wait for `load`, screenshot. The fastest a browser does this work; no isolation
 * between the shots of one worker.
 */
export async function floorBaseline(browser: Browser, concurrency: number): Promise<Baseline> {
  const pages = await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport(VIEWPORT);
      return page;
    }),
  );
  return {
    shoot: (url, worker) => {
      const page = pages[worker];
      if (page === undefined) throw new Error(`no page for worker ${worker}`);
      return navigateAndShoot(page, url);
    },
    close: async () => {
      await Promise.all(pages.map((page) => page.browserContext().close()));
    },
  };
}

/**
 * The naive isolated way (b): every shot creates a context and a page, uses them and closes the
 * context, all on the shot's critical path.
 */
export function naiveBaseline(browser: Browser): Baseline {
  return {
    shoot: async (url) => {
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.setViewport(VIEWPORT);
        return await navigateAndShoot(page, url);
      } finally {
        await context.close();
      }
    },
    close: async () => undefined,
  };
}
