import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureServer, startFixtureServer } from './helpers/chromium.js';
import { cliJson, processSetup, type ServerProcess, startServer } from './helpers/cli.js';
import {
  answerTo,
  choose,
  click,
  download,
  field,
  fill,
  hasControl,
  launchBrowser,
  newPage,
  type PageLog,
  pageTraces,
  screenshot,
  settled,
  waitForText,
} from './helpers/console-page.js';
import { startServer as startSite, type TestServer } from './helpers/net-fixtures.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * The console end to end (issue 23's "Done when"): a real `webcap serve` on SQLite, Debian's
 * Chromium driving the built front end as the operator, an owner and a member would, the page to
 * capture served by the test on 127.0.0.1 (the only private address the service may reach).
 * Each view is saved as a screenshot at desktop and phone width in test-results/console/. A
 * second site holds every page asked of it until the test releases it, so that a job runs for as
 * long as the test needs and the next one waits in the queue (JOB_CONCURRENCY=1).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_TOKEN = 'console-test-admin-token-0123456789';
const OWNER = { email: 'ana@example.com', name: 'Ana Lima', password: 'correct horse battery' };
const MEMBER = { email: 'bruno@example.com', name: 'Bruno Costa', password: 'member password 42' };
const GLOBEX_OWNER = { email: 'gina@globex.example', name: 'Gina Rossi', password: 'globex owner password' };
const INITECH_OWNER = { email: 'ivy@initech.example', name: 'Ivy Park', password: 'initech owner password' };
const NEW_OWNER_PASSWORD = 'a new password for ana';

// Each step waits on a browser, a render or the request log's batches: minutes on a loaded machine.
/** The signing secret a dialog shows once. */
async function secretShown(page: Page): Promise<string> {
  const input = await page.waitForSelector('#signing-secret');
  return (await input?.evaluate((element) => (element as HTMLInputElement).value)) ?? '';
}

describe('the console in a browser', () => {
  let fixture: FixtureServer;
  let holdSite: TestServer;
  /** The answers the hold site keeps, by path, and who waits for a path's first request. */
  const held = new Map<string, ServerResponse[]>();
  const arrivals = new Map<string, () => void>();
  let server: ServerProcess;
  let browser: Browser;
  const log: PageLog = { urls: [], errors: [] };
  /** Every API key shown by the console: none may appear anywhere but in its one-time display. */
  const keys: string[] = [];
  let operator: Page;
  let owner: Page;
  let member: Page;

  const url = (pathname: string) => `${server.url}${pathname}`;

  /** Resolves once the hold site has received a request for `pathname`. */
  function arrival(pathname: string): Promise<void> {
    return new Promise((resolve) => {
      if ((held.get(pathname)?.length ?? 0) > 0) resolve();
      else arrivals.set(pathname, resolve);
    });
  }

  function release(pathname: string): void {
    for (const res of held.get(pathname)?.splice(0) ?? []) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>Released</title></html>');
    }
  }

  /** An async crawler call on a held page, submitted with the key as any client would; its job id. */
  async function submitHeldJob(key: string, pathname: string): Promise<string> {
    const query = new URLSearchParams({
      query: `http://127.0.0.1:${holdSite.port}${pathname}`,
      is_async: 'true',
    });
    const answer = await fetch(url(`/v1/website/crawler?${query}`), { headers: { 'x-api-key': key } });
    expect(answer.status).toBe(202);
    return ((await answer.json()) as { job_id: string }).job_id;
  }

  /** A crawl or a batch started with the key as any client would; its id. */
  async function startCrawl(key: string, path: '/v1/crawl' | '/v1/batch', body: object): Promise<string> {
    const answer = await fetch(url(path), {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(202);
    const accepted = (await answer.json()) as { crawl_id?: string; batch_id?: string };
    return accepted.crawl_id ?? accepted.batch_id ?? '';
  }

  /** A screenshot of the view, which must hold no API key (but the new key's one-time display). */
  async function shot(page: Page, name: string): Promise<void> {
    if (name !== 'key-created') {
      const traces = await pageTraces(page);
      for (const key of keys) expect(traces.includes(key), `${name} shows a key`).toBe(false);
    }
    await screenshot(page, name);
  }

  async function open(page: Page, pathname: string): Promise<void> {
    await page.goto(url(pathname));
    await settled(page);
  }

  async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
    await open(page, '/console/');
    await fill(page, 'Email', who.email);
    await fill(page, 'Password', who.password);
    const answer = await answerTo(page, 'POST', '/console/api/session', () => click(page, 'Sign in'));
    expect(answer.status()).toBe(200);
    await page.waitForSelector('nav[aria-label="Sections"]');
    await settled(page);
  }

  /** Opens the view again until `check` holds on it: the request log is written in batches, off the request path. */
  async function until(page: Page, pathname: string, check: () => Promise<boolean>): Promise<void> {
    await open(page, pathname);
    while (!(await check())) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      await open(page, pathname);
    }
  }

  beforeAll(async () => {
    fixture = await startFixtureServer();
    holdSite = await startSite((req, res) => {
      const pathname = req.url ?? '/';
      // What a render asks beside the page (robots.txt, sitemaps, the favicon) is answered at once.
      if (!pathname.startsWith('/hold/')) {
        res.writeHead(404).end();
        return;
      }
      held.set(pathname, [...(held.get(pathname) ?? []), res]);
      arrivals.get(pathname)?.();
    });
    const { env } = processSetup('sqlite', ADMIN_TOKEN, {
      WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${fixture.port},127.0.0.1/32:${holdSite.port}`,
      KEY_CACHE_TTL_MS: '0',
      // One job at a time, and a held page ends no job by itself while the test holds it.
      JOB_CONCURRENCY: '1',
      FETCH_HEADERS_TIMEOUT_MS: '600000',
      FETCH_TIMEOUT_MS: '600000',
      JOB_TIMEOUT_MS: '600000',
      NAVIGATION_TIMEOUT_MS: '590000',
      RENDER_TIMEOUT_MS: '600000',
    });
    server = await startServer(env);
    // The account and its owner as an operator makes them from a shell: the CLI and the admin API.
    await cliJson(
      [
        'admin',
        'accounts',
        'create',
        '--name',
        'Acme',
        '--slug',
        'acme',
        '--monthly-quota',
        '100',
        '--stats',
      ],
      env,
    );
    const owner = await fetch(url('/admin/v1/users'), {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...OWNER, role: 'owner', account: 'acme' }),
    });
    expect(owner.status).toBe(201);
    browser = await launchBrowser();
    fs.rmSync(path.join(ROOT, 'test-results/console'), { recursive: true, force: true });
  });

  afterAll(async () => {
    await browser?.close();
    for (const pathname of held.keys()) release(pathname);
    await server?.stop();
    await fixture?.close();
    await holdSite?.close();
  });

  it('is served as built files under a strict CSP, with no inline script or style', async () => {
    const html = fs.readFileSync(path.join(ROOT, 'dist/console/index.html'), 'utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const page = await fetch(url('/console/keys'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(url(script ?? ''));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('signs the owner in, shows a new key once, and never again', async () => {
    owner = await newPage(browser, log);
    await open(owner, '/console/');
    await shot(owner, 'sign-in');
    await signIn(owner, OWNER);
    expect(owner.url()).toBe(url('/console/keys'));
    await waitForText(owner, 'No keys yet');
    await shot(owner, 'keys-empty');

    await click(owner, 'Create key');
    await fill(owner, 'Alias', 'playground');
    await choose(owner, 'Category', 'test');
    await shot(owner, 'key-create');
    const made = await answerTo(owner, 'POST', '/console/api/keys', () => click(owner, 'Create key'));
    expect(made.status()).toBe(201);
    const shown = await owner.waitForSelector('#new-key');
    const key = (await shown?.evaluate((input) => (input as HTMLInputElement).value)) ?? '';
    expect(key).toMatch(/^wc_test_/);
    keys.push(key);
    const signingSecret = await secretShown(owner);
    expect(signingSecret).toMatch(/^wcs_/);
    await shot(owner, 'key-created');

    await click(owner, 'I have copied it');
    await owner.waitForSelector('#new-key', { hidden: true });
    await owner.waitForSelector('tr[data-key-id]');
    expect(await pageTraces(owner)).not.toContain(key);
    expect(await pageTraces(owner)).not.toContain(signingSecret);
    await owner.reload();
    await settled(owner);
    expect(await pageTraces(owner)).not.toContain(key);
    expect(await pageTraces(owner)).not.toContain(signingSecret);
    await shot(owner, 'keys');

    // Rotating the signing secret shows the new one once.
    await click(owner, 'Rotate signing secret');
    // The dialog's button has the row button's name: it must be open before the second click.
    await owner.waitForSelector('dialog[open]');
    const rotated = await answerTo(owner, 'POST', '/signing-secret', () =>
      click(owner, 'Rotate signing secret'),
    );
    expect(rotated.status()).toBe(200);
    const newSecret = await secretShown(owner);
    expect(newSecret).toMatch(/^wcs_/);
    expect(newSecret).not.toBe(signingSecret);
    await click(owner, 'I have copied it');
    await owner.waitForSelector('#signing-secret', { hidden: true });
    expect(await pageTraces(owner)).not.toContain(newSecret);

    // The key works as any key does.
    const usage = await fetch(url('/v1/usage'), { headers: { 'x-api-key': key } });
    expect(usage.status).toBe(200);
  });

  it('is usable by keyboard: focus shows, a dialog keeps focus inside and gives it back', async () => {
    await open(owner, '/console/keys');
    await owner.focus('.view-actions button');
    await owner.keyboard.press('Enter');
    await owner.waitForSelector('dialog[open]');
    for (let tab = 0; tab < 12; tab++) {
      await owner.keyboard.press('Tab');
      expect(await owner.evaluate(() => document.activeElement?.closest('dialog[open]') !== null)).toBe(true);
    }
    const outline = await owner.evaluate(() => {
      const focused = document.activeElement as HTMLElement;
      return focused.matches(':focus-visible') ? getComputedStyle(focused).outlineStyle : 'not focus-visible';
    });
    expect(outline).not.toBe('none');
    expect(outline).not.toBe('not focus-visible');
    await owner.keyboard.press('Escape');
    await owner.waitForSelector('dialog[open]', { hidden: true });
    // The dialog's close event gives focus back after it closes: waited for, not raced (a loaded run saw <body>).
    await owner.waitForFunction(() => document.activeElement?.textContent === 'Create key', {
      timeout: HANG_MS,
    });
  });

  it('makes a billed capture from the playground, and usage and the request log show it', async () => {
    await open(owner, '/console/usage');
    await owner.waitForSelector('[data-testid="remaining"]');
    expect(await owner.$eval('[data-testid="remaining"]', (element) => element.textContent)).toBe('100');
    await shot(owner, 'usage-before');

    await open(owner, '/console/playground');
    await choose(owner, 'Endpoint', 'GET /v1/capture');
    // A call the API refuses shows the API's own message (and is not billed).
    await fill(owner, 'url', 'ftp://example.com/');
    const refused = await answerTo(owner, 'GET', '/v1/capture', () => click(owner, 'Run GET /v1/capture'));
    expect(refused.status()).toBe(400);
    const message = ((await refused.json()) as { error: string }).error;
    await owner.waitForSelector('.answer [role="alert"]');
    expect(await owner.$eval('.answer [role="alert"]', (element) => element.textContent)).toBe(message);
    await shot(owner, 'playground-refused');

    await fill(owner, 'url', fixture.url('/capture.html'));
    await waitForText(owner, 'Billed:');
    const answer = await answerTo(owner, 'GET', '/v1/capture', () => click(owner, 'Run GET /v1/capture'));
    expect(answer.status()).toBe(200);
    expect(answer.request().headers()['x-webcap-console-key']).toMatch(/^key_/);
    expect(answer.request().headers()['x-csrf-token']).toBeTruthy();
    const image = await owner.waitForSelector('img.result-image');
    await owner.waitForFunction((img) => img?.complete === true && img.naturalWidth > 0, {}, image);
    await waitForText(owner, 'curl -s -H "x-api-key: $WEBCAP_API_KEY"');
    await waitForText(owner, "import { Webcap } from '@webcap/sdk'");
    await waitForText(owner, 'npx webcap capture');
    await shot(owner, 'playground');

    await until(
      owner,
      '/console/usage',
      async () => (await owner.$eval('[data-testid="remaining"]', (e) => e.textContent)) === '99',
    );
    await until(owner, '/console/usage', () =>
      owner.$$eval('[data-testid="request-log"] tbody tr', (rows) =>
        rows.some(
          (row) => row.textContent?.includes('/v1/capture') === true && row.textContent.includes('200'),
        ),
      ),
    );
    // Each row says what the call was about and, when it failed, why.
    const cells = await owner.$$eval('[data-testid="request-log"] tbody tr', (rows) =>
      rows.map((row) => ({
        target: row.querySelector('[data-testid="request-target"]')?.textContent ?? null,
        error: row.querySelector('[data-testid="request-error"]')?.textContent ?? null,
      })),
    );
    expect(cells).toContainEqual({ target: fixture.url('/capture.html'), error: null });
    // ftp:// is no URL the service would fetch: the row keeps the error, not the text.
    expect(cells).toContainEqual({ target: null, error: message });
    await shot(owner, 'usage');
    // The numbers under a chart: a table in the chart's narrow box, so one card a day.
    await click(owner, 'Show the numbers');
    await owner.waitForSelector('.chart-numbers[open] tbody th');
    await shot(owner, 'usage-numbers');
  });

  it('shows a PDF answer in the playground, with a link to its bytes', async () => {
    await open(owner, '/console/playground');
    await choose(owner, 'Endpoint', 'GET /v1/capture');
    await fill(owner, 'url', fixture.url('/capture.html'));
    await click(owner, 'More parameters');
    await choose(owner, 'format', 'pdf');
    const answer = await answerTo(owner, 'GET', '/v1/capture', () => click(owner, 'Run GET /v1/capture'));
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toMatch(/^application\/pdf/);
    // The answer area shows the PDF in a frame and offers its bytes as a download.
    const frame = await owner.waitForSelector('iframe.result-pdf');
    const src = await frame?.evaluate((element) => (element as HTMLIFrameElement).src);
    expect(src).toMatch(/^blob:/);
    expect(await owner.$eval('a[download]', (link) => [link.getAttribute('href'), link.textContent])).toEqual(
      [src, 'Download the PDF'],
    );
    const pdf = await download(owner, () => click(owner, 'Download the PDF'));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await waitForText(owner, 'application/pdf');
    await shot(owner, 'playground-pdf');
  });

  it('runs an async job from the playground and watches it complete in Jobs', async () => {
    await open(owner, '/console/playground');
    await choose(owner, 'Endpoint', 'GET /v1/capture');
    await fill(owner, 'url', fixture.url('/capture.html'));
    await click(owner, 'More parameters');
    await choose(owner, 'is_async', 'true');
    const answer = await answerTo(owner, 'GET', '/v1/capture', () => click(owner, 'Run GET /v1/capture'));
    expect(answer.status()).toBe(202);
    await click(owner, 'follow it in Jobs');
    await owner.waitForSelector('dialog[open]');
    await owner.waitForFunction(
      () => document.querySelector('dialog[open] .badge')?.textContent === 'completed',
    );
    const image = await owner.waitForSelector('dialog[open] img.result-image');
    await owner.waitForFunction((img) => img?.complete === true && img.naturalWidth > 0, {}, image);
    await shot(owner, 'job');
    await click(owner, 'Close');
    await owner.waitForSelector('dialog[open]', { hidden: true });
    await owner.waitForFunction(
      () => document.querySelector('[data-testid="jobs"] .badge')?.textContent === 'completed',
    );
    await click(owner, 'Show secret');
    await owner.waitForSelector('#webhook-secret');
    await shot(owner, 'jobs');
    await click(owner, 'Hide secret');
  });

  it('cancels a queued job from Jobs: it ends unrun, and the job before it completes', async () => {
    const running = await submitHeldJob(keys[0] ?? '', '/hold/running');
    await arrival('/hold/running');
    // The one job slot is taken: the next job waits in the queue.
    const queued = await submitHeldJob(keys[0] ?? '', '/hold/queued');
    await open(owner, '/console/jobs');
    const badge = (id: string) => `tr[data-job-id="${id}"] td[data-label="Status"] .badge`;
    await owner.waitForFunction(
      (running, queued) =>
        document.querySelector(running)?.textContent === 'running' &&
        document.querySelector(queued)?.textContent === 'queued',
      {},
      badge(running),
      badge(queued),
    );
    await shot(owner, 'jobs-queued');

    const cancelled = await answerTo(owner, 'DELETE', `/console/api/jobs/${queued}`, () =>
      click(owner, `Cancel ${queued}`),
    );
    expect(cancelled.status()).toBe(200);
    await owner.waitForFunction(
      (selector) => document.querySelector(selector)?.textContent === 'failed',
      {},
      badge(queued),
    );
    expect(await owner.$eval(`tr[data-job-id="${queued}"]`, (row) => row.textContent)).toContain(
      '409: Cancelled',
    );
    // Cancel went from the row with the focus it had: the row's View link has it now, not the body.
    await owner.waitForFunction(
      (id) => document.activeElement?.closest('tr')?.getAttribute('data-job-id') === id,
      {},
      queued,
    );
    expect(await owner.evaluate(() => document.activeElement?.textContent)).toBe(`View ${queued}`);
    const record = await fetch(url(`/jobs/${queued}`), { headers: { 'x-api-key': keys[0] ?? '' } });
    expect(await record.json()).toMatchObject({ status: 'failed', error: { status: 409 } });

    release('/hold/running');
    await owner.waitForFunction(
      (selector) => document.querySelector(selector)?.textContent === 'completed',
      {},
      badge(running),
    );
    await shot(owner, 'jobs-cancelled');
    // The cancelled job never ran: its page was never asked for.
    expect(held.has('/hold/queued')).toBe(false);
  });

  it("shows the account's crawls and batches in Jobs with their progress, and cancels a queued crawl", async () => {
    const key = keys[0] ?? '';
    const row = (id: string) => `tr[data-crawl-id="${id}"]`;
    /** Waits until the row shows this status and this count of its progress. */
    const shows = (id: string, status: string, count: string) =>
      owner.waitForFunction(
        (selector, status, count) =>
          document.querySelector(`${selector} td[data-label="Status"] .badge`)?.textContent === status &&
          document.querySelector(`${selector} .progress-count`)?.textContent === count,
        {},
        row(id),
        status,
        count,
      );
    const whole = await startCrawl(key, '/v1/crawl', { url: fixture.url('/capture.html'), sitemap: 'skip' });
    await open(owner, '/console/jobs');
    await shows(whole, 'completed', '1 of 1 pages');
    // The batch's last item is held: it runs, and takes the one job slot, until the test lets it go.
    const batch = await startCrawl(key, '/v1/batch', {
      engine: 'content',
      urls: [
        fixture.url('/capture.html'),
        fixture.url('/tall.html'),
        `http://127.0.0.1:${holdSite.port}/hold/batch`,
      ],
      max_concurrency: 1,
    });
    await arrival('/hold/batch');
    const queued = await startCrawl(key, '/v1/crawl', {
      url: `http://127.0.0.1:${holdSite.port}/hold/crawl`,
      sitemap: 'skip',
      respect_robots: false,
    });
    // Nothing shown was moving, so the view waits for its Refresh; from then on it reads itself again while the batch runs.
    await click(owner, 'Refresh');
    await shows(batch, 'running', '2 of 3 items');
    await shows(queued, 'queued', '0 of 1 pages');
    expect(await owner.$eval(`${row(whole)} [data-testid="target"]`, (sub) => sub.textContent)).toBe(
      `crawl of ${fixture.url('/capture.html')}`,
    );
    expect(await owner.$eval(`${row(batch)} progress`, (bar) => [bar.value, bar.max])).toEqual([2, 3]);
    expect(await owner.$eval(`${row(batch)} td[data-label="Credits"]`, (cell) => cell.textContent)).toBe('2');
    await shot(owner, 'jobs-crawls');

    const cancelled = await answerTo(owner, 'DELETE', `/console/api/crawls/${queued}`, () =>
      click(owner, `Cancel ${queued}`),
    );
    expect(cancelled.status()).toBe(200);
    await shows(queued, 'cancelled', '0 of 1 pages');
    expect(await hasControl(owner, `Cancel ${queued}`)).toBe(false);
    release('/hold/batch');
    await shows(batch, 'completed', '3 of 3 items');
    expect(await owner.$eval(`${row(batch)} td[data-label="Credits"]`, (cell) => cell.textContent)).toBe('3');
    await shot(owner, 'jobs-crawls-ended');
    const record = await fetch(url(`/v1/crawl/${queued}`), { headers: { 'x-api-key': key } });
    expect(await record.json()).toMatchObject({ status: 'cancelled', counts: { completed: 0, running: 0 } });
    // The cancelled crawl never ran: its page was never asked for.
    expect(held.has('/hold/crawl')).toBe(false);
  });

  it('rotates the webhook secret: the secret shown changes', async () => {
    await open(owner, '/console/jobs');
    await click(owner, 'Show secret');
    const secretOf = () => owner.$eval('#webhook-secret', (input) => (input as HTMLInputElement).value);
    await owner.waitForSelector('#webhook-secret');
    const before = await secretOf();
    expect(before).not.toBe('');
    await click(owner, 'Rotate secret');
    await owner.waitForSelector('dialog[open]');
    await shot(owner, 'webhook-rotate');
    const rotated = await answerTo(owner, 'POST', '/console/api/webhook-secret/rotate', () =>
      click(owner, 'Rotate'),
    );
    expect(rotated.status()).toBe(200);
    const { secret } = (await rotated.json()) as { secret: string };
    expect(secret).not.toBe(before);
    await owner.waitForSelector('dialog[open]', { hidden: true });
    await owner.waitForFunction(
      (wanted) => (document.querySelector('#webhook-secret') as HTMLInputElement | null)?.value === wanted,
      {},
      secret,
    );
    await shot(owner, 'webhook-rotated');
    // What the page shows is what the service now signs with.
    const shown = await owner.evaluate(
      async () => ((await (await fetch('/console/api/webhook-secret')).json()) as { secret: string }).secret,
    );
    expect(shown).toBe(secret);
    await click(owner, 'Hide secret');
  });

  it('shows health, the audit log and the account page', async () => {
    await open(owner, '/console/health');
    await owner.waitForSelector('[data-engine="capture"]');
    await shot(owner, 'health');
    await open(owner, '/console/audit');
    await waitForText(owner, 'key.create');
    await shot(owner, 'audit');
    await open(owner, '/console/account');
    await waitForText(owner, 'Change your password');
    await shot(owner, 'account');
  });

  it('tells the owner of an account without the stats feature how the operator turns it on', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const account = await fetch(url('/admin/v1/accounts'), {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Initech', slug: 'initech' }),
    });
    expect(account.status).toBe(201);
    const user = await fetch(url('/admin/v1/users'), {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ ...INITECH_OWNER, role: 'owner', account: 'initech' }),
    });
    expect(user.status).toBe(201);
    const page = await newPage(browser, log);
    await signIn(page, INITECH_OWNER);
    await open(page, '/console/health');
    await waitForText(page, 'Stats are not enabled for this account.');
    const paragraphs = await page.$$eval('.state-empty p', (elements) =>
      elements.map((element) => element.textContent),
    );
    expect(paragraphs).toEqual([
      'Stats are not enabled for this account.',
      'The operator of this service turns them on per account: in the console, under Accounts, initech, ' +
        'the Stats feature; or from a shell, webcap admin accounts update initech --stats true; or over the ' +
        'admin API, PATCH /admin/v1/accounts/initech with {"stats_enabled": true}. Ask them, then open this view again.',
    ]);
    expect(await page.evaluate(() => document.body.innerText)).not.toContain('Forbidden');
    await shot(page, 'health-without-stats');
    await page.browserContext().close();
  });

  it('lets an owner invite a member, who cannot do owner things in the page or through the API', async () => {
    await open(owner, '/console/team');
    await click(owner, 'Invite someone');
    await fill(owner, 'Email', MEMBER.email);
    await choose(owner, 'Role', 'member');
    await click(owner, 'Make the invitation link');
    const link = await owner.waitForSelector('#invite-url');
    const inviteUrl = (await link?.evaluate((input) => (input as HTMLInputElement).value)) ?? '';
    expect(inviteUrl).toMatch(/\/console\/invite\/[^/]+$/);
    await shot(owner, 'team-invite');
    await click(owner, 'Done');
    await owner.waitForSelector(`tr[data-invite-email="${MEMBER.email}"]`);
    await settled(owner);
    await shot(owner, 'team');

    // A second invitation, withdrawn: it leaves the list and its link stops working.
    const withdrawnEmail = 'cy@example.com';
    await click(owner, 'Invite someone');
    await fill(owner, 'Email', withdrawnEmail);
    await click(owner, 'Make the invitation link');
    const withdrawnLink = await owner.waitForSelector('#invite-url');
    const withdrawnUrl = (await withdrawnLink?.evaluate((input) => (input as HTMLInputElement).value)) ?? '';
    await click(owner, 'Done');
    await owner.waitForSelector(`tr[data-invite-email="${withdrawnEmail}"]`);
    await settled(owner);
    expect(await pageTraces(owner)).not.toContain(new URL(withdrawnUrl).pathname.split('/').pop());
    await shot(owner, 'team-pending');
    const inviteId = await owner.evaluate(async (email) => {
      const page = (await (await fetch('/console/api/invites')).json()) as {
        items: { id: string; email: string }[];
      };
      return page.items.find((invite) => invite.email === email)?.id ?? '';
    }, withdrawnEmail);
    const withdrawn = await answerTo(owner, 'DELETE', `/console/api/invites/${inviteId}`, () =>
      click(owner, `Withdraw the invitation of ${withdrawnEmail}`),
    );
    expect(withdrawn.status()).toBe(204);
    await owner.waitForSelector(`tr[data-invite-email="${withdrawnEmail}"]`, { hidden: true });
    expect(await owner.$$eval('tr[data-invite-email]', (rows) => rows.length)).toBe(1);
    // The row went with the focused button: the list's heading has focus, not the body.
    await owner.waitForFunction(() => document.activeElement?.id === 'pending-title');
    const dead = await newPage(browser, log);
    await dead.goto(withdrawnUrl);
    await waitForText(dead, 'This invitation cannot be used');
    await settled(dead);
    await shot(dead, 'invite-withdrawn');
    await dead.browserContext().close();

    member = await newPage(browser, log);
    await member.goto(url(new URL(inviteUrl).pathname));
    await settled(member);
    await waitForText(member, 'Join Acme');
    await fill(member, 'Your name', MEMBER.name);
    await fill(member, 'Choose a password', MEMBER.password);
    await fill(member, 'The password again', MEMBER.password);
    await shot(member, 'invite');
    await click(member, 'Join and sign in');
    await member.waitForSelector('nav[aria-label="Sections"]');
    await settled(member);

    expect(await hasControl(member, 'Create key')).toBe(false);
    expect(await hasControl(member, 'Deactivate')).toBe(false);
    expect(await hasControl(member, 'Team')).toBe(false);
    await shot(member, 'member-keys');
    await open(member, '/console/jobs');
    expect(await hasControl(member, 'Show secret')).toBe(false);
    await open(member, '/console/team');
    await waitForText(member, 'Only the account’s owners can open this section.');
    await shot(member, 'member-team');

    const refused = await member.evaluate(async () => {
      const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
      const headers = { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token };
      const attempts = [
        fetch('/console/api/keys', { method: 'POST', headers, body: '{}' }),
        fetch('/console/api/webhook-secret', { headers }),
        fetch('/console/api/users', { headers }),
        fetch('/console/api/invites', { headers }),
        fetch('/console/api/invites/inv_any', { method: 'DELETE', headers }),
        fetch('/console/api/invites', {
          method: 'POST',
          headers,
          body: JSON.stringify({ email: 'x@example.com', role: 'owner' }),
        }),
      ];
      return Promise.all(attempts.map(async (attempt) => (await attempt).status));
    });
    expect(refused).toEqual([403, 403, 403, 403, 403, 403]);
  });

  it('refuses a state change without the CSRF token, from the page and from elsewhere with the cookie', async () => {
    const inPage = await owner.evaluate(async () => {
      const answer = await fetch('/console/api/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return { status: answer.status, body: (await answer.json()) as { error: string } };
    });
    expect(inPage).toEqual({ status: 403, body: { error: 'Forbidden: CSRF token missing or wrong' } });

    const cookie = (await owner.browserContext().cookies()).find((c) => c.name === 'webcap_session');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Strict');
    const headers = { cookie: `webcap_session=${cookie?.value}`, 'content-type': 'application/json' };
    const keysAnswer = await fetch(url('/console/api/keys'), { method: 'POST', headers, body: '{}' });
    expect(keysAnswer.status).toBe(403);
    const keyId = await owner.evaluate(
      async () =>
        ((await (await fetch('/console/api/keys')).json()) as { items: { id: string }[] }).items[0]?.id ?? '',
    );
    const playgroundCall = await fetch(url('/v1/usage'), {
      headers: { cookie: `webcap_session=${cookie?.value}`, 'x-webcap-console-key': keyId },
    });
    expect(playgroundCall.status).toBe(403);
  });

  it('deactivates the key from Keys, and the API answers it 401', async () => {
    await open(owner, '/console/keys');
    const answer = await answerTo(
      owner,
      'PATCH',
      `/console/api/keys/${await owner.$eval('tr[data-key-id]', (row) => row.getAttribute('data-key-id'))}`,
      () => click(owner, 'Deactivate'),
    );
    expect(answer.status()).toBe(200);
    await owner.waitForFunction(
      () => document.querySelector('tr[data-key-id] .badge')?.textContent === 'inactive',
    );
    await shot(owner, 'keys-deactivated');
    const refused = await fetch(url('/v1/usage'), { headers: { 'x-api-key': keys[0] ?? '' } });
    expect(refused.status).toBe(401);
  });

  it('edits a key (alias, quota) and revokes it, and the API then answers it 401', async () => {
    await open(owner, '/console/keys');
    await click(owner, 'Create key');
    await fill(owner, 'Alias', 'ci');
    const made = await answerTo(owner, 'POST', '/console/api/keys', () => click(owner, 'Create key'));
    expect(made.status()).toBe(201);
    const { id, key } = (await made.json()) as { id: string; key: string };
    keys.push(key);
    await click(owner, 'I have copied it');
    await owner.waitForSelector(`tr[data-key-id="${id}"]`);

    await click(owner, 'Edit ci');
    await fill(owner, 'Alias', 'ci-nightly');
    await fill(owner, 'Daily', '5');
    await shot(owner, 'key-edit');
    const saved = await answerTo(owner, 'PATCH', `/console/api/keys/${id}`, () => click(owner, 'Save'));
    expect(saved.status()).toBe(200);
    expect(JSON.parse(saved.request().postData() ?? '{}')).toMatchObject({
      alias: 'ci-nightly',
      quotas: { daily: 5, total: null },
    });
    const row = `tr[data-key-id="${id}"]`;
    await owner.waitForFunction(
      (row) =>
        document.querySelector(`${row} .strong`)?.textContent === 'ci-nightly' &&
        document.querySelector(`${row} td[data-label="Today"]`)?.textContent === '0 / 5',
      {},
      row,
    );
    await shot(owner, 'keys-edited');
    const usage = await fetch(url('/v1/usage'), { headers: { 'x-api-key': key } });
    expect(await usage.json()).toMatchObject({ api_key: { alias: 'ci-nightly', quotas: { daily: 5 } } });

    // At phone width the rows are cards, and the table is still a table to a screen reader.
    await owner.setViewport({ width: 375, height: 812 });
    const table = await owner.waitForSelector('table:has(tr[data-key-id])');
    const tree = await owner.accessibility.snapshot({ root: table ?? undefined, interestingOnly: false });
    const roles = (node: typeof tree): string[] =>
      node === null ? [] : [node.role, ...(node.children ?? []).flatMap((child) => roles(child))];
    const found = roles(tree);
    expect(found[0]).toBe('table');
    expect(found.filter((role) => role === 'columnheader')).toHaveLength(8);
    expect(found).toContain('cell');
    await owner.setViewport({ width: 1280, height: 800 });

    await click(owner, 'Revoke ci-nightly');
    await owner.waitForSelector('dialog[open]');
    await shot(owner, 'key-revoke');
    const revoked = await answerTo(owner, 'POST', `/console/api/keys/${id}/revoke`, () =>
      click(owner, 'Revoke key'),
    );
    expect(revoked.status()).toBe(200);
    await owner.waitForFunction(
      (row) => document.querySelector(`${row} .badge`)?.textContent === 'revoked',
      {},
      row,
    );
    await shot(owner, 'keys-revoked');
    const refused = await fetch(url('/v1/usage'), { headers: { 'x-api-key': key } });
    expect(refused.status).toBe(401);
  });

  it('lets the operator sign in with the admin token, see every account, create one and its owner, and see the system', async () => {
    operator = await newPage(browser, log);
    await open(operator, '/console/');
    await click(operator, 'Operator? Sign in with the admin token');
    await fill(operator, 'Admin token', ADMIN_TOKEN);
    await click(operator, 'Sign in');
    await waitForText(operator, 'Every account on this service.');
    await settled(operator);
    await shot(operator, 'operator-accounts');

    await click(operator, 'Create account');
    await fill(operator, 'Name', 'Globex');
    await fill(operator, 'Slug', 'globex');
    await fill(operator, 'Monthly quota', '500');
    await (await field(operator, 'Stats feature (GET /v1/stats and the Health view)')).click();
    await shot(operator, 'operator-create-account');
    const created = await answerTo(operator, 'POST', '/console/api/operator/accounts', () =>
      click(operator, 'Create account'),
    );
    expect(created.status()).toBe(201);
    await waitForText(operator, 'Plan and caps');
    await settled(operator);

    await click(operator, 'Add a console user');
    await fill(operator, 'Email', GLOBEX_OWNER.email);
    await fill(operator, 'Name', GLOBEX_OWNER.name);
    await choose(operator, 'Role', 'owner');
    await fill(operator, 'Password', GLOBEX_OWNER.password);
    const user = await answerTo(operator, 'POST', '/console/api/operator/accounts/globex/users', () =>
      click(operator, 'Add user'),
    );
    expect(user.status()).toBe(201);
    await operator.waitForSelector(`tr[data-user-email="${GLOBEX_OWNER.email}"]`);
    await shot(operator, 'operator-account-new');

    // An account that is not there: the view's error state, with the API's message.
    await operator.goto(url('/console/operator/accounts/no-such-account'));
    await operator.waitForSelector('.state-error');
    expect(await operator.$eval('.state-error p', (element) => element.textContent)).toBe(
      'Not Found: no account no-such-account',
    );
    await shot(operator, 'operator-account-missing');

    // The account the owner used: its keys, people, balances and calls.
    await open(operator, '/console/operator/accounts/acme');
    await operator.waitForSelector(`tr[data-user-email="${MEMBER.email}"]`);
    await waitForText(operator, 'playground');
    await shot(operator, 'operator-account');
    await open(operator, '/console/operator/requests');
    await operator.waitForSelector('[data-testid="request-log"]');
    await shot(operator, 'operator-requests');

    for (const [pathname, name, text] of [
      ['/console/operator/health', 'operator-health', 'Render pool'],
      ['/console/operator/audit', 'operator-audit', 'account.create'],
    ] as const) {
      await open(operator, pathname);
      await waitForText(operator, text);
      await shot(operator, name);
    }
  });

  it("lets the operator change an account's plan, add a pack and grant credits; usage shows them in draw order", async () => {
    await open(operator, '/console/operator/accounts/globex');
    await fill(operator, 'Monthly quota', '800');
    await fill(operator, 'Calls per second', '5');
    const plan = await answerTo(operator, 'PATCH', '/console/api/operator/accounts/globex', () =>
      click(operator, 'Save plan'),
    );
    expect(plan.status()).toBe(200);
    expect(await plan.json()).toMatchObject({ monthly_quota: 800, per_second: 5 });
    await waitForText(operator, 'Saved.');

    await fill(operator, 'Units', '200');
    await fill(operator, 'Title', 'Launch pack');
    const pack = await answerTo(operator, 'POST', '/console/api/operator/accounts/globex/packs', () =>
      click(operator, 'Add pack'),
    );
    expect(pack.status()).toBe(201);
    await waitForText(operator, 'Pack of 200 added.');
    await fill(operator, 'Credits', '50');
    await fill(operator, 'Note', 'welcome');
    const grant = await answerTo(operator, 'POST', '/console/api/operator/accounts/globex/credits', () =>
      click(operator, 'Grant credits'),
    );
    expect(grant.status()).toBe(201);
    await waitForText(operator, '50 credits granted.');

    const drawOrder = [
      'Subscription800 left of 800',
      'Pack: Launch pack200 left of 200',
      'Credits50 left of 50',
    ];
    const balances = (page: Page) =>
      page.$$eval('.balances li', (items) => items.map((item) => item.textContent));
    await operator.waitForFunction(
      (wanted) =>
        JSON.stringify([...document.querySelectorAll('.balances li')].map((item) => item.textContent)) ===
        wanted,
      {},
      JSON.stringify(drawOrder),
    );
    expect(await operator.$eval('[data-testid="remaining"]', (element) => element.textContent)).toBe('1,050');
    await waitForText(operator, '5/s');
    await shot(operator, 'operator-account-balances');

    // The account's owner sees the same balances, in the same order.
    const gina = await newPage(browser, log);
    await signIn(gina, GLOBEX_OWNER);
    await open(gina, '/console/usage');
    await gina.waitForSelector('.balances li');
    expect(await balances(gina)).toEqual(drawOrder);
    expect(await gina.$eval('[data-testid="remaining"]', (element) => element.textContent)).toBe('1,050');
    await shot(gina, 'usage-balances');
    await gina.browserContext().close();
  });

  it('changes the password: the new one signs in, the old one does not, and other sessions end', async () => {
    const elsewhere = await newPage(browser, log);
    await signIn(elsewhere, OWNER);
    await open(owner, '/console/account');
    await fill(owner, 'Current password', 'not my password');
    await fill(owner, 'New password', NEW_OWNER_PASSWORD);
    await fill(owner, 'New password again', NEW_OWNER_PASSWORD);
    const wrong = await answerTo(owner, 'POST', '/console/api/password', () =>
      click(owner, 'Change password'),
    );
    expect(wrong.status()).toBe(400);
    await waitForText(owner, 'Bad Request: current_password is wrong');
    await shot(owner, 'password-wrong');

    await fill(owner, 'Current password', OWNER.password);
    const changed = await answerTo(owner, 'POST', '/console/api/password', () =>
      click(owner, 'Change password'),
    );
    expect(changed.status()).toBe(204);
    await waitForText(owner, 'Your password is changed; your other sessions have ended.');
    await shot(owner, 'password-changed');
    // This session goes on; the other one has ended.
    expect(await owner.evaluate(async () => (await fetch('/console/api/session')).status)).toBe(200);
    expect(await elsewhere.evaluate(async () => (await fetch('/console/api/session')).status)).toBe(401);
    await elsewhere.browserContext().close();

    const old = await newPage(browser, log);
    await open(old, '/console/');
    await fill(old, 'Email', OWNER.email);
    await fill(old, 'Password', OWNER.password);
    const refused = await answerTo(old, 'POST', '/console/api/session', () => click(old, 'Sign in'));
    expect(refused.status()).toBe(401);
    await waitForText(old, 'email or password is wrong');
    await old.browserContext().close();
    const fresh = await newPage(browser, log);
    await signIn(fresh, { email: OWNER.email, password: NEW_OWNER_PASSWORD });
    await fresh.browserContext().close();
  });

  it('signs out everywhere: the session of another browser is refused afterwards', async () => {
    const elsewhere = await newPage(browser, log);
    await signIn(elsewhere, { email: OWNER.email, password: NEW_OWNER_PASSWORD });
    await open(owner, '/console/account');
    const out = await answerTo(owner, 'POST', '/console/api/session/everywhere', () =>
      click(owner, 'Sign out everywhere'),
    );
    expect(out.status()).toBe(204);
    await waitForText(owner, 'You are signed out everywhere.');
    await owner.waitForSelector('nav[aria-label="Sections"]', { hidden: true });
    await shot(owner, 'signed-out-everywhere');

    // The other browser's next call is refused, and its page says the session ended.
    const refused = await answerTo(elsewhere, 'GET', '/console/api/usage', () => click(elsewhere, 'Usage'));
    expect(refused.status()).toBe(401);
    await waitForText(elsewhere, 'Your session has ended. Sign in again.');
    await shot(elsewhere, 'session-ended');
    expect(await elsewhere.evaluate(async () => (await fetch('/console/api/session')).status)).toBe(401);
    await elsewhere.browserContext().close();
  });

  it('never put a key in a URL the pages asked for or in a script, and met no CSP refusal or script error', () => {
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(log.urls.filter((u) => u.includes(key))).toEqual([]);
    const assets = path.join(ROOT, 'dist/console/assets');
    for (const file of fs.readdirSync(assets)) {
      const text = fs.readFileSync(path.join(assets, file), 'utf8');
      for (const key of keys) expect(text.includes(key), file).toBe(false);
    }
    expect(log.urls.filter((u) => /x_api_key|access_key/.test(u))).toEqual([]);
    // Answers the test asked for (401 before sign-in, 400, 403, 404) are logged as failed loads; a
    // CSP refusal or a script error would be anything else.
    expect(log.errors.filter((e) => !/the server responded with a status of 4\d\d/.test(e))).toEqual([]);
  });

  it('slows brute force: five wrong passwords lock the email, even the right one is refused', async () => {
    const attacker = await newPage(browser, log);
    await open(attacker, '/console/');
    await fill(attacker, 'Email', OWNER.email);
    await fill(attacker, 'Password', 'not the password');
    for (let attempt = 1; attempt <= 5; attempt++) {
      const answer = await answerTo(attacker, 'POST', '/console/api/session', () =>
        click(attacker, 'Sign in'),
      );
      expect(answer.status()).toBe(401);
      await waitForText(attacker, 'email or password is wrong');
    }
    await fill(attacker, 'Password', NEW_OWNER_PASSWORD);
    const locked = await answerTo(attacker, 'POST', '/console/api/session', () => click(attacker, 'Sign in'));
    expect(locked.status()).toBe(401);
    expect(locked.headers()['retry-after']).toBeDefined();
    await waitForText(attacker, 'too many failed sign-ins; try again later');
    await shot(attacker, 'sign-in-locked');
  });
});
