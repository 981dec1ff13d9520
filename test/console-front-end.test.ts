import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.js';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.js';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; connect-src 'self'; font-src 'self'; frame-src 'self' blob:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** What a console build writes (dist/console): index.html and hashed assets. */
function fakeBuild(): string {
  const dir = tempDir('webcap-console-');
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/console/assets/index-AbC123.js"></script></head><body><div id="app"></div></body></html>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'index-AbC123.js'), 'console.log("console");\n');
  fs.writeFileSync(path.join(dir, 'assets', 'index-DeF456.css'), 'body{margin:0}\n');
  fs.writeFileSync(path.join(dir, 'assets', '.hidden'), 'secret\n');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'outside the assets\n');
  return dir;
}

function expectSecurityHeaders(headers: Record<string, unknown>, csp = CSP): void {
  expect(headers['content-security-policy']).toBe(csp);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-frame-options']).toBe('DENY');
}

describe('the console front end, served', () => {
  let t: TestRuntime;
  const get = (url: string) => t.runtime.app.inject({ url });

  beforeAll(async () => {
    t = await startTestRuntime('sqlite', { consoleDir: fakeBuild() });
  });
  afterAll(() => t?.close());

  it('answers /console and every page under it with index.html, revalidated on each load, under the CSP', async () => {
    for (const url of [
      '/console',
      '/console/',
      '/console/keys',
      '/console/invite/abc',
      '/console/operator/accounts/acme',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<div id="app"></div>');
      expectSecurityHeaders(res.headers);
    }
  });

  it('serves hashed assets for a year, immutable, with their types', async () => {
    const js = await get('/console/assets/index-AbC123.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(js.body).toBe('console.log("console");\n');
    expectSecurityHeaders(js.headers);
    const css = await get('/console/assets/index-DeF456.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });

  it('answers a missing asset, a dotfile or a way out of the assets with a JSON 404, never a page', async () => {
    for (const url of [
      '/console/assets/missing.js',
      '/console/assets/.hidden',
      '/console/assets/%2e%2e/secret.txt',
      '/console/assets/..%2fsecret.txt',
      '/console/assets/',
    ]) {
      const res = await get(url);
      // A path the router resolves out of /console/assets is one of the app's pages; anything
      // under it that is no asset is a JSON error. Never the file outside the assets.
      if (res.statusCode === 200) expect(res.body, url).toContain('<div id="app"></div>');
      else expect([400, 403, 404], `${url}: ${res.statusCode} ${res.body}`).toContain(res.statusCode);
      expect(res.body, url).not.toContain('outside the assets');
      expect(res.body, url).not.toContain('secret');
    }
    // Dot segments are resolved before routing: this is the page /console/secret.txt, the app's.
    const dotted = await get('/console/assets/../secret.txt');
    expect(dotted.body).toContain('<div id="app"></div>');
    for (const url of ['/console/api', '/console/api/', '/console/api/nothing', '/console/api/a/b?x=1']) {
      const api = await get(url);
      expect({ url, status: api.statusCode, body: api.body }).toEqual({
        url,
        status: 404,
        body: JSON.stringify({ error: 'Not Found' }),
      });
      expect(api.headers['content-type']).toMatch(/^application\/json/);
      expect(api.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('keeps a listening server inside the assets for paths sent as they are (no client normalizing them)', async () => {
    await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.runtime.app.server.address() as { port: number };
    const raw = (pathname: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: pathname }, (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    for (const pathname of [
      '/console/assets/../secret.txt',
      '/console/assets/%2e%2e/secret.txt',
      '/console/assets/..%2fsecret.txt',
      '/console/assets/%2e%2e%2fsecret.txt',
      '/console/assets/..%5csecret.txt',
      '/console/assets/.hidden',
    ]) {
      const res = await raw(pathname);
      expect(res.body, pathname).not.toContain('outside the assets');
      expect(res.body, pathname).not.toContain('secret');
      expect(res.status, `${pathname}: ${res.body}`).not.toBe(500);
      if (res.status === 200) expect(res.body, pathname).toContain('<div id="app"></div>');
    }
  });

  it('puts the same headers on the console API', async () => {
    const res = await get('/console/api/session');
    expect(res.statusCode).toBe(401);
    expectSecurityHeaders(res.headers);
  });

  it('leaves /docs and the API without the console headers', async () => {
    const res = await get('/healthz');
    expect(res.headers['content-security-policy']).toBeUndefined();
  });
});

describe('the console front end, not built', () => {
  it('answers a short plain page saying to run npm run build', async () => {
    const t = await startTestRuntime('sqlite', { consoleDir: tempDir('webcap-no-console-') });
    try {
      const res = await t.runtime.app.inject({ url: '/console' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.body).toContain('npm run build');
      expectSecurityHeaders(res.headers);
      expect((await t.runtime.app.inject({ url: '/console/assets/index.js' })).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe('the console CSP behind PUBLIC_BASE_URL', () => {
  it('lets images and recordings come from the published origin too (screenshot_url links point there)', async () => {
    const t = await startTestRuntime('sqlite', {
      consoleDir: fakeBuild(),
      env: { PUBLIC_BASE_URL: 'https://shots.example.com/base/' },
    });
    try {
      const res = await t.runtime.app.inject({ url: '/console' });
      expectSecurityHeaders(
        res.headers,
        CSP.replace(
          "img-src 'self' data: blob:",
          "img-src 'self' data: blob: https://shots.example.com",
        ).replace("media-src 'self' data: blob:", "media-src 'self' data: blob: https://shots.example.com"),
      );
    } finally {
      await t.close();
    }
  });
});
