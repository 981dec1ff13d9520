import fs from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { Webcap } from '@webcap/sdk';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/** What a server received: its path and the headers that matter here. */
interface Received {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
}

const SECRET_HEADER = 'header-secret-1f2e3d';
const SECRET_COOKIE = 'cookie-secret-4c5b6a';
const SECRET_AUTH = 'Bearer auth-secret-7d8e9f';
const USER_AGENT = 'ShapingTest/1.0 (webcap)';

/*
 * Request shaping end to end (docs/capture.md, "Request shaping"): real Chromium behind the egress
 * proxy; a target on 127.0.0.1 and a third party on another port under another host name
 * (third.webcap.test, answered by the test resolver), each recording what it received.
 */
describe('request shaping', () => {
  let target: TestServer;
  let third: TestServer;
  let t: TestRuntime;
  let key: string;
  let targetSeen: Received[] = [];
  let thirdSeen: Received[] = [];

  const thirdUrl = (path: string) => `http://third.webcap.test:${third.port}${path}`;
  const targetUrl = (path: string) => `http://127.0.0.1:${target.port}${path}`;

  beforeAll(async () => {
    third = await startServer((req, res) => {
      thirdSeen.push({ path: req.url ?? '', headers: req.headers });
      if (req.url === '/pixel.svg') {
        res.setHeader('content-type', 'image/svg+xml');
        res.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
        return;
      }
      res.setHeader('content-type', 'text/html');
      res.setHeader('access-control-allow-origin', '*');
      res.end('<p>third party</p>');
    });
    target = await startServer((req, res) => {
      targetSeen.push({ path: req.url ?? '', headers: req.headers });
      const path = new URL(req.url ?? '/', 'http://target').pathname;
      if (path === '/away') {
        res.writeHead(302, { location: thirdUrl('/landed') });
        res.end();
        return;
      }
      if (path === '/back') {
        res.writeHead(302, { location: targetUrl('/env') });
        res.end();
        return;
      }
      res.setHeader('content-type', path.endsWith('.css') ? 'text/css' : 'text/html');
      if (path === '/style.css') return res.end('p { margin: 0 }');
      if (path === '/colors') {
        return res.end(`<style>
          body { margin: 0; background: rgb(255, 255, 255) }
          @media (prefers-color-scheme: dark) { body { background: rgb(0, 0, 0) } }
          @media print { body { background: rgb(255, 0, 0); print-color-adjust: exact } }
        </style><p>colors</p>`);
      }
      // The page reports what the browser shows it, then subresources from both origins load.
      res.end(`<!doctype html><link rel="stylesheet" href="/style.css">
        <img src="${thirdUrl('/pixel.svg')}"><iframe src="${thirdUrl('/frame')}"></iframe>
        <p id="env"></p><script>
          const env = document.getElementById('env');
          const report = (geo) => {
            env.textContent = [
              'tz=' + Intl.DateTimeFormat().resolvedOptions().timeZone,
              'lang=' + navigator.language,
              'dark=' + matchMedia('(prefers-color-scheme: dark)').matches,
              'motion=' + matchMedia('(prefers-reduced-motion: reduce)').matches,
              'print=' + matchMedia('print').matches,
              'geo=' + geo,
            ].join(' ');
            const done = document.createElement('i');
            done.id = 'done';
            document.body.append(done);
          };
          fetch(${JSON.stringify(thirdUrl('/fetched'))}).catch(() => undefined);
          fetch('/same-origin-fetch').catch(() => undefined);
          navigator.geolocation.getCurrentPosition(
            (p) => report(p.coords.latitude + ',' + p.coords.longitude),
            (e) => report('denied'),
            { timeout: 5000 },
          );
        </script>`);
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${target.port},127.0.0.1/32:${third.port}`,
        BROWSER_CONCURRENCY: '1',
      },
      resolver: tableResolver({ 'third.webcap.test': ['127.0.0.1'] }),
    });
    key = await newAccountKey(t, 'shaping', 10_000);
  });
  afterAll(async () => {
    await t?.close();
    await target?.close();
    await third?.close();
  });
  beforeEach(() => {
    targetSeen = [];
    thirdSeen = [];
  });

  const content = (query: Record<string, string>) =>
    t.runtime.app.inject({
      url: '/v1/content',
      query: { include_markdown: 'true', ...query },
      headers: { 'x-api-key': key },
    });
  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;

  /** The caller's secrets anywhere in what a server received. */
  const secretsIn = (seen: readonly Received[]) =>
    seen.filter((request) => {
      const text = JSON.stringify(request.headers);
      return text.includes(SECRET_HEADER) || text.includes(SECRET_COOKIE) || text.includes('auth-secret');
    });

  describe('happy', () => {
    it('the target gets the headers, cookies, authorization and user agent; the third party none of the secrets', async () => {
      const res = await content({
        url: targetUrl('/env'),
        headers: `X-Shaping: ${SECRET_HEADER}\nX-Other: two`,
        cookies: `session=${SECRET_COOKIE}; theme=dark`,
        authorization: SECRET_AUTH,
        user_agent: USER_AGENT,
        wait_for_selector: '#done',
      });
      expect(res.statusCode).toBe(200);
      const page = targetSeen.find((request) => request.path === '/env');
      expect(page?.headers).toMatchObject({
        'x-shaping': SECRET_HEADER,
        'x-other': 'two',
        authorization: SECRET_AUTH,
        cookie: `session=${SECRET_COOKIE}; theme=dark`,
        'user-agent': USER_AGENT,
      });
      // Same-origin subresources carry them too.
      for (const path of ['/style.css', '/same-origin-fetch']) {
        const sub = targetSeen.find((request) => request.path === path);
        expect(sub?.headers['x-shaping'], path).toBe(SECRET_HEADER);
        expect(sub?.headers.authorization, path).toBe(SECRET_AUTH);
        expect(sub?.headers.cookie, path).toContain(SECRET_COOKIE);
      }
      // The third party was reached by an image, an iframe and a fetch, with none of them.
      expect(thirdSeen.map((request) => request.path).sort()).toEqual(['/fetched', '/frame', '/pixel.svg']);
      expect(secretsIn(thirdSeen)).toEqual([]);
      for (const request of thirdSeen) {
        expect(request.headers['x-other']).toBeUndefined();
        expect(request.headers.cookie).toBeUndefined();
        expect(request.headers.authorization).toBeUndefined();
        // The user agent is the browser's, as a real browser shows it to every host.
        expect(request.headers['user-agent']).toBe(USER_AGENT);
      }
    });

    it('the page reports the time zone, language, location and color scheme asked', async () => {
      const res = await content({
        url: targetUrl('/env'),
        time_zone: 'Asia/Tokyo',
        accept_language: 'fr-CH,fr',
        geolocation_latitude: '46.948',
        geolocation_longitude: '7.4474',
        geolocation_accuracy: '10',
        dark_mode: 'true',
        reduced_motion: 'true',
        media_type: 'print',
        wait_for_selector: '#done',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.markdown).toContain(
        'tz=Asia/Tokyo lang=fr-CH dark=true motion=true print=true geo=46.948,7.4474',
      );
      // Chromium weighs the list itself, as it does the languages of a user's settings.
      expect(targetSeen.find((request) => request.path === '/env')?.headers['accept-language']).toBe(
        'fr-CH,fr;q=0.9',
      );
    });

    it('without shaping the page sees the browser defaults (the test can tell the difference)', async () => {
      const res = await content({ url: targetUrl('/env'), wait_for_selector: '#done' });
      expect(res.statusCode).toBe(200);
      const markdown = res.json().data.markdown as string;
      expect(markdown).toContain('dark=false motion=false print=false geo=denied');
      expect(markdown).not.toContain('tz=Asia/Tokyo');
    });

    it('a redirect to another origin loses the headers and cookies; one back to the target has them', async () => {
      const away = await content({
        url: targetUrl('/away'),
        headers: JSON.stringify({ 'X-Shaping': SECRET_HEADER }),
        cookies: JSON.stringify([{ name: 'session', value: SECRET_COOKIE }]),
        authorization: SECRET_AUTH,
      });
      expect(away.statusCode).toBe(200);
      expect(away.json().data.url).toBe(thirdUrl('/landed'));
      expect(targetSeen.find((request) => request.path === '/away')?.headers['x-shaping']).toBe(
        SECRET_HEADER,
      );
      // The landed page, and the favicon the browser asks of it.
      expect(thirdSeen.map((request) => request.path)).toContain('/landed');
      expect(secretsIn(thirdSeen)).toEqual([]);

      targetSeen = [];
      const back = await content({
        url: targetUrl('/back'),
        headers: `X-Shaping: ${SECRET_HEADER}`,
        wait_for_selector: '#done',
      });
      expect(back.statusCode).toBe(200);
      expect(targetSeen.find((request) => request.path === '/env')?.headers['x-shaping']).toBe(SECRET_HEADER);
    });

    it('POST /v1/analyze takes headers as an object and cookies as a list', async () => {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: '/v1/analyze',
        headers: { 'x-api-key': key },
        payload: {
          url: targetUrl('/env'),
          headers: { 'X-Shaping': SECRET_HEADER },
          cookies: [{ name: 'session', value: SECRET_COOKIE, path: '/', httpOnly: true, sameSite: 'Lax' }],
          user_agent: USER_AGENT,
        },
      });
      expect(res.statusCode).toBe(200);
      expect(targetSeen.find((request) => request.path === '/env')?.headers).toMatchObject({
        'x-shaping': SECRET_HEADER,
        cookie: `session=${SECRET_COOKIE}`,
        'user-agent': USER_AGENT,
      });
      expect(secretsIn(thirdSeen)).toEqual([]);
    });

    it('the SDK sends headers as an object and cookies as a list in a GET query', async () => {
      // The SDK's requests go to the app in-process, as they would over the network.
      const webcap = new Webcap({
        apiKey: key,
        baseUrl: 'http://webcap.test',
        fetch: async (request) => {
          const url = new URL(request.url);
          const res = await t.runtime.app.inject({
            method: request.method as 'GET',
            url: url.pathname + url.search,
            headers: Object.fromEntries(request.headers),
          });
          return new Response(new Uint8Array(res.rawPayload), {
            status: res.statusCode,
            headers: res.headers as Record<string, string>,
          });
        },
      });
      const { data } = await webcap.content({
        url: targetUrl('/env'),
        headers: { 'X-Shaping': SECRET_HEADER },
        cookies: [{ name: 'session', value: SECRET_COOKIE }],
        wait_until: ['load', 'domcontentloaded'],
      });
      expect(data.url).toBe(targetUrl('/env'));
      expect(targetSeen.find((request) => request.path === '/env')?.headers).toMatchObject({
        'x-shaping': SECRET_HEADER,
        cookie: `session=${SECRET_COOKIE}`,
      });
    });

    it("capture: accept_language keeps a device's user agent; user_agent replaces it", async () => {
      const seenBy = async (query: Record<string, string>) => {
        targetSeen = [];
        const res = await t.runtime.app.inject({
          url: '/v1/capture',
          query: { url: targetUrl('/colors'), device: 'iphone_x', ...query },
          headers: { 'x-api-key': key },
        });
        expect(res.statusCode).toBe(200);
        return targetSeen.find((request) => request.path === '/colors')?.headers;
      };
      const language = await seenBy({ accept_language: 'de-CH' });
      expect(language?.['user-agent']).toContain('iPhone');
      expect(language?.['accept-language']).toBe('de-CH');
      expect((await seenBy({ user_agent: USER_AGENT }))?.['user-agent']).toBe(USER_AGENT);
    });

    it('capture: dark_mode and media_type change the pixels', async () => {
      const shot = async (query: Record<string, string>) => {
        const res = await t.runtime.app.inject({
          url: '/v1/capture',
          query: { url: targetUrl('/colors'), viewport_width: '200', viewport_height: '200', ...query },
          headers: { 'x-api-key': key },
        });
        expect(res.statusCode).toBe(200);
        const { data } = await sharp(res.rawPayload)
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        return [...data.subarray(0, 3)];
      };
      expect(await shot({})).toEqual([255, 255, 255]);
      expect(await shot({ dark_mode: 'true' })).toEqual([0, 0, 0]);
      expect(await shot({ dark_mode: 'false' })).toEqual([255, 255, 255]);
      expect(await shot({ media_type: 'print' })).toEqual([255, 0, 0]);
    });
  });

  describe('errors', () => {
    it.each([
      ['headers', { headers: 'Host: evil.test' }, /^Bad Request: headers header "Host" /],
      ['headers', { headers: 'Content-Length: 5' }, /"Content-Length"/],
      ['headers', { headers: 'Cookie: a=b' }, /"Cookie" is refused: use cookies/],
      ['headers', { headers: 'Authorization: x' }, /use authorization/],
      ['headers', { headers: 'Transfer-Encoding: chunked' }, /hop-by-hop/],
      ['headers', { headers: 'Proxy-Authorization: Basic eA==' }, /"Proxy-Authorization" is refused/],
      ['headers', { headers: 'Bad Name: x' }, /"Bad Name", which is not a header name/],
      ['headers', { headers: JSON.stringify({ 'X-A': 'one\r\nX-B: two' }) }, /"X-A" must have a value/],
      ['headers', { headers: 'X-A: 1\nX-a: 2' }, /"X-a" twice/],
      ['headers', { headers: 'no colon here' }, /line 1 is not "Name: value"/],
      ['headers', { headers: '{"X-A": ' }, /not valid JSON/],
      [
        'headers',
        { headers: Array.from({ length: 31 }, (_, i) => `X-${i}: v`).join('\n') },
        /more than 30 headers/,
      ],
      [
        'cookies',
        { cookies: JSON.stringify([{ name: 'a', value: 'b', domain: 'evil.test' }]) },
        /not the target's host or a parent/,
      ],
      [
        'cookies',
        { cookies: JSON.stringify([{ name: 'a', value: 'b', domain: '0.0.1' }]) },
        /not the target's host/,
      ],
      ['cookies', { cookies: JSON.stringify([{ name: 'a', value: 'b', sameSite: 'None' }]) }, /needs secure/],
      [
        'cookies',
        { cookies: JSON.stringify([{ name: 'a', value: 'b', extra: 1 }]) },
        /^Bad Request: cookies /,
      ],
      // Checked by the browser itself before the page loads: a __Host- cookie needs secure.
      ['cookies', { cookies: '__Host-id=1' }, /"__Host-id", which the browser refused/],
      ['cookies', { cookies: 'novalue' }, /"name=value; \.\.\." pairs/],
      ['cookies', { cookies: 'a b=c' }, /"a b", which is not a cookie name/],
      ['authorization', { authorization: 'Bearer a\nb' }, /^Bad Request: authorization /],
      ['user_agent', { user_agent: 'UA\r\nX-Injected: 1' }, /^Bad Request: user_agent /],
      ['accept_language', { accept_language: 'fr\nx' }, /^Bad Request: accept_language /],
      [
        'time_zone',
        { time_zone: 'Mars/Olympus_Mons' },
        /^Bad Request: time_zone is not an IANA time zone name/,
      ],
      ['time_zone', { time_zone: '+01:00' }, /^Bad Request: time_zone /],
      [
        'geolocation_latitude',
        { geolocation_longitude: '7' },
        /^Bad Request: geolocation_latitude is needed/,
      ],
      [
        'geolocation_longitude',
        { geolocation_latitude: '46' },
        /^Bad Request: geolocation_longitude is needed/,
      ],
      [
        'geolocation_latitude',
        { geolocation_latitude: '91', geolocation_longitude: '7' },
        /^Bad Request: geolocation_latitude /,
      ],
      ['geolocation_accuracy', { geolocation_accuracy: '5' }, /^Bad Request: geolocation_accuracy needs/],
      ['media_type', { media_type: 'tv' }, /^Bad Request: media_type /],
      ['dark_mode', { dark_mode: 'maybe' }, /^Bad Request: dark_mode /],
    ])('%s: %j is a 400 naming it, unbilled, never quoting a secret', async (_param, query, message) => {
      const before = await used();
      const res = await content({ url: targetUrl('/env'), ...query });
      expect(res.statusCode).toBe(400);
      const error = res.json().error as string;
      expect(error).toMatch(message);
      expect(error).not.toContain('Basic eA==');
      expect(await used()).toBe(before);
      expect(targetSeen).toEqual([]);
    });
  });

  describe('security', () => {
    it('no log line, stored job or cache key holds the values in clear; the cache tells cookies apart', async () => {
      const secrets = {
        headers: `X-Shaping: ${SECRET_HEADER}`,
        cookies: `session=${SECRET_COOKIE}`,
        authorization: SECRET_AUTH,
      };
      const submitted = await content({ url: targetUrl('/env'), ...secrets, is_async: 'true' });
      expect(submitted.statusCode).toBe(202);
      const id = submitted.json().job_id as string;
      const deadline = Date.now() + HANG_MS;
      for (;;) {
        const job = await t.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } });
        if (job.json().status === 'completed') break;
        expect(job.json().status).not.toBe('failed');
        if (Date.now() > deadline) throw new Error(`job ${id} stuck`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(targetSeen.find((request) => request.path === '/env')?.headers['x-shaping']).toBe(SECRET_HEADER);
      const rows = await t.runtime.store.db.selectFrom('jobs').selectAll().execute();
      expect(rows.length).toBeGreaterThan(0);
      const stored = JSON.stringify(rows);
      for (const secret of [SECRET_HEADER, SECRET_COOKIE, 'auth-secret'])
        expect(stored).not.toContain(secret);

      const cached = (cookie: string) =>
        content({ url: targetUrl('/env'), cookies: `session=${cookie}`, cache: 'true' });
      const first = await cached(SECRET_COOKIE);
      const again = await cached(SECRET_COOKIE);
      const other = await cached('another-value');
      expect([first, again, other].map((res) => res.headers['x-webcap-cache'])).toEqual([
        'miss',
        'hit',
        'miss',
      ]);

      // Sync calls with the values in the query string, and their bodies through POST.
      await content({ url: targetUrl('/env'), ...secrets });
      await t.runtime.app.inject({
        method: 'POST',
        url: '/v1/analyze',
        headers: { 'x-api-key': key },
        payload: {
          url: targetUrl('/env'),
          headers: { 'X-Shaping': SECRET_HEADER },
          authorization: SECRET_AUTH,
        },
      });
      // Nothing the service keeps on disk (database, its journal, cached results, files) holds them.
      const files = await fs.readdir(t.dataDir, { recursive: true, withFileTypes: true });
      const kept = files
        .filter((entry) => entry.isFile())
        .map((entry) => path.join(entry.parentPath, entry.name));
      expect(kept.length).toBeGreaterThan(1);
      for (const file of kept) {
        const bytes = await fs.readFile(file);
        for (const secret of [SECRET_HEADER, SECRET_COOKIE, 'auth-secret']) {
          expect(bytes.includes(secret), `${file} holds ${secret}`).toBe(false);
        }
      }
      const logs = t.logs.join('');
      expect(logs).toContain('/v1/content');
      for (const secret of [SECRET_HEADER, SECRET_COOKIE, 'auth-secret']) expect(logs).not.toContain(secret);
    });
  });
});
