import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * The main content's general rules (issue 36, docs/content.md "Main-content method") on the
 * rendered path: real Chromium, pages served by the test, one page for each failure class the
 * held-out benchmarks showed.
 */

const ARTICLE = [
  'The harbour authority opened the rebuilt sea wall on Tuesday after two winters of storms had broken the old one in three places, flooding the fish market twice.',
  'Engineers chose interlocking concrete blocks over rock armour because the blocks can be lifted and reset by one crane when a storm moves them, which the old wall never allowed.',
  'The work cost four million pounds, shared between the council and the port, and finished six weeks early because the winter was calm enough to pour concrete into January.',
];
const paragraphs = ARTICLE.map((p) => `<p>${p}</p>`).join('\n');

function page(body: string, { title = 'Sea wall reopens', head = '' } = {}): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
}

describe('main content rules, rendered', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const body = pages.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (body === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '2',
        NAVIGATION_TIMEOUT_MS: '10000',
        CONTENT_EXTRACT_TIMEOUT_MS: '120000',
      },
    });
    key = await newAccountKey(t, 'content-rules', 1000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  /** The use_defuddle html's text and Markdown of `body` served at `pathname`. */
  async function mainContent(pathname: string, html: string): Promise<{ html: string; markdown: string }> {
    pages.set(pathname, html);
    const query = new URLSearchParams({
      url: `http://127.0.0.1:${site.port}${pathname}`,
      use_defuddle: 'true',
      include_html: 'true',
      include_markdown: 'true',
    });
    const response = await t.runtime.app.inject({
      url: `/v1/content?${query}`,
      headers: { 'x-api-key': key },
    });
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    return { html: data.html, markdown: data.markdown };
  }

  describe('visibility', () => {
    it('a display:none copy of the article, visibility:hidden and zero-size blocks are not content', async () => {
      const copy = ARTICLE.map((p) => `<span>${p.replace('Tuesday', 'Tuesday morning')}</span>`).join(' ');
      const { html, markdown } = await mainContent(
        '/hidden-duplicate',
        page(
          `<style>.sr { display: none } .gone { visibility: hidden } .shut { width: 0; height: 0; overflow: hidden }</style>
          <main><h1>Sea wall reopens</h1>${paragraphs}
          <p class="gone">Subscribers read this paragraph only after they have signed in with the account they opened on the website last year.</p>
          <div class="shut"><p>Old versions of this story said the wall cost five million pounds, which was the first estimate given to the council.</p></div>
          <div class="sr" itemscope itemtype="https://schema.org/NewsArticle"><div itemprop="articleBody">${copy}</div></div>
          </main>`,
        ),
      );
      for (const field of [html, markdown]) {
        for (const p of ARTICLE) expect(field).toContain(p);
        expect(field).not.toContain('Tuesday morning');
        expect(field).not.toContain('Subscribers read');
        expect(field).not.toContain('Old versions');
      }
    });

    it('a hidden element made visible inside is kept; the whole page html keeps what was hidden, unmarked', async () => {
      pages.set(
        '/visible-inside',
        page(
          `<main><h1>Sea wall reopens</h1><div style="visibility: hidden"><div style="visibility: visible">${paragraphs}</div></div>
          <p style="display: none">A note for editors that the browser never shows to anyone reading the article.</p></main>`,
        ),
      );
      const query = new URLSearchParams({
        url: `http://127.0.0.1:${site.port}/visible-inside`,
        include_html: 'true',
        include_markdown: 'true',
      });
      const { data } = (
        await t.runtime.app.inject({ url: `/v1/content?${query}`, headers: { 'x-api-key': key } })
      ).json();
      expect(data.html).toContain('A note for editors');
      expect(data.html).not.toContain('data-webcap-invisible');
      expect(data.markdown).not.toContain('A note for editors');
      for (const p of ARTICLE) expect(data.markdown).toContain(p);
      const main = await mainContent('/visible-inside', pages.get('/visible-inside') as string);
      for (const p of ARTICLE) expect(main.markdown).toContain(p);
    });

    it('a page whose body a script has not yet shown is read as its markup says', async () => {
      const { markdown } = await mainContent(
        '/body-hidden',
        page(`<main><h1>Sea wall reopens</h1>${paragraphs}</main>`, {
          head: '<style>body { visibility: hidden }</style>',
        }),
      );
      for (const p of ARTICLE) expect(markdown).toContain(p);
    });
  });

  describe('no markup text', () => {
    it('a noscript tracking pixel, in the head or the body, is not in the Markdown', async () => {
      const pixel =
        '<noscript><img height="1" width="1" style="display:none" src="https://px.example/tr?id=1&ev=PageView&noscript=1"/></noscript>';
      const { html, markdown } = await mainContent(
        '/noscript-pixel',
        page(
          `${pixel}<main><h1>Sea wall reopens</h1>${paragraphs.replace('</p>', `${pixel}</p>`)}</main>${pixel}`,
          {
            head: pixel,
          },
        ),
      );
      for (const p of ARTICLE) expect(markdown).toContain(p);
      for (const field of [html, markdown]) {
        expect(field).not.toContain('px.example');
        expect(field).not.toContain('&lt;img');
      }
      expect(markdown).not.toContain('<img');
    });

    it('video sources and fallback text, and markup written as text, are not in the Markdown', async () => {
      const { markdown } = await mainContent(
        '/video',
        page(
          `<main><h1>Sea wall reopens</h1>${paragraphs}
          <video controls width="640"><source src="/wall.webm" type="video/webm"><source src="/wall.mp4" type="video/mp4">Your browser does not support the video tag.</video>
          <p>&lt;video controls width="640"&gt;&lt;source src="/wall.mp4" type="video/mp4"&gt;</p>
          <p>src="/wall.mp4" type="video/mp4"&gt;</p></main>`,
        ),
      );
      for (const p of ARTICLE) expect(markdown).toContain(p);
      expect(markdown).not.toContain('video/mp4');
      expect(markdown).not.toContain('does not support');
      expect(markdown).not.toMatch(/[<>]/);
    });
  });

  describe('title and product', () => {
    it('the Markdown begins with the article title as a level-1 heading; the html does not hold it', async () => {
      const { html, markdown } = await mainContent(
        '/titled',
        page(
          `<header><h1><a href="/">Harbour News</a></h1></header><article><h1>Sea wall *reopens*</h1>${paragraphs}</article>`,
          {
            title: 'Sea wall *reopens* | Harbour News',
          },
        ),
      );
      expect(markdown.startsWith('# Sea wall \\*reopens\\*\n\n')).toBe(true);
      expect(markdown.match(/^# /gm)).toHaveLength(1);
      expect(html).not.toContain('Harbour News');
      expect(html).not.toContain('reopens*');
    });

    it("the headline main content took off the top heads the Markdown when the page's <title> is another text", async () => {
      const { html, markdown } = await mainContent(
        '/site-title',
        page(`<main><article><h1>Sea wall reopens after two winters</h1>${paragraphs}</article></main>`, {
          title: 'Harbour News',
        }),
      );
      expect(markdown.match(/^# .*/gm), markdown).toEqual(['# Sea wall reopens after two winters']);
      expect(markdown).not.toContain('Harbour News');
      expect(html).not.toContain('Sea wall reopens after two winters');
    });

    it('a page too short for main content keeps its own h1 once, not the title twice', async () => {
      const { markdown } = await mainContent(
        '/short',
        page('<main><h1>Acme Widget</h1><p>A small, sturdy widget.</p><p>Price: $19.99</p></main>', {
          title: 'Acme Widget',
        }),
      );
      expect(markdown.match(/^# .*/gm), markdown).toEqual(['# Acme Widget']);
      expect(markdown).toContain('Price: $19.99');
      const { markdown: withNav } = await mainContent(
        '/short-nav',
        page(
          `<nav><a href="/">Home</a> <a href="/about">About</a></nav><main><h1>Acme Widget</h1>
          <p>The Acme Widget is a small, sturdy widget for every workshop, made of recycled aluminium.</p>
          <p>Price: $19.99</p><a href="/about">About us</a></main>`,
          { title: 'Acme Widget' },
        ),
      );
      expect(withNav.match(/^# .*/gm), withNav).toEqual(['# Acme Widget']);
    });
  });

  describe('teasers', () => {
    it('a run of excerpts, each with its own link, inside the article is not content', async () => {
      const excerpt = (n: number) =>
        `<div class="card"><h3><a href="/story/${n}">Story number ${n} from the harbour desk</a></h3>
        <p>Fishermen at the northern quay say catches have changed since the storms; story ${n} follows three boats through a week of early starts.</p></div>`;
      const { markdown } = await mainContent(
        '/teasers',
        page(
          `<main><article><h1>Sea wall reopens</h1>${paragraphs}
          <section><h2>More from Harbour News</h2>${[1, 2, 3].map(excerpt).join('')}</section></article></main>`,
        ),
      );
      for (const p of ARTICLE) expect(markdown).toContain(p);
      expect(markdown).not.toContain('Fishermen at the northern quay');
      expect(markdown).not.toContain('More from Harbour News');
    });

    it('a customer-service block under a short story is not content; an author line with an address is', async () => {
      const { markdown } = await mainContent(
        '/service-block',
        page(
          `<main><article><h1>Sea wall reopens</h1>${paragraphs}
          <p>Questions about the works can go to the reporter, who is at reporter@harbour.example and reads every letter.</p>
          <div class="box"><div>Customer service</div><div>Phone: <a href="tel:+441234567890">01234 567890</a></div>
          <div>Email: <a href="mailto:service@harbour.example">service@harbour.example</a></div></div></article></main>`,
        ),
      );
      for (const p of ARTICLE) expect(markdown).toContain(p);
      expect(markdown).toContain('reporter@harbour.example');
      expect(markdown).not.toContain('Customer service');
      expect(markdown).not.toContain('01234 567890');
    });
  });

  describe('whole articles and products', () => {
    it('a long technical page with many headings and formulas keeps every section', async () => {
      const section = (n: number) =>
        `<h2>Step ${n}: tune the ${['cache', 'queue', 'index', 'pool', 'parser', 'writer', 'reader', 'logger'][n - 1]}</h2>
        <p>Section ${n} explains why the default settings hold under load and which one to change first when the latency of a request grows past what the service promised its callers.</p>
        <p><math><mi>t</mi><mo>=</mo><mn>${n}</mn></math> is the time each request waits, so the queue holds ${n * 10} requests at most before it refuses more.</p>
        <pre><code>setting_${n} = ${n * 100}</code></pre>`;
      const { markdown } = await mainContent(
        '/long-technical',
        page(
          `<nav><a href="/">Home</a> <a href="/docs">Docs</a></nav><main><article><h1>Tuning the service</h1>
          <div class="body"><p>This guide walks through the eight settings that matter, one section each, in the order in which they usually need changing.</p>
          ${[1, 2, 3, 4, 5, 6].map(section).join('')}</div>${[7, 8].map(section).join('')}
          <div class="share"><a href="/x">Share on X</a> <a href="/f">Share on Facebook</a></div></article></main>
          <footer>Copyright the docs team</footer>`,
          { title: 'Tuning the service' },
        ),
      );
      for (let n = 1; n <= 8; n++) {
        expect(markdown).toContain(`Section ${n} explains why`);
        expect(markdown).toContain(`setting_${n} = ${n * 100}`);
      }
      expect(markdown).not.toContain('Copyright the docs team');
      expect(markdown).not.toContain('Share on');
    });

    it('a product page keeps its name, price and description', async () => {
      const product = {
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: 'Harbour Rain Jacket',
        description: 'A waterproof jacket with taped seams.',
        offers: { '@type': 'Offer', price: '129.00', priceCurrency: 'EUR' },
      };
      const { markdown } = await mainContent(
        '/product',
        page(
          `<header><a href="/">Harbour Outfitters</a><nav><a href="/men">Men</a> <a href="/women">Women</a></nav></header>
          <main><div class="product"><div class="gallery"><img src="/jacket.jpg" alt="The jacket"></div>
          <div class="summary"><h1 class="product-title">Harbour Rain Jacket</h1><div class="price"><span>€129.00</span></div>
          <button>Add to cart</button></div>
          <div class="tabs"><div class="description"><p>Made for wet quays and long crossings, this jacket keeps the rain out with taped seams, a storm hood that folds into the collar and cuffs that close over gloves.</p>
          <p>The shell is recycled nylon with a membrane that breathes, so it can be worn all day on deck without growing clammy.</p></div></div></div>
          <section class="related"><h2>You may also like</h2><ul><li><a href="/p/1">Quay Boots</a></li><li><a href="/p/2">Deck Gloves</a></li></ul></section></main>`,
          {
            title: 'Harbour Rain Jacket | Harbour Outfitters',
            head: `<script type="application/ld+json">${JSON.stringify(product)}</script>`,
          },
        ),
      );
      expect(markdown.startsWith('# Harbour Rain Jacket\n')).toBe(true);
      expect(markdown).toContain('129.00');
      expect(markdown).toContain('Made for wet quays and long crossings');
      expect(markdown).toContain('without growing clammy');
      expect(markdown).not.toContain('You may also like');
    });
  });
});
