import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * The page pipeline's defaults (issue 36, item 4) end to end: real Chromium, pages served by the
 * test on 127.0.0.1 (where EasyList turns its generic element hiding off, so ad slots are hidden
 * by their own names or not at all).
 */

const ARTICLE =
  'The northern harbour keeps its tide tables on a slate by the pier, where the harbour master chalks each high water before dawn. Fishermen read it on their way to the boats, and the ferry crew check it twice before the first crossing of the day.';

/** "Loading…" until 800 ms after load, then the article: a page that fills itself in. */
const FILLS_IN = `<!doctype html><html lang="en"><head><title>Tide tables</title></head>
<body><div id="app">Loading…</div>
<script>
addEventListener('load', () => setTimeout(() => {
  document.getElementById('app').innerHTML =
    '<article><h1>Tide tables</h1><p>${ARTICLE}</p><p>Write to tides@harbour-tides.com for the printed tables.</p></article>';
}, 800));
</script></body></html>`;

/** A site's own consent bars, none of a known CMP: a plain `.cookie-consent` bar, a named banner, a labelled section. */
const COOKIE_BARS = `<!doctype html><html lang="en"><head><title>Harbour news</title>
<style>.cookie-consent { position: fixed; bottom: 0; left: 0; right: 0; height: 300px; background: rgb(255, 0, 0); }</style></head>
<body><article><h1>Harbour news</h1><p>${ARTICLE}</p></article>
<div class="cookie-consent">We use cookies to improve your visit. <button>Accept</button></div>
<div class="site-cookie-banner">This site stores cookies on your device. <a href="/cookies">Settings</a></div>
<section aria-label="Cookie notice">Cookie notice: we and our partners process data. <button>OK</button></section>
</body></html>`;

/** Ad slots by their well-known names, in a page on a loopback host. */
const AD_SLOTS = `<!doctype html><html lang="en"><head><title>Harbour news</title>
<style>html, body { margin: 0; background: #fff; } #div-gpt-ad-1 { height: 200px; background: rgb(255, 0, 0); }</style></head>
<body><div id="div-gpt-ad-1">Sponsored slot one</div>
<article><h1>Harbour news</h1><p>${ARTICLE}</p></article>
<iframe id="google_ads_iframe_/1234/harbour/home_0" srcdoc="<p>Ad frame</p>" width="300" height="250"></iframe>
<ins class="adsbygoogle" style="display:block">Sponsored slot two</ins>
<div class="ad-slot">Sponsored slot three</div>
</body></html>`;

/** A contact block the caller removes, and a late element it waits for. */
const CONTACT = `<!doctype html><html lang="en"><head><title>Harbour office</title></head>
<body><article><h1>Harbour office</h1><p>${ARTICLE}</p></article>
<aside class="contact">Write to office@harbour-tides.com for permits.</aside>
<script>
addEventListener('load', () => setTimeout(() => {
  const late = document.createElement('p');
  late.id = 'late';
  late.textContent = 'Bookings: moorings@harbour-tides.com.';
  document.body.append(late);
}, 1500));
</script></body></html>`;

describe('page defaults', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;
  const pages: Record<string, string> = {
    '/fills-in': FILLS_IN,
    '/cookie-bars': COOKIE_BARS,
    '/ad-slots': AD_SLOTS,
    '/contact': CONTACT,
  };

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const body = pages[new URL(req.url ?? '/', 'http://x').pathname];
      if (body === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        // The quiet wait's bound far above the page's 800 ms on any machine: the page's own timer
        // and the wait's run on the page's clock, so the fill comes first however slow the run.
        TEXT_SETTLE_MAX_MS: '60000',
        NAVIGATION_TIMEOUT_MS: '30000',
        RENDER_TIMEOUT_MS: '300000',
        CONTENT_EXTRACT_TIMEOUT_MS: '120000',
      },
    });
    key = await newAccountKey(t, 'defaults', 1000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const at = (pathname: string) => `http://127.0.0.1:${site.port}${pathname}`;
  const call = (endpoint: string, query: Record<string, string>) =>
    t.runtime.app.inject({
      url: `/v1/${endpoint}?${new URLSearchParams(query)}`,
      headers: { 'x-api-key': key },
    });

  describe('happy', () => {
    it('content waits for a page that fills itself in after load, and reads it whole', async () => {
      const res = await call('content', { url: at('/fills-in'), include_markdown: 'true' });
      expect(res.statusCode).toBe(200);
      const { markdown } = res.json().data;
      expect(markdown).toContain(ARTICLE);
      expect(markdown).not.toContain('Loading');
    });

    it('analyze waits for it too: the address written in after load is found', async () => {
      const res = await call('analyze', { url: at('/fills-in') });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.emails).toEqual(['tides@harbour-tides.com']);
    });

    it('analyze takes the page options content takes: remove_selectors, wait_for_selector', async () => {
      const plain = await call('analyze', { url: at('/contact'), wait_until: 'domcontentloaded' });
      expect(plain.statusCode).toBe(200);
      expect(plain.json().data.emails).toContain('office@harbour-tides.com');
      const removed = await call('analyze', {
        url: at('/contact'),
        remove_selectors: '.contact',
        wait_for_selector: '#late',
      });
      expect(removed.statusCode).toBe(200);
      expect(removed.json().data.emails).toEqual(['moorings@harbour-tides.com']);
    });

    it('remove_cookie_banners on /v1/content takes out a site’s own consent bars', async () => {
      const kept = (await call('content', { url: at('/cookie-bars'), include_markdown: 'true' })).json().data
        .markdown as string;
      expect(kept).toContain('We use cookies');
      expect(kept).toContain('stores cookies on your device');
      expect(kept).toContain('Cookie notice');
      const res = await call('content', {
        url: at('/cookie-bars'),
        include_markdown: 'true',
        remove_cookie_banners: 'true',
      });
      expect(res.statusCode).toBe(200);
      const { markdown } = res.json().data;
      expect(markdown).toContain(ARTICLE);
      expect(markdown).not.toContain('We use cookies');
      expect(markdown).not.toContain('stores cookies on your device');
      expect(markdown).not.toContain('Cookie notice');
    });

    it('remove_cookie_banners on /v1/capture hides the fixed consent bar from the image', async () => {
      // The bar is red across the bottom 300 px of the 1280 × 1024 viewport.
      const bottomPixel = async (query: Record<string, string>) => {
        const res = await call('capture', { url: at('/cookie-bars'), ...query });
        expect(res.statusCode).toBe(200);
        const { data, info } = await sharp(res.rawPayload)
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        const offset = ((info.height - 10) * info.width + 10) * info.channels;
        return [...data.subarray(offset, offset + 3)];
      };
      expect(await bottomPixel({})).toEqual([255, 0, 0]);
      expect(await bottomPixel({ remove_cookie_banners: 'true' })).toEqual([255, 255, 255]);
    });

    it('remove_ads takes GPT, AdSense and named ad slots out of content', async () => {
      const query = { url: at('/ad-slots'), include_markdown: 'true', include_html: 'true' };
      const kept = (await call('content', query)).json().data;
      expect(kept.markdown).toContain('Sponsored slot one');
      expect(kept.html).toContain('google_ads_iframe_');
      const res = await call('content', { ...query, remove_ads: 'true' });
      expect(res.statusCode).toBe(200);
      const { markdown, html } = res.json().data;
      expect(markdown).toContain(ARTICLE);
      for (const text of ['Sponsored slot one', 'Sponsored slot two', 'Sponsored slot three']) {
        expect(markdown).not.toContain(text);
      }
      expect(html).not.toContain('google_ads_iframe_');
    });

    it('remove_ads hides a GPT slot from a capture', async () => {
      const topPixel = async (query: Record<string, string>) => {
        const res = await call('capture', { url: at('/ad-slots'), ...query });
        expect(res.statusCode).toBe(200);
        const { data } = await sharp(res.rawPayload)
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        return [...data.subarray(0, 3)];
      };
      expect(await topPixel({})).toEqual([255, 0, 0]);
      expect(await topPixel({ remove_ads: 'true' })).toEqual([255, 255, 255]);
    });
  });

  describe('errors', () => {
    it('analyze names a bad wait_until and a bad wait_for_selector', async () => {
      const wait = await call('analyze', { url: at('/contact'), wait_until: 'soon' });
      expect(wait.statusCode).toBe(400);
      expect(wait.json().error).toContain('wait_until');
      const selector = await call('analyze', { url: at('/contact'), wait_for_selector: 'p[' });
      expect(selector.statusCode).toBe(400);
      expect(selector.json().error).toContain('wait_for_selector');
    });
  });
});
