import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureServer, startFixtureServer } from './helpers/chromium.js';
import { startCanary, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from './helpers/s3rver.js';

/* GET /v1/capture end to end: real Chromium behind the egress proxy, pages served by the test. */
describe('GET /v1/capture', () => {
  let site: FixtureServer;
  let canary: TestServer;
  let s3: TestS3;
  let t: TestRuntime;
  let key: string;
  let now = new Date();
  // Whether cached.webcap.test resolves: a name that stops resolving after its capture was cached.
  let cachedNameResolves = true;
  const resolver = tableResolver({
    'news.webcap.test': ['127.0.0.1'],
    'pagead2.googlesyndication.com': ['127.0.0.1'],
    's3.webcap.test': ['127.0.0.1'],
    'cached.webcap.test': () => (cachedNameResolves ? ['127.0.0.1'] : []),
  });

  beforeAll(async () => {
    site = await startFixtureServer();
    canary = await startCanary();
    s3 = await startS3rver(['shots']);
    const s3Port = new URL(s3.endpoint).port;
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port},127.0.0.1/32:${s3Port}`,
        BROWSER_CONCURRENCY: '2',
        NAVIGATION_TIMEOUT_MS: '4000',
        MAX_FULL_PAGE_HEIGHT_PX: '40000',
        FILE_URL_TTL_SECONDS: '3600',
      },
      clock: () => now,
      // Chromium resolves nothing itself; the guard answers these names, all on the fixture server.
      resolver,
    });
    key = await newAccountKey(t, 'cap', 10_000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    await canary?.close();
    await s3?.close();
  });

  const capture = (query: Record<string, string | string[]>) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      for (const item of Array.isArray(value) ? value : [value]) search.append(name, item);
    }
    return t.runtime.app.inject({ url: `/v1/capture?${search}`, headers: { 'x-api-key': key } });
  };
  const size = async (bytes: Buffer) => {
    const meta = await sharp(bytes).metadata();
    return [meta.width, meta.height];
  };
  const isRed = ([r, g, b]: number[]) => (r ?? 0) > 220 && (g ?? 255) < 40 && (b ?? 255) < 40;
  const isWhite = ([r, g, b]: number[]) => (r ?? 0) > 240 && (g ?? 0) > 240 && (b ?? 0) > 240;
  const isBlue = ([r, g, b]: number[]) => (r ?? 255) < 40 && (g ?? 255) < 40 && (b ?? 0) > 220;
  const isGreen = ([r, g, b]: number[]) => (r ?? 255) < 40 && (g ?? 0) > 220 && (b ?? 255) < 40;
  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;
  /** RGB of one pixel of an encoded image. */
  async function pixel(bytes: Buffer, x: number, y: number): Promise<[number, number, number]> {
    const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (y * info.width + x) * 3;
    return [data[at] ?? -1, data[at + 1] ?? -1, data[at + 2] ?? -1];
  }

  describe('formats', () => {
    it.each([
      ['png', 'image/png', '89504e47'],
      ['jpeg', 'image/jpeg', 'ffd8ff'],
      ['jpg', 'image/jpeg', 'ffd8ff'],
      ['webp', 'image/webp', '52494646'],
    ])(
      '%s: the magic bytes, the content type and the default 1280x1024 viewport',
      async (format, type, magic) => {
        const res = await capture({ url: site.url('/capture.html'), format });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe(type);
        expect(res.rawPayload.subarray(0, magic.length / 2).toString('hex')).toBe(magic);
        const meta = await sharp(res.rawPayload).metadata();
        expect([meta.width, meta.height]).toEqual([1280, 1024]);
        const [r, g, b] = await pixel(res.rawPayload, 100, 100);
        expect(r).toBeGreaterThan(230);
        expect(g).toBeLessThan(30);
        expect(b).toBeLessThan(30);
      },
    );

    it('pdf: a valid PDF document', async () => {
      const res = await capture({ url: site.url('/capture.html'), format: 'pdf' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
      expect(res.rawPayload.subarray(-8).toString()).toContain('%%EOF');
    });
  });

  describe('viewport, devices and full page', () => {
    it('viewport_width, viewport_height and scale_factor set the image size; width and height are aliases', async () => {
      const res = await capture({
        url: site.url('/capture.html'),
        viewport_width: '800',
        viewport_height: '600',
        scale_factor: '2',
      });
      expect(await size(res.rawPayload)).toEqual([1600, 1200]);
      const alias = await capture({ url: site.url('/capture.html'), width: '640', height: '480' });
      expect(await size(alias.rawPayload)).toEqual([640, 480]);
    });

    it("a device gives its full screen at its scale factor, and the page sees the device's user agent", async () => {
      const before = site.requests.length;
      const res = await capture({ url: site.url('/capture.html?device'), device: 'iphone_14_pro_max' });
      expect(res.statusCode).toBe(200);
      expect(await size(res.rawPayload)).toEqual([1290, 2796]);
      const page = site.requests.slice(before).find((r) => r.path === '/capture.html');
      expect(page?.userAgent).toMatch(/iPhone OS 16_0 like Mac OS X/);
    });

    it("a device's full page is as wide as its screen, even when the page is laid out wider", async () => {
      // tall.html has no viewport meta tag: mobile Chromium lays it out 980 px wide and zooms out.
      const res = await capture({
        url: site.url('/tall.html?zoom'),
        device: 'iphone_14_pro_max',
        full_page: 'true',
      });
      const [width, height] = await size(res.rawPayload);
      expect(width).toBe(1290);
      expect(Math.abs((height ?? 0) - (3300 * 1290) / 980)).toBeLessThanOrEqual(3);
    });

    it('full_page with full_page_scroll captures the whole page and every lazy image loads', async () => {
      const res = await capture({
        url: site.url('/tall.html'),
        full_page: 'true',
        full_page_scroll: 'true',
        full_page_scroll_duration: '300',
        viewport_width: '400',
        viewport_height: '500',
      });
      expect(res.statusCode).toBe(200);
      expect(await size(res.rawPayload)).toEqual([400, 3300]);
      for (const image of ['/lazy-1.png', '/lazy-2.png', '/lazy-3.png'])
        expect(site.hits(image)).toBeGreaterThan(0);
    });

    it('a page taller than 16,384 px is stitched from tiles: every band is where it belongs', async () => {
      const res = await capture({
        url: site.url('/huge.html'),
        full_page: 'true',
        viewport_width: '300',
        viewport_height: '400',
      });
      expect(res.statusCode).toBe(200);
      expect(await size(res.rawPayload)).toEqual([300, 40_000]);
      const { data, info } = await sharp(res.rawPayload)
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      for (let band = 0; band < 40; band++) {
        const at = ((band * 1000 + 500) * info.width + 150) * 3;
        const expected = [band * 6, 255 - band * 6, (band * 37) % 256];
        const actual = [data[at], data[at + 1], data[at + 2]];
        for (const [i, value] of actual.entries()) {
          expect(Math.abs((value ?? -99) - (expected[i] ?? 0)), `band ${band}`).toBeLessThanOrEqual(2);
        }
      }
    });

    it('cuts a full page at MAX_FULL_PAGE_HEIGHT_PX', async () => {
      const res = await capture({
        url: site.url('/huge.html?x=2'),
        full_page: 'true',
        viewport_width: '300',
        viewport_height: '400',
        scale_factor: '0.5',
      });
      expect(await size(res.rawPayload)).toEqual([150, 20_000]);
    });
  });

  describe('element, hiding, blocking and waits', () => {
    it('selector captures the element box only', async () => {
      const res = await capture({ url: site.url('/capture.html'), selector: '#box' });
      expect(res.statusCode).toBe(200);
      expect(await size(res.rawPayload)).toEqual([300, 150]);
      expect(isRed(await pixel(res.rawPayload, 150, 75))).toBe(true);
    });

    it('remove_selectors hides the elements', async () => {
      const res = await capture({ url: site.url('/capture.html'), remove_selectors: '#box, #banner' });
      expect(isWhite(await pixel(res.rawPayload, 100, 100))).toBe(true);
      expect(isWhite(await pixel(res.rawPayload, 10, 10))).toBe(true);
    });

    it('block_resources keeps images and stylesheets from loading', async () => {
      const url = site.url('/capture.html?blocked');
      const [pics, css] = [site.hits('/pixel.png'), site.hits('/capture.css')];
      const res = await capture({ url, block_resources: 'image,stylesheet' });
      expect(res.statusCode).toBe(200);
      expect([site.hits('/pixel.png'), site.hits('/capture.css')]).toEqual([pics, css]);
      expect(isWhite(await pixel(res.rawPayload, 450, 110))).toBe(true);
      const plain = await capture({ url });
      expect(site.hits('/pixel.png')).toBe(pics + 1);
      expect(isBlue(await pixel(plain.rawPayload, 450, 110))).toBe(true);
    });

    it('block_urls blocks by domain, pattern or substring', async () => {
      const pics = site.hits('/pixel.png');
      for (const pattern of ['*/capture.css,*/pixel.png', 'capture.css,pixel.png', '127.0.0.1']) {
        const res = await capture({ url: site.url('/capture.html?urls'), block_urls: pattern });
        // The main document is never blocked, even when the pattern matches it.
        expect(res.statusCode).toBe(200);
        expect(isWhite(await pixel(res.rawPayload, 450, 110)), pattern).toBe(true);
      }
      expect(site.hits('/pixel.png')).toBe(pics);
    });

    it('wait_for_selector and delay wait for content that arrives after load', async () => {
      const plain = await capture({ url: site.url('/capture.html') });
      expect(isWhite(await pixel(plain.rawPayload, 50, 350))).toBe(true);
      const waited = await capture({ url: site.url('/capture.html'), wait_for_selector: '#late-arrival' });
      expect(isGreen(await pixel(waited.rawPayload, 50, 350))).toBe(true);
      const delayed = await capture({ url: site.url('/capture.html'), delay: '1' });
      expect(isGreen(await pixel(delayed.rawPayload, 50, 350))).toBe(true);
      const idle = await capture({ url: site.url('/capture.html'), wait_until: ['load', 'networkidle0'] });
      expect(idle.statusCode).toBe(200);
    });

    it('remove_ads: the listed ad script and image are never requested and the ad slot is hidden', async () => {
      const url = site.url('/ads.html', 'news.webcap.test');
      const before = [site.hits('/pagead/js/adsbygoogle.js'), site.hits('/ads/banners/leaderboard.gif')];
      const blocked = await capture({
        url,
        remove_ads: 'true',
        viewport_width: '800',
        viewport_height: '400',
      });
      expect(blocked.statusCode).toBe(200);
      expect([site.hits('/pagead/js/adsbygoogle.js'), site.hits('/ads/banners/leaderboard.gif')]).toEqual(
        before,
      );
      const shown = await capture({ url, viewport_width: '800', viewport_height: '400' });
      expect(site.hits('/pagead/js/adsbygoogle.js')).toBe((before[0] ?? 0) + 1);
      // The magenta ad banner sits below the heading; without ads that spot is page background.
      const findMagenta = async (bytes: Buffer) => {
        const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        for (let i = 0; i < info.width * info.height; i++) {
          if (data[i * 3] === 255 && data[i * 3 + 1] === 0 && data[i * 3 + 2] === 255) return true;
        }
        return false;
      };
      expect(await findMagenta(shown.rawPayload)).toBe(true);
      expect(await findMagenta(blocked.rawPayload)).toBe(false);
    });
  });

  describe('responses, cache and storage', () => {
    it('response_type=json hosts the image at a signed, expiring screenshot_url', async () => {
      const res = await capture({ url: site.url('/capture.html'), response_type: 'json' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual({
        success: true,
        screenshot_url: expect.stringMatching(/\/v1\/files\/[A-Za-z0-9_-]+\.png\?expires=\d+&signature=/),
        format: 'png',
        width: 1280,
        height: 1024,
        size: expect.any(Number),
      });
      const link = new URL(body.screenshot_url);
      const file = await t.runtime.app.inject({ url: `${link.pathname}${link.search}` });
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('image/png');
      expect(file.rawPayload.length).toBe(body.size);
      const forged = new URL(link);
      forged.searchParams.set('expires', String(Number(link.searchParams.get('expires')) + 3600));
      expect((await t.runtime.app.inject({ url: `${forged.pathname}${forged.search}` })).statusCode).toBe(
        403,
      );
      now = new Date(now.getTime() + 3601_000);
      try {
        expect((await t.runtime.app.inject({ url: `${link.pathname}${link.search}` })).statusCode).toBe(404);
      } finally {
        now = new Date();
      }
    });

    it('response_type=base64 adds the image bytes', async () => {
      const res = await capture({ url: site.url('/capture.html'), response_type: 'base64', format: 'jpeg' });
      const body = res.json();
      const bytes = Buffer.from(body.base64, 'base64');
      expect(bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
      expect(bytes.length).toBe(body.size);
      expect(await size(bytes)).toEqual([body.width, body.height]);
    });

    it('cache=true answers a repeat from the cache with the same bytes, billed, until cache_ttl passes', async () => {
      const query = { url: site.url('/capture.html?cached'), cache: 'true', cache_ttl: '3600' };
      const pages = site.hits('/capture.html');
      const first = await capture(query);
      expect(first.headers['x-webcap-cache']).toBe('miss');
      const billed = await used();
      const second = await capture(query);
      expect(second.headers['x-webcap-cache']).toBe('hit');
      expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
      expect(site.hits('/capture.html')).toBe(pages + 1);
      expect(await used()).toBe(billed + 1);
      now = new Date(now.getTime() + 3601_000);
      try {
        const third = await capture(query);
        expect(third.headers['x-webcap-cache']).toBe('miss');
        expect(site.hits('/capture.html')).toBe(pages + 2);
      } finally {
        now = new Date();
      }
    });

    it('a hit resolves nothing: served after its host name stopped resolving, which a miss is refused for', async () => {
      const query = { url: site.url('/capture.html?by-name', 'cached.webcap.test'), cache: 'true' };
      const lookups = () => resolver.calls.filter((name) => name === 'cached.webcap.test').length;
      const first = await capture(query);
      expect(first.headers['x-webcap-cache']).toBe('miss');
      expect(lookups()).toBeGreaterThan(0);
      cachedNameResolves = false;
      try {
        const asked = lookups();
        const billed = await used();
        const hit = await capture(query);
        expect(hit.statusCode).toBe(200);
        expect(hit.headers['x-webcap-cache']).toBe('hit');
        expect(hit.rawPayload.equals(first.rawPayload)).toBe(true);
        expect(lookups()).toBe(asked);
        expect(await used()).toBe(billed + 1);
        const miss = await capture({ ...query, viewport_width: '900' });
        expect(miss.statusCode).toBe(400);
        expect(miss.json()).toEqual({ error: 'Bad Request: page could not be loaded (host has no address)' });
        expect(lookups()).toBe(asked + 1);
        expect(await used()).toBe(billed + 1);
      } finally {
        cachedNameResolves = true;
      }
    });

    it('the cache key holds what changes the capture and nothing else: response type and aliases share an entry', async () => {
      const base = { url: site.url('/capture.html?keyed'), cache: 'true', viewport_width: '800' };
      const pages = site.hits('/capture.html');
      expect((await capture(base)).headers['x-webcap-cache']).toBe('miss');
      for (const response_type of ['json', 'base64', 'image']) {
        const res = await capture({ ...base, response_type, cache_ttl: '7200' });
        expect(res.headers['x-webcap-cache'], response_type).toBe('hit');
      }
      const alias = await capture({ url: base.url, cache: 'true', width: '800' });
      expect(alias.headers['x-webcap-cache']).toBe('hit');
      expect(site.hits('/capture.html')).toBe(pages + 1);
      const wider = await capture({ ...base, viewport_width: '801' });
      expect(wider.headers['x-webcap-cache']).toBe('miss');
      expect(site.hits('/capture.html')).toBe(pages + 2);
    });

    it('a URL asked again is worked out once, yet answers each account and host as its own', async () => {
      const url = `/v1/capture?${new URLSearchParams({ url: site.url('/capture.html?memo'), cache: 'true', response_type: 'json' })}`;
      const other = await newAccountKey(t, 'memo-other', 100);
      const pages = site.hits('/capture.html');
      const ask = (apiKey: string, host: string) =>
        t.runtime.app.inject({ url, headers: { 'x-api-key': apiKey, host } });
      const usedBy = async (apiKey: string) =>
        (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': apiKey } })).json()
          .total_used as number;
      expect((await ask(key, 'a.example')).headers['x-webcap-cache']).toBe('miss');
      const billed = await usedBy(key);
      const hit = await ask(key, 'b.example');
      expect(hit.headers['x-webcap-cache']).toBe('hit');
      expect(hit.json().screenshot_url).toMatch(/^http:\/\/b\.example\//);
      expect(await usedBy(key)).toBe(billed + 1);
      // Another account's call of the same URL is its own entry: a miss, rendered and billed to it.
      const theirs = await ask(other, 'a.example');
      expect(theirs.headers['x-webcap-cache']).toBe('miss');
      expect(theirs.json().screenshot_url).toMatch(/^http:\/\/a\.example\//);
      expect((await ask(other, 'a.example')).headers['x-webcap-cache']).toBe('hit');
      expect(site.hits('/capture.html')).toBe(pages + 2);
      expect(await usedBy(other)).toBe(2);
      expect(await usedBy(key)).toBe(billed + 1);
    });

    it('refuses a hit the account can no longer pay for (402), without the image', async () => {
      const single = await newAccountKey(t, 'one-shot', 1);
      const url = `/v1/capture?${new URLSearchParams({ url: site.url('/capture.html?once'), cache: 'true' })}`;
      const first = await t.runtime.app.inject({ url, headers: { 'x-api-key': single } });
      expect(first.headers['x-webcap-cache']).toBe('miss');
      const again = await t.runtime.app.inject({ url, headers: { 'x-api-key': single } });
      expect(again.statusCode).toBe(402);
      expect(again.json()).toEqual({ error: expect.stringMatching(/^Insufficient credits: /) });
      expect(again.headers['x-webcap-cache']).toBeUndefined();
    });

    it("s3_url=true uploads to the caller's bucket and returns the object's URL", async () => {
      const res = await capture({
        url: site.url('/capture.html'),
        s3_url: 'true',
        s3_access_key_id: S3RVER_CREDENTIALS.accessKeyId,
        s3_secret_key: S3RVER_CREDENTIALS.secretAccessKey,
        s3_bucket: 'shots',
        s3_object_key: 'run/capture.png',
        s3_region: 'us-east-1',
        storage_endpoint: s3.endpoint,
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.s3_url).toBe(`${s3.endpoint}/shots/run/capture.png`);
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: S3RVER_CREDENTIALS,
      });
      const object = await client.send(new GetObjectCommand({ Bucket: 'shots', Key: 'run/capture.png' }));
      const stored = Buffer.from(await (object.Body?.transformToByteArray() ?? new Uint8Array()));
      client.destroy();
      expect(stored.length).toBe(body.size);
      expect(await size(stored)).toEqual([1280, 1024]);
    });

    it('a failed upload is a 400 and is not billed', async () => {
      const before = await used();
      const res = await capture({
        url: site.url('/capture.html'),
        s3_url: 'true',
        s3_access_key_id: S3RVER_CREDENTIALS.accessKeyId,
        s3_secret_key: S3RVER_CREDENTIALS.secretAccessKey,
        s3_bucket: 'no-such-bucket',
        storage_endpoint: s3.endpoint,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/^Bad Request: s3 upload failed/);
      expect(await used()).toBe(before);
    });
  });

  describe('errors (never billed)', () => {
    it.each([
      [{}, /^Bad Request: url is required, or html or markdown instead \(exactly one of them\)$/],
      [{ url: 'file:///etc/passwd' }, /^Bad Request: url must be an http or https URL/],
      [{ url: 'http://x.test/', format: 'tiff' }, /^Bad Request: format must be one of/],
      [{ url: 'http://x.test/', device: 'nokia_3310' }, /^Bad Request: device must be one of/],
      [{ url: 'http://x.test/', delay: '11' }, /^Bad Request: delay /],
      [{ url: 'http://x.test/', cache_ttl: '60' }, /^Bad Request: cache_ttl /],
      [{ url: 'http://x.test/', image_quality: '0' }, /^Bad Request: image_quality /],
      [{ url: 'http://x.test/', viewport_width: '99999' }, /^Bad Request: viewport_width /],
      [
        { url: 'http://x.test/', block_resources: 'image,flash' },
        /^Bad Request: block_resources has "flash"/,
      ],
      [{ url: 'http://x.test/', wait_until: 'never' }, /^Bad Request: wait_until has "never"/],
      [{ url: 'http://x.test/', proxy: 'ftp://p:1' }, /^Bad Request: proxy /],
      [{ url: 'http://x.test/', s3_url: 'true' }, /^Bad Request: s3_/],
      [{ url: 'http://x.test/', full_page: 'yes' }, /^Bad Request: full_page /],
      [{ url: 'http://x.test/', colour: 'red' }, /^Bad Request: colour is not a known parameter$/],
    ])('%j → 400', async (query, message) => {
      const before = await used();
      const res = await capture(query as Record<string, string>);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(message);
      expect(await used()).toBe(before);
    });

    it('a missing key is 401 before any parameter is looked at', async () => {
      const res = await t.runtime.app.inject({ url: '/v1/capture?format=tiff' });
      expect(res.statusCode).toBe(401);
    });

    it('selector or wait_for_selector that never matches is a 400 naming it', async () => {
      const before = await used();
      const missing = await capture({ url: site.url('/capture.html'), selector: '#nothing' });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error).toMatch(/^Bad Request: selector matched no element/);
      const waited = await capture({ url: site.url('/capture.html'), wait_for_selector: '#never' });
      expect(waited.json().error).toMatch(/^Bad Request: wait_for_selector matched no element/);
      expect(await used()).toBe(before);
    });

    it('an unreachable page is a 400 naming the network error', async () => {
      const res = await capture({ url: 'http://nowhere.webcap.test/' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/^Bad Request: page could not be loaded \(/);
    });
  });

  describe('security', () => {
    it('refuses private targets before rendering, unbilled', async () => {
      const before = await used();
      const blocked = 'Bad Request: blocked by the network policy';
      // The fixture's 127.0.0.1 is allowed on its own port only: the port is what is missing.
      const otherPort = (host: string) =>
        `${blocked}: ${host} is allowed by WEBCAP_ALLOW_PRIVATE but not on port ${canary.port}; add 127.0.0.1/32:${canary.port}`;
      for (const [url, error] of [
        [`http://127.0.0.1:${canary.port}/`, otherPort('127.0.0.1')],
        [
          'http://169.254.169.254/latest/meta-data/',
          `${blocked}: 169.254.169.254 is a link-local address (cloud metadata services live here); allow it with WEBCAP_ALLOW_PRIVATE=169.254.169.254/32:80`,
        ],
        [`http://[::ffff:127.0.0.1]:${canary.port}/`, otherPort('::ffff:7f00:1')],
      ] as const) {
        const res = await capture({ url });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe(error);
      }
      expect(canary.connections()).toBe(0);
      expect(await used()).toBe(before);
    });

    it("refuses a caller's proxy on a private address", async () => {
      const res = await capture({ url: site.url('/capture.html'), proxy: `http://127.0.0.1:${canary.port}` });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/^Bad Request: blocked by the network policy: proxy/);
      expect(canary.connections()).toBe(0);
    });
  });

  describe('legacy /capture', () => {
    const legacy = (method: 'GET' | 'POST', params: Record<string, unknown>) =>
      method === 'GET'
        ? t.runtime.app.inject({
            url: `/capture?${new URLSearchParams({ access_key: key, ...(params as Record<string, string>) })}`,
          })
        : t.runtime.app.inject({ method: 'POST', url: '/capture', payload: { access_key: key, ...params } });
    const hasDarkBanner = async (bytes: Buffer) => {
      const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const at = ((info.height - 10) * info.width + 5) * 3;
      return data[at] === 0x1d && data[at + 1] === 0x1d && data[at + 2] === 0x1d;
    };

    it('takes access_key by GET or POST, not x-api-key', async () => {
      const get = await legacy('GET', { url: site.url('/capture.html') });
      expect(get.statusCode).toBe(200);
      expect(get.headers['content-type']).toBe('image/png');
      const post = await legacy('POST', {
        url: site.url('/capture.html'),
        format: 'jpeg',
        image_quality: 50,
      });
      expect(post.statusCode).toBe(200);
      expect(post.headers['content-type']).toBe('image/jpeg');
      const v1Key = await t.runtime.app.inject({
        url: `/capture?url=${encodeURIComponent(site.url('/capture.html'))}`,
        headers: { 'x-api-key': key },
      });
      expect(v1Key.statusCode).toBe(401);
    });

    it('scrolls a full page by default, so lazy images load', async () => {
      const before = site.hits('/lazy-3.png');
      const res = await legacy('POST', {
        url: site.url('/tall.html?legacy'),
        full_page: true,
        viewport_width: 400,
        viewport_height: 500,
        wait_until: 'load',
      });
      expect(res.statusCode).toBe(200);
      expect(await size(res.rawPayload)).toEqual([400, 3300]);
      expect(site.hits('/lazy-3.png')).toBe(before + 1);
    });

    it('wants wait_until as one string and image_quality as a number', async () => {
      const list = await legacy('POST', { url: site.url('/capture.html'), wait_until: ['load'] });
      expect(list.statusCode).toBe(400);
      expect(list.json().error).toMatch(/^Bad Request: wait_until /);
      const quality = await legacy('POST', { url: site.url('/capture.html'), image_quality: 'high' });
      expect(quality.statusCode).toBe(400);
      expect(quality.json().error).toMatch(/^Bad Request: image_quality /);
    });

    it('remove_cookie_banners rejects a consent banner that is otherwise in the capture', async () => {
      const url = site.url('/cookies-onetrust.html');
      const shown = await legacy('GET', { url, delay: '1' });
      expect(await hasDarkBanner(shown.rawPayload)).toBe(true);
      const removed = await legacy('GET', { url, delay: '1', remove_cookie_banners: 'true' });
      expect(removed.statusCode).toBe(200);
      expect(await hasDarkBanner(removed.rawPayload)).toBe(false);
    });
  });
});
