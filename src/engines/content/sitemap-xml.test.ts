import { describe, expect, it } from 'vitest';
import { type SitemapKind, SitemapScanner } from './sitemap-xml.js';

/** Scans a whole file in one step, as the discovery does in slices: the locs in document order, and what the file was. */
function scanSitemap(file: string): {
  readonly kind: SitemapKind;
  readonly root: string;
  readonly truncated: boolean;
  readonly locs: string[];
} {
  const locs: string[] = [];
  const scanner = new SitemapScanner(Buffer.from(file, 'utf8'), (loc) => locs.push(loc));
  scanner.step(Number.POSITIVE_INFINITY);
  return { kind: scanner.kind, root: scanner.root, truncated: scanner.truncated, locs };
}

// The scanner decodes at most this many bytes of one loc or line.
const MAX_LOC_BYTES = 64 * 1024;

const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

describe('sitemap scanner: happy', () => {
  it('reads a urlset: locs in document order, trimmed, other children ignored', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="${NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>
      https://example.com/a
    </loc>
    <lastmod>2024-01-01</lastmod>
    <image:image><image:loc>https://example.com/a.png</image:loc></image:image>
  </url>
  <url><loc>https://example.com/b</loc><changefreq>daily</changefreq></url>
  <url><priority>0.5</priority></url>
  <url><loc></loc></url>
  <url><loc/></url>
</urlset>`;
    expect(scanSitemap(xml)).toEqual({
      kind: 'urlset',
      root: 'urlset',
      truncated: false,
      locs: ['https://example.com/a', 'https://example.com/b'],
    });
  });

  it('reads a sitemap index', () => {
    const xml = `<sitemapindex xmlns="${NS}">
<sitemap><loc>https://example.com/s1.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
<sitemap><loc>https://example.com/s2.xml.gz</loc></sitemap>
</sitemapindex>`;
    expect(scanSitemap(xml)).toEqual({
      kind: 'index',
      root: 'sitemapindex',
      truncated: false,
      locs: ['https://example.com/s1.xml', 'https://example.com/s2.xml.gz'],
    });
  });

  it('takes CDATA literally and decodes the predefined and numeric entities', () => {
    const xml = `<urlset>
<url><loc><![CDATA[https://example.com/?a=1&amp;b=<2>]]></loc></url>
<url><loc>https://example.com/?a=1&amp;b=&lt;&gt;&quot;&apos;&#65;&#x42;&#X43;</loc></url>
<url><loc>https://example.com/<![CDATA[x&y]]>&amp;z</loc></url>
<url><loc>https://example.com/&unknown;&#0;&#xD800;&#x110000;&#;&amp</loc></url>
</urlset>`;
    expect(scanSitemap(xml).locs).toEqual([
      'https://example.com/?a=1&amp;b=<2>',
      'https://example.com/?a=1&b=<>"\'ABC',
      'https://example.com/x&y&z',
      'https://example.com/&unknown;&#0;&#xD800;&#x110000;&#;&amp',
    ]);
    expect(
      scanSitemap('<urlset><url><loc>&#x1F600; &#128512; &amp;amp; & ; &lt</loc></url></urlset>').locs,
    ).toEqual(['😀 😀 &amp; & ; &lt']);
  });

  it('ignores namespace prefixes and letter case in element names', () => {
    const xml = `<sm:urlset xmlns:sm="${NS}"><sm:url><sm:loc>https://example.com/p</sm:loc></sm:url>
<URL><LOC>https://example.com/q</LOC></URL></sm:urlset>`;
    expect(scanSitemap(xml)).toMatchObject({
      kind: 'urlset',
      root: 'urlset',
      locs: ['https://example.com/p', 'https://example.com/q'],
    });
  });

  it('skips comments, processing instructions and attributes holding ">"', () => {
    const xml = `\uFEFF  <?xml version="1.0"?><!-- <url><loc>https://example.com/commented</loc></url> -->
<urlset note="a > b" other='<x>'>
<?pi <url><loc>https://example.com/pi</loc></url> ?>
<url><loc>https://example.com/<!-- inside -->kept</loc></url>
</urlset>`;
    expect(scanSitemap(xml)).toMatchObject({
      kind: 'urlset',
      truncated: false,
      locs: ['https://example.com/kept'],
    });
  });

  it('reads a text sitemap: lines starting with http(s)://, trimmed, others skipped', () => {
    const text =
      '\uFEFFhttps://example.com/1\r\n  HTTP://example.com/2  \n\nnot a url\nftp://example.com/3\nhttps://example.com/4';
    expect(scanSitemap(text)).toEqual({
      kind: 'text',
      root: '',
      truncated: false,
      locs: ['https://example.com/1', 'HTTP://example.com/2', 'https://example.com/4'],
    });
    expect(scanSitemap('')).toEqual({ kind: 'text', root: '', truncated: false, locs: [] });
    expect(scanSitemap(' \n ')).toEqual({ kind: 'text', root: '', truncated: false, locs: [] });
  });

  it('reads the UTF-8 bytes: multi-byte characters in locs, lines and names, BOM skipped, any slice size', () => {
    const xml = `\uFEFF<urlset><url><loc>https://例え.jp/café?q=ü&amp;x=😀</loc></url><url><loc><![CDATA[https://example.com/ß]]></loc></url></urlset>`;
    for (const slice of [1, 7, Number.POSITIVE_INFINITY]) {
      const locs: string[] = [];
      const scanner = new SitemapScanner(Buffer.from(xml), (loc) => locs.push(loc));
      while (!scanner.step(slice));
      expect(locs).toEqual(['https://例え.jp/café?q=ü&x=😀', 'https://example.com/ß']);
    }
    expect(scanSitemap('\uFEFFhttps://例え.jp/ü\nhttps://example.com/é').locs).toEqual([
      'https://例え.jp/ü',
      'https://example.com/é',
    ]);
    expect(scanSitemap('<größe><x/></größe>')).toMatchObject({ kind: 'other', root: 'größe' });
  });

  it('scans in slices with the same result as at once', () => {
    const xml = `<urlset>${Array.from({ length: 200 }, (_, i) => `<url><loc>https://example.com/${i}</loc></url>`).join('')}</urlset>`;
    const locs: string[] = [];
    const scanner = new SitemapScanner(Buffer.from(xml), (loc, kind) => locs.push(`${kind} ${loc}`));
    let steps = 1;
    while (!scanner.step(100)) steps++;
    expect(steps).toBeGreaterThan(50);
    expect(locs).toEqual(Array.from({ length: 200 }, (_, i) => `urlset https://example.com/${i}`));
    expect(scanner.truncated).toBe(false);
  });
});

describe('sitemap scanner: not sitemaps and broken files', () => {
  it('gives nothing for an HTML page, links included', () => {
    const html = `<!DOCTYPE html><html><head><title>Not found</title></head><body>
<a href="https://example.com/x">x</a><url><loc>https://example.com/y</loc></url></body></html>`;
    expect(scanSitemap(html)).toEqual({ kind: 'other', root: 'html', truncated: false, locs: [] });
    expect(
      scanSitemap('<rss version="2.0"><channel><link>https://example.com/</link></channel></rss>'),
    ).toEqual({
      kind: 'other',
      root: 'rss',
      truncated: false,
      locs: [],
    });
  });

  it('only counts the first root element', () => {
    const xml = '<html></html><urlset><url><loc>https://example.com/late</loc></url></urlset>';
    expect(scanSitemap(xml)).toMatchObject({ kind: 'other', root: 'html', locs: [] });
  });

  it('leaves a DOCTYPE and its entity declarations unexpanded (billion laughs is inert)', () => {
    const lol = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join(
      '\n',
    );
    const xml = `<?xml version="1.0"?>
<!DOCTYPE urlset [
  <!ENTITY lol0 "lol">
  ${lol}
  <!-- a comment with ] and > and a ' quote -->
  <!ENTITY inside "<url><loc>https://example.com/from-dtd</loc></url>">
]>
<urlset><url><loc>https://example.com/&lol9;</loc></url><url><loc>https://example.com/ok</loc></url></urlset>`;
    expect(scanSitemap(xml)).toEqual({
      kind: 'urlset',
      root: 'urlset',
      truncated: false,
      locs: ['https://example.com/&lol9;', 'https://example.com/ok'],
    });
  });

  it('keeps what came before a cut, and says the file was cut', () => {
    const head = '<urlset><url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2';
    expect(scanSitemap(head)).toEqual({
      kind: 'urlset',
      root: 'urlset',
      truncated: true,
      locs: ['https://example.com/1'],
    });
    for (const cut of [
      '<url',
      '<url><loc>x</loc',
      '<!-- never closed',
      '<![CDATA[x',
      '<? pi',
      '<url a="open>',
    ]) {
      expect(scanSitemap(`<urlset><url><loc>https://example.com/1</loc></url>${cut}`)).toEqual({
        kind: 'urlset',
        root: 'urlset',
        truncated: true,
        locs: ['https://example.com/1'],
      });
    }
    expect(scanSitemap('<!DOCTYPE x [ <!ENTITY a "b">')).toMatchObject({
      kind: 'other',
      root: '',
      truncated: true,
    });
  });

  it('drops a loc holding an element or closed by another tag', () => {
    const xml = `<urlset>
<url><loc>https://example.com/<b>bold</b></loc></url>
<url><loc>https://example.com/unclosed</url>
<url><loc>https://example.com/ok</loc></url>
<url><x><loc>https://example.com/too-deep</loc></x></url>
<loc>https://example.com/too-shallow</loc>
</urlset>`;
    expect(scanSitemap(xml)).toMatchObject({ truncated: false, locs: ['https://example.com/ok'] });
  });

  it('decodes at most 64 KiB of a loc or a line: a 20 MB one never becomes one string', () => {
    const long = `https://example.com/${'a'.repeat(20 * 1024 * 1024)}`;
    for (const file of [
      `${long}\nhttps://example.com/next`,
      `<urlset><url><loc>${long}</loc></url><url><loc>https://example.com/next</loc></url></urlset>`,
      `<urlset><url><loc><![CDATA[${long}]]>&amp;more</loc></url><url><loc>https://example.com/next</loc></url></urlset>`,
    ]) {
      const { locs } = scanSitemap(file);
      expect(locs.map((loc) => loc.length)).toEqual([MAX_LOC_BYTES, 'https://example.com/next'.length]);
      expect(locs[0]?.startsWith('https://example.com/aaa')).toBe(true);
    }
  });

  it('stays linear on 20 MB of pathological input', () => {
    const MB = 1024 * 1024;
    const cutShort = { kind: 'other', root: '', truncated: true, locs: 0 };
    const oneLoc = { kind: 'urlset', root: 'urlset', truncated: false, locs: 1 };
    const cases: [string, object][] = [
      [
        `<urlset><url>${'<a>'.repeat((20 * MB) / 3)}`,
        { kind: 'urlset', root: 'urlset', truncated: true, locs: 0 },
      ],
      ['<a'.repeat(10 * MB), cutShort],
      ['<'.repeat(20 * MB), cutShort],
      ['<a b="'.repeat((20 * MB) / 6), cutShort],
      ['<!--'.repeat(5 * MB), cutShort],
      [`<!DOCTYPE x [${'['.repeat(20 * MB)}`, cutShort],
      ['</a'.repeat((20 * MB) / 3), cutShort],
      [`<${'x:'.repeat(10 * MB)}>`, cutShort],
      [`<urlset><url><loc>${'&'.repeat(20 * MB)}</loc></url></urlset>`, oneLoc],
      [`<urlset><url><loc>${'&#'.repeat(10 * MB)}</loc></url></urlset>`, oneLoc],
      [`<urlset><url><loc>${'<![CDATA[x]]>'.repeat((20 * MB) / 13)}</loc></url></urlset>`, oneLoc],
    ];
    // A linear scan of each ends in well under a second; a quadratic one would take hours, and the
    // test would never end (its timeout), whatever the machine's speed. Only the outcome is asserted.
    for (const [input, expected] of cases) {
      const { locs, ...rest } = scanSitemap(input);
      expect({ ...rest, locs: locs.length }).toEqual(expected);
    }
  });
});
