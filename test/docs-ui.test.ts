import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './helpers/chromium.js';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * The API reference at /docs carries webcap's name and look under a strict Content-Security-Policy:
 * checked on the served page and in Chromium, which reports any script or style the policy blocks.
 */
let t: TestRuntime;
let browser: Browser;
let base: string;

beforeAll(async () => {
  t = await startTestRuntime('sqlite');
  await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/docs', () => {
  it("is where the server's own address leads", async () => {
    const root = await t.runtime.app.inject({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/docs');
  });

  it("is webcap's page: its title, stylesheet and icon, no inline script, a CSP that allows nothing from elsewhere", async () => {
    const page = await t.runtime.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    const html = page.body;
    expect(html).toContain('<title>webcap API reference</title>');
    expect(html).toContain('theme/webcap.css');
    expect(html).toContain('theme/favicon.svg');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\bstyle="/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(
      /^default-src 'none'; script-src 'self'; style-src 'self' 'sha256-[^']+'; img-src 'self' data:;/,
    );
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:|\*|'unsafe-/);

    const css = await t.runtime.app.inject({ method: 'GET', url: '/docs/static/theme/webcap.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.body).toContain('--wc-accent: #3b32c8');
    const icon = await t.runtime.app.inject({ method: 'GET', url: '/docs/static/theme/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.body).toMatch(/^<svg /);
  });

  it('renders in Chromium with our mark, every operation listed, and nothing blocked by its policy', async () => {
    const page = await browser.newPage();
    try {
      await page.evaluateOnNewDocument(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          (window as unknown as { blocked: string[] }).blocked ??= [];
          (window as unknown as { blocked: string[] }).blocked.push(
            `${event.violatedDirective} ${event.blockedURI}`,
          );
        });
      });
      const outside: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(base) && !request.url().startsWith('data:'))
          outside.push(request.url());
      });
      await page.goto(`${base}/docs`, { waitUntil: 'load' });
      await page.waitForSelector('.opblock-summary-path');
      const seen = await page.evaluate(() => ({
        title: document.title,
        logo: document.querySelector('.topbar-wrapper img')?.getAttribute('src') ?? '',
        paths: [...document.querySelectorAll('.opblock-summary-path')].map((path) =>
          path.textContent?.trim(),
        ),
        blocked: (window as unknown as { blocked?: string[] }).blocked ?? [],
      }));
      expect(seen.title).toBe('webcap API reference');
      expect(
        Buffer.from(seen.logo.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString(),
      ).toContain('aria-label="webcap API reference"');
      expect(seen.paths).toEqual(
        expect.arrayContaining(['/v1/capture', '/v1/content', '/v1/analyze', '/jobs/{job_id}']),
      );
      expect(seen.blocked).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
