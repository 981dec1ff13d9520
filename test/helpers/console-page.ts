import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type ElementHandle, type HTTPResponse, type Page } from 'puppeteer-core';

/*
 * Driving the console in Debian's Chromium as a person would: controls found by their labels,
 * buttons by their text, every wait on an element or a state, never on a time.
 */

/** Debian's Chromium, the full browser (the console is a page for people, not a render). */
export const CHROMIUM = '/usr/bin/chromium';

/** Where the screenshots of each view go: the repository's test-results/console/, outside the run's TMPDIR. */
export const SCREENSHOTS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../test-results/console',
);

const VIEWPORTS = [
  { tag: 'desktop', width: 1280, height: 800 },
  { tag: 'phone', width: 375, height: 812 },
] as const;

/** Widths between the two whose layout is checked too (a tablet, a small laptop), without a picture. */
const CHECKED_WIDTHS = [768, 1024] as const;

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** Every request URL a page makes, and every console error and page error (a CSP refusal is one). */
export interface PageLog {
  readonly urls: string[];
  readonly errors: string[];
}

/** A page at desktop size in its own browser context (cookies of its own), logging what it does. */
export async function newPage(browser: Browser, log: PageLog): Promise<Page> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.setDefaultTimeout(120_000);
  page.on('request', (request) => log.urls.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') log.errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => log.errors.push(`${page.url()}: ${String(error)}`));
  return page;
}

/** Waits until the view has loaded: no loading state, every image decoded. */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document.querySelector('#app')?.childElementCount !== 0 &&
      document.querySelector('.state-loading') === null,
  );
  await page.waitForFunction(() => [...document.images].every((image) => image.complete));
}

/** Waits until the page's visible text contains `text`. */
export async function waitForText(page: Page, text: string): Promise<void> {
  await page.waitForFunction((wanted) => document.body.innerText.includes(wanted), {}, text);
}

/** The control a `<label>` with exactly this text names (inside the open dialog, when one is open). */
export async function field(page: Page, label: string): Promise<ElementHandle<Element>> {
  const handle = await page.waitForFunction(
    (text) => {
      const scope = document.querySelector('dialog[open]') ?? document;
      for (const element of scope.querySelectorAll('label')) {
        if (element.textContent?.trim() === text && element.control !== null) return element.control;
      }
      return null;
    },
    {},
    label,
  );
  const element = handle.asElement();
  if (element === null) throw new Error(`no control labelled ${label}`);
  return element as ElementHandle<Element>;
}

/** Types `value` into the labelled field, replacing what it held. */
export async function fill(page: Page, label: string, value: string): Promise<void> {
  const input = await field(page, label);
  await input.click({ count: 3 });
  await page.keyboard.press('Backspace');
  await input.type(value);
}

/** Chooses `value` in the labelled select. */
export async function choose(page: Page, label: string, value: string): Promise<void> {
  const select = (await field(page, label)) as ElementHandle<HTMLSelectElement>;
  await select.select(value);
}

/**
 * Clicks the enabled button, link or summary whose name (aria-label, else text) starts with `text`, inside the open
 * dialog when one is open (the page behind it is inert).
 */
export async function click(page: Page, text: string): Promise<void> {
  const handle = await page.waitForFunction(
    (wanted) => {
      const scope = document.querySelector('dialog[open]') ?? document;
      for (const element of scope.querySelectorAll<HTMLElement>('button, a.button, a, summary')) {
        const label =
          element.getAttribute('aria-label') ?? (element.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (
          label.startsWith(wanted) &&
          !(element as HTMLButtonElement).disabled &&
          element.offsetParent !== null
        ) {
          return element;
        }
      }
      return null;
    },
    {},
    text,
  );
  await (handle.asElement() as ElementHandle<Element>).click();
}

/** Whether a button or link with text starting with `text` is on the page. */
export function hasControl(page: Page, text: string): Promise<boolean> {
  return page.evaluate(
    (wanted) =>
      [...document.querySelectorAll<HTMLElement>('button, a')].some((element) =>
        (element.textContent ?? '').replace(/\s+/g, ' ').trim().startsWith(wanted),
      ),
    text,
  );
}

/** Runs `action` and resolves with the answer to the first request of `method` to a path ending in `pathEnd`. */
export async function answerTo(
  page: Page,
  method: string,
  pathEnd: string,
  action: () => Promise<void>,
): Promise<HTTPResponse> {
  const [response] = await Promise.all([
    page.waitForResponse(
      (r) => r.request().method() === method && new URL(r.url()).pathname.endsWith(pathEnd),
    ),
    action(),
  ]);
  return response;
}

/** Runs `action`, which starts a download in the page's browser context, and resolves with the downloaded file's bytes. */
export async function download(page: Page, action: () => Promise<void>): Promise<Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-download-'));
  const session = await page.browser().target().createCDPSession();
  try {
    await session.send('Browser.setDownloadBehavior', {
      behavior: 'allow',
      browserContextId: page.browserContext().id,
      downloadPath: dir,
      eventsEnabled: true,
    });
    const completed = new Promise<void>((resolve, reject) =>
      session.on('Browser.downloadProgress', (event) => {
        if (event.state === 'completed') resolve();
        if (event.state === 'canceled') reject(new Error('the download was cancelled'));
      }),
    );
    await action();
    await completed;
    const [file] = fs.readdirSync(dir);
    if (file === undefined) throw new Error('nothing was downloaded');
    return fs.readFileSync(path.join(dir, file));
  } finally {
    await session.detach();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The form controls of the page that no label names (hidden ones aside). */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>('input, select, textarea')]
      .filter((control) => !control.hidden && control.type !== 'hidden')
      .filter((control) => (control.labels?.length ?? 0) === 0 && control.getAttribute('aria-label') === null)
      .map((control) => control.outerHTML),
  );
}

/**
 * What is wrong with the layout at the page's width: the page or a table's box scrolling
 * sideways (a table's columns and row actions off-screen), or a table's cell labelled (for its
 * narrow layout) other than its column's heading.
 */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) {
      problems.push(`the page scrolls sideways (${root.scrollWidth} > ${root.clientWidth} px)`);
    }
    for (const box of document.querySelectorAll<HTMLElement>('.table-wrap')) {
      if (box.scrollWidth > box.clientWidth + 1) {
        const table = box.querySelector('table');
        const name = table?.caption?.textContent ?? table?.dataset.testid ?? 'a table';
        problems.push(`${name} scrolls sideways (${box.scrollWidth} > ${box.clientWidth} px)`);
      }
    }
    for (const table of document.querySelectorAll<HTMLTableElement>('table.table')) {
      const headings = [...(table.tHead?.rows[0]?.cells ?? [])].map((cell) => cell.textContent?.trim());
      for (const cell of table.querySelectorAll<HTMLTableCellElement>('tbody td[data-label]')) {
        if (cell.dataset.label !== headings[cell.cellIndex]) {
          problems.push(`a cell labelled ${cell.dataset.label} under ${headings[cell.cellIndex]}`);
        }
      }
    }
    return problems;
  });
}

/**
 * Saves a full-page screenshot of the view at desktop and at phone width, then goes back to
 * desktop; fails when a form control on it has no label, or the layout at either width has a
 * problem (layoutProblems).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const unlabelled = await unlabelledControls(page);
  if (unlabelled.length > 0) throw new Error(`${name}: controls without a label: ${unlabelled.join(' ')}`);
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const problems: string[] = [];
  for (const viewport of VIEWPORTS) {
    await page.setViewport({ width: viewport.width, height: viewport.height });
    await settled(page);
    // From the top: a full-page picture of a scrolled page draws its sticky bar where the view was.
    await page.evaluate(() => window.scrollTo(0, 0));
    // Two frames: the layout of the new width is painted before the picture is taken.
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    problems.push(...(await layoutProblems(page)).map((problem) => `${viewport.width} px: ${problem}`));
    await page.screenshot({
      path: path.join(SCREENSHOTS_DIR, `${name}-${viewport.tag}.png`),
      fullPage: true,
    });
  }
  for (const width of CHECKED_WIDTHS) {
    await page.setViewport({ width, height: 800 });
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    problems.push(...(await layoutProblems(page)).map((problem) => `${width} px: ${problem}`));
  }
  await page.setViewport({ width: 1280, height: 800 });
  if (problems.length > 0) throw new Error(`${name}: ${problems.join('; ')}`);
}

/** Everything of the page a key could hide in: its HTML, its storage, its URL. */
export function pageTraces(page: Page): Promise<string> {
  return page.evaluate(() =>
    [
      document.documentElement.outerHTML,
      location.href,
      JSON.stringify({ ...localStorage }),
      JSON.stringify({ ...sessionStorage }),
      document.cookie,
    ].join('\n'),
  );
}
