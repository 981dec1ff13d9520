import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { extractMetadata, type PageMetadata } from './metadata.js';

const PAGE = 'https://www.example.com/blog/post?id=1';

const NONE: PageMetadata = {
  title: '',
  description: '',
  favicon: '',
  ogImage: '',
  language: '',
  canonicalUrl: '',
  siteName: '',
  author: '',
  publishedTime: '',
};

function metadata(head: string, body = '', htmlAttributes = ''): PageMetadata {
  const html = `<!DOCTYPE html><html${htmlAttributes}><head>${head}</head><body>${body}</body></html>`;
  const { document } = parseHTML(html) as unknown as { document: Document };
  return extractMetadata(document, PAGE);
}

const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

describe('extractMetadata', () => {
  it('reads every field from a complete head, URLs made absolute', () => {
    const head = `
      <meta charset="utf-8">
      <title>  A   post
        title </title>
      <meta name="description" content="What the post says.">
      <link rel="icon" href="/favicon-32.png" sizes="32x32">
      <meta property="og:image" content="../img/card.png">
      <meta property="og:site_name" content="Example Blog">
      <meta name="author" content="Ada Lovelace">
      <meta property="article:published_time" content="2026-03-02T08:00:00+01:00">
      <link rel="canonical" href="/blog/post">`;
    expect(metadata(head, '', ' lang="en-gb"')).toEqual({
      title: 'A post title',
      description: 'What the post says.',
      favicon: 'https://www.example.com/favicon-32.png',
      ogImage: 'https://www.example.com/img/card.png',
      language: 'en-GB',
      canonicalUrl: 'https://www.example.com/blog/post',
      siteName: 'Example Blog',
      author: 'Ada Lovelace',
      publishedTime: '2026-03-02T08:00:00+01:00',
    });
  });

  it('gives empty strings for a page without metadata', () => {
    expect(metadata('', '<p>Just text.</p>')).toEqual(NONE);
  });

  describe('title', () => {
    const all = `<meta property="og:title" content="OG"><meta name="twitter:title" content="Twitter">${ld({
      '@type': 'Article',
      headline: 'Headline',
      name: 'Name',
    })}`;

    it('<title> first', () => {
      expect(metadata(`<title>Title</title>${all}`, '<h1>H1</h1>').title).toBe('Title');
    });

    it('then og:title, twitter:title, JSON-LD headline, JSON-LD name, the first h1', () => {
      expect(metadata(`<title> \n </title>${all}`, '<h1>H1</h1>').title).toBe('OG');
      expect(metadata(all.replace('property="og:title"', 'property="og:other"'), '<h1>H1</h1>').title).toBe(
        'Twitter',
      );
      expect(metadata(ld({ '@type': 'Article', headline: 'Headline', name: 'Name' })).title).toBe('Headline');
      expect(metadata(ld({ '@type': 'Product', name: 'Name' })).title).toBe('Name');
      expect(metadata('', '<div><h1>The <em>first</em>\n heading</h1></div><h1>Second</h1>').title).toBe(
        'The first heading',
      );
    });

    it('does not take a JSON-LD WebSite or Organization name for the title', () => {
      expect(
        metadata(
          ld([
            { '@type': 'WebSite', name: 'Site' },
            { '@type': 'Organization', name: 'Org' },
          ]),
        ).title,
      ).toBe('');
    });
  });

  it('description: name=description, og:description, twitter:description, JSON-LD description', () => {
    const og = '<meta property="og:description" content="OG">';
    const tw = '<meta name="twitter:description" content="Twitter">';
    const json = ld({ '@type': 'WebPage', description: 'JSON-LD' });
    expect(metadata(`${json}${tw}${og}<meta name="description" content="Plain">`).description).toBe('Plain');
    expect(metadata(`${json}${tw}${og}<meta name="description" content="  ">`).description).toBe('OG');
    expect(metadata(`${json}${tw}`).description).toBe('Twitter');
    expect(metadata(json).description).toBe('JSON-LD');
  });

  describe('ogImage', () => {
    it('og:image resolved against the page, then its :url and :secure_url variants', () => {
      expect(metadata('<meta property="og:image" content="card.png">').ogImage).toBe(
        'https://www.example.com/blog/card.png',
      );
      expect(metadata('<meta property="og:image" content="//cdn.example.net/c.png">').ogImage).toBe(
        'https://cdn.example.net/c.png',
      );
      expect(
        metadata(
          '<meta property="og:image" content="data:image/png;base64,AAAA"><meta property="og:image:secure_url" content="https://cdn.example.net/s.png">',
        ).ogImage,
      ).toBe('https://cdn.example.net/s.png');
      expect(metadata('<meta property="og:image:url" content="/u.png">').ogImage).toBe(
        'https://www.example.com/u.png',
      );
    });

    it('then twitter:image and twitter:image:src', () => {
      expect(metadata('<meta name="twitter:image" content="/t.png">').ogImage).toBe(
        'https://www.example.com/t.png',
      );
      expect(metadata('<meta name="twitter:image:src" content="/ts.png">').ogImage).toBe(
        'https://www.example.com/ts.png',
      );
    });

    it('then JSON-LD image: a URL, an ImageObject, the first usable of a list, a reference by @id', () => {
      expect(metadata(ld({ '@type': 'Article', image: '/a.png' })).ogImage).toBe(
        'https://www.example.com/a.png',
      );
      expect(
        metadata(ld({ '@type': 'Article', image: { '@type': 'ImageObject', url: '/b.png' } })).ogImage,
      ).toBe('https://www.example.com/b.png');
      expect(metadata(ld({ '@type': 'Article', image: { contentUrl: '/c.png' } })).ogImage).toBe(
        'https://www.example.com/c.png',
      );
      expect(
        metadata(ld({ '@type': 'Product', image: ['javascript:alert(1)', '/d1.png', '/d2.png'] })).ogImage,
      ).toBe('https://www.example.com/d1.png');
      const graph = {
        '@graph': [
          { '@type': 'Article', '@id': '#article', image: { '@id': '#primary' } },
          { '@type': 'ImageObject', '@id': '#primary', url: 'https://cdn.example.net/primary.jpg' },
        ],
      };
      expect(metadata(ld(graph)).ogImage).toBe('https://cdn.example.net/primary.jpg');
      expect(metadata(ld({ '@type': 'VideoObject', thumbnailUrl: '/thumb.jpg' })).ogImage).toBe(
        'https://www.example.com/thumb.jpg',
      );
    });

    it('drops javascript:, data: and over-long URLs', () => {
      expect(metadata('<meta property="og:image" content="javascript:alert(1)">').ogImage).toBe('');
      expect(metadata('<meta property="og:image" content="data:image/png;base64,AAAA">').ogImage).toBe('');
      expect(metadata(`<meta property="og:image" content="/${'a'.repeat(8_192)}">`).ogImage).toBe('');
    });

    it('honours <base href>', () => {
      expect(
        metadata(
          '<base href="https://static.example.org/assets/"><meta property="og:image" content="card.png">',
        ).ogImage,
      ).toBe('https://static.example.org/assets/card.png');
    });
  });

  describe('favicon', () => {
    it('the rel=icon with the largest declared size', () => {
      const head = `
        <link rel="icon" href="/i16.png" sizes="16x16">
        <link rel="icon" href="/i-multi.ico" sizes="16x16 48x48">
        <link rel="icon" href="/i32.png" sizes="32x32">
        <link rel="apple-touch-icon" href="/apple.png" sizes="180x180">`;
      expect(metadata(head).favicon).toBe('https://www.example.com/i-multi.ico');
    });

    it('a raster icon without sizes before an SVG icon; SVG when it is the only icon', () => {
      const svg = '<link rel="icon" href="/i.svg" type="image/svg+xml">';
      expect(metadata(`${svg}<link rel="shortcut icon" href="/favicon.ico">`).favicon).toBe(
        'https://www.example.com/favicon.ico',
      );
      expect(metadata(`<link rel="icon" href="/any" sizes="any">${svg}`).favicon).toBe(
        'https://www.example.com/any',
      );
      expect(metadata(svg).favicon).toBe('https://www.example.com/i.svg');
    });

    it('ties go to the first; rel tokens are matched case-insensitively', () => {
      expect(metadata('<link rel="ICON" href="/a.png"><link rel="icon" href="/b.png">').favicon).toBe(
        'https://www.example.com/a.png',
      );
    });

    it('apple-touch-icon when there is no rel=icon, largest first; mask-icon last', () => {
      const apple =
        '<link rel="apple-touch-icon" href="/a120.png" sizes="120x120"><link rel="apple-touch-icon-precomposed" href="/a180.png" sizes="180x180">';
      const mask = '<link rel="mask-icon" href="/mask.svg" color="#000">';
      expect(metadata(`${mask}${apple}`).favicon).toBe('https://www.example.com/a180.png');
      expect(metadata(mask).favicon).toBe('https://www.example.com/mask.svg');
    });

    it('skips an icon that is not http(s) and gives "" when there is none', () => {
      expect(
        metadata(
          '<link rel="icon" href="data:image/png;base64,AAAA" sizes="64x64"><link rel="icon" href="/f.png">',
        ).favicon,
      ).toBe('https://www.example.com/f.png');
      expect(metadata('<link rel="stylesheet" href="/s.css">').favicon).toBe('');
    });
  });

  describe('language', () => {
    it('<html lang>, canonical case, underscores read as hyphens', () => {
      expect(metadata('', '', ' lang="EN_us"').language).toBe('en-US');
    });

    it('then content-language (its first entry), then og:locale', () => {
      const equiv = '<meta http-equiv="Content-Language" content="fr-CA, en">';
      const locale = '<meta property="og:locale" content="de_DE">';
      expect(metadata(`${locale}${equiv}`).language).toBe('fr-CA');
      expect(metadata(locale).language).toBe('de-DE');
    });

    it('skips a value that is not a language tag', () => {
      expect(
        metadata('<meta property="og:locale" content="pt_BR">', '', ' lang="not a language"').language,
      ).toBe('pt-BR');
    });
  });

  it('canonicalUrl: link rel=canonical, then og:url', () => {
    expect(
      metadata('<meta property="og:url" content="https://example.com/og"><link rel="canonical" href="/c">')
        .canonicalUrl,
    ).toBe('https://www.example.com/c');
    expect(metadata('<meta property="og:url" content="https://example.com/og">').canonicalUrl).toBe(
      'https://example.com/og',
    );
  });

  it('siteName: og:site_name, JSON-LD publisher, WebSite, Organization, application-name', () => {
    const app = '<meta name="application-name" content="App">';
    const org = ld({ '@type': 'Organization', name: 'Org' });
    const site = ld({ '@type': 'WebSite', name: 'Site' });
    const publisher = ld({
      '@type': 'NewsArticle',
      publisher: { '@type': 'Organization', name: 'Publisher' },
    });
    const og = '<meta property="og:site_name" content="OG">';
    expect(metadata(`${app}${org}${site}${publisher}${og}`).siteName).toBe('OG');
    expect(metadata(`${app}${org}${site}${publisher}`).siteName).toBe('Publisher');
    expect(metadata(`${app}${org}${site}`).siteName).toBe('Site');
    expect(metadata(`${app}${org}`).siteName).toBe('Org');
    expect(metadata(app).siteName).toBe('App');
  });

  describe('author', () => {
    it('name=author, then article:author unless it is a URL, then JSON-LD', () => {
      const json = ld({ '@type': 'BlogPosting', author: 'Json Author' });
      expect(metadata(`${json}<meta name="author" content="Meta Author">`).author).toBe('Meta Author');
      expect(metadata(`${json}<meta property="article:author" content="Article Author">`).author).toBe(
        'Article Author',
      );
      expect(
        metadata(`${json}<meta property="article:author" content="https://www.facebook.com/someone">`).author,
      ).toBe('Json Author');
    });

    it('JSON-LD author as a Person, a list (joined, each once), a reference by @id', () => {
      expect(metadata(ld({ '@type': 'Article', author: { '@type': 'Person', name: 'Ada' } })).author).toBe(
        'Ada',
      );
      expect(
        metadata(
          ld({
            '@type': 'Article',
            author: [{ '@type': 'Person', name: 'Ada' }, 'Grace', { name: 'Ada' }, 'https://example.com/me'],
          }),
        ).author,
      ).toBe('Ada, Grace');
      const yoast = {
        '@context': 'https://schema.org',
        '@graph': [
          { '@type': 'WebPage', '@id': 'https://www.example.com/blog/post' },
          {
            '@type': 'Article',
            author: { '@id': '#/schema/person/1' },
            datePublished: '2025-12-01T10:00:00+00:00',
          },
          { '@type': 'Person', '@id': '#/schema/person/1', name: 'Referenced Person' },
        ],
      };
      expect(metadata(ld(yoast))).toMatchObject({
        author: 'Referenced Person',
        publishedTime: '2025-12-01T10:00:00+00:00',
      });
    });
  });

  it('publishedTime: article:published_time, then datePublished, pubdate, date, then JSON-LD, as given', () => {
    const json = ld({ '@type': 'NewsArticle', datePublished: '2026-01-05' });
    const date = '<meta name="date" content="2026-01-04">';
    const pubdate = '<meta name="pubdate" content="20260103">';
    const itemprop = '<meta itemprop="datePublished" content="2026-01-02">';
    const article = '<meta property="article:published_time" content=" 2026-01-01T09:00:00Z ">';
    expect(metadata(`${json}${date}${pubdate}${itemprop}${article}`).publishedTime).toBe(
      '2026-01-01T09:00:00Z',
    );
    expect(metadata(`${json}${date}${pubdate}${itemprop}`).publishedTime).toBe('2026-01-02');
    expect(metadata(`${json}${date}${pubdate}`).publishedTime).toBe('20260103');
    expect(metadata(`${json}${date}`).publishedTime).toBe('2026-01-04');
    expect(metadata(json).publishedTime).toBe('2026-01-05');
  });

  it('matches meta names and properties case-insensitively (attribute names come lower-cased from the browser), og: and twitter: by name or property', () => {
    const head =
      '<meta name="Description" content="D"><meta name="og:title" content="T"><meta property="twitter:image" content="/i.png">';
    expect(metadata(head)).toMatchObject({
      description: 'D',
      title: 'T',
      ogImage: 'https://www.example.com/i.png',
    });
  });

  it('ignores title, meta and link elements in the body (linkedom leaves them there, as Chromium does)', () => {
    const body = `
      <title>Body title</title>
      <meta name="description" content="Body description">
      <meta property="og:image" content="/body.png">
      <link rel="icon" href="/body.ico">
      <link rel="canonical" href="/body">
      <svg><title>Icon title</title></svg>
      <h1>Heading</h1>`;
    expect(metadata('', body)).toEqual({ ...NONE, title: 'Heading' });
  });

  describe('JSON-LD', () => {
    it('prefers an Article to a WebPage, whatever their order, in @graph or in a top-level array', () => {
      const nodes = [
        { '@type': 'WebPage', name: 'Page name', description: 'Page description' },
        { '@type': ['Thing', 'schema:NewsArticle'], headline: 'Article headline' },
      ];
      expect(metadata(ld({ '@graph': nodes }))).toMatchObject({
        title: 'Article headline',
        description: 'Page description',
      });
      expect(metadata(ld(nodes)).title).toBe('Article headline');
      expect(metadata(ld({ '@type': 'https://schema.org/BlogPosting', headline: 'By IRI' })).title).toBe(
        'By IRI',
      );
    });

    it('skips broken scripts and reads the others, in the body too', () => {
      const broken = '<script type="application/ld+json">{"@type": "Article", "headline": </script>';
      const good = ld({ '@type': 'Article', headline: 'Fine' });
      expect(metadata(broken, good).title).toBe('Fine');
      expect(
        metadata(
          `<script type="APPLICATION/LD+JSON">${JSON.stringify({ '@type': 'Article', headline: 'Case' })}</script>`,
        ).title,
      ).toBe('Case');
    });

    it('reads the scripts json-ld.ts reads, as the contact signals do: a type with spaces around it too', () => {
      const padded = `<script type=" application/ld+json ">${JSON.stringify({ '@type': 'Article', headline: 'Padded' })}</script>`;
      expect(metadata(padded).title).toBe('Padded');
    });

    it('skips a script over 1 MB and non-JSON-LD scripts', () => {
      const huge = ld({ '@type': 'Article', headline: 'Huge', padding: 'x'.repeat(1_000_001) });
      const plain = `<script type="application/json">${JSON.stringify({ '@type': 'Article', headline: 'Plain JSON' })}</script>`;
      expect(metadata(`${huge}${plain}`).title).toBe('');
    });

    it('does not walk nested @graph or nested arrays', () => {
      const nested = {
        '@graph': [
          { '@graph': [{ '@type': 'Article', headline: 'Deep' }] },
          [[{ '@type': 'Article', headline: 'Deeper' }]],
        ],
      };
      expect(metadata(ld(nested)).title).toBe('');
    });
  });

  it('cuts text at 2,000 characters after collapsing whitespace', () => {
    const long = `${'word   '.repeat(1_000)}`;
    const title = metadata(`<title>${long}</title>`).title;
    expect(title.length).toBeLessThanOrEqual(2_000);
    expect(title).toBe('word '.repeat(400).trimEnd());
  });
});
