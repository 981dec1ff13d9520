import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { extractLinks } from './links.js';

function parse(head: string, body: string): Document {
  const html = `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;
  return (parseHTML(html) as unknown as { document: Document }).document;
}

function links(
  body: string,
  pageUrl = 'https://www.example.co.uk/news/today/story.html',
  head = '',
  maxLinks = 5_000,
) {
  return extractLinks(parse(head, body), pageUrl, maxLinks);
}

const a = (...hrefs: string[]) => hrefs.map((href) => `<a href="${href}">x</a>`).join('');

describe('extractLinks', () => {
  it('resolves relative, absolute, protocol-relative and ../ hrefs against the page, in document order', () => {
    const found = links(
      a(
        'other.html',
        '/root',
        '../yesterday/',
        '//cdn.example.co.uk/x',
        'https://example.co.uk/',
        '?page=2',
        '',
      ),
    );
    expect(found).toEqual({
      links: {
        internal: [
          'https://www.example.co.uk/news/today/other.html',
          'https://www.example.co.uk/root',
          'https://www.example.co.uk/news/yesterday/',
          'https://cdn.example.co.uk/x',
          'https://example.co.uk/',
          'https://www.example.co.uk/news/today/story.html?page=2',
          'https://www.example.co.uk/news/today/story.html',
        ],
        external: [],
        social: [],
      },
      total: 7,
      truncated: false,
    });
  });

  it('strips fragments and keeps each URL once, at its first place', () => {
    const found = links(a('/a#top', '/b', '/a', '/a#bottom', '#section', 'https://www.example.co.uk/b#x'));
    expect(found.links.internal).toEqual([
      'https://www.example.co.uk/a',
      'https://www.example.co.uk/b',
      'https://www.example.co.uk/news/today/story.html',
    ]);
    expect(found.total).toBe(3);
  });

  it('drops mailto:, tel:, javascript:, data:, ftp:, unparseable and over-long hrefs', () => {
    const long = `/${'a'.repeat(8_192)}`;
    const found = links(
      a(
        'mailto:news@example.co.uk',
        'tel:+441234567890',
        'javascript:void(0)',
        'data:text/html,hi',
        'ftp://files.example.co.uk/x',
        'http://exa mple.com/',
        long,
        '/kept',
      ),
    );
    expect(found.links).toEqual({ internal: ['https://www.example.co.uk/kept'], external: [], social: [] });
  });

  it('reads <area href> too, and skips anchors without href', () => {
    const found = links(
      '<a name="anchor">no href</a><map name="m"><area href="/map/area.html" shape="rect" coords="0,0,1,1"></map>',
    );
    expect(found.links.internal).toEqual(['https://www.example.co.uk/map/area.html']);
  });

  describe('<base href>', () => {
    it('an absolute base: links resolve against it, internal is still judged by the page URL', () => {
      const found = links(
        a('guide.html', '../v1/old.html', '/root.html', 'https://www.example.co.uk/about'),
        'https://www.example.co.uk/docs/',
        '<base href="https://static.example.org/docs/v2/">',
      );
      expect(found.links).toEqual({
        internal: ['https://www.example.co.uk/about'],
        external: [
          'https://static.example.org/docs/v2/guide.html',
          'https://static.example.org/docs/v1/old.html',
          'https://static.example.org/root.html',
        ],
        social: [],
      });
    });

    it('a relative base resolves against the page; the first base counts', () => {
      const found = links(
        a('page.html'),
        'https://www.example.co.uk/news/today/story.html',
        '<base href="/archive/2026/"><base href="/ignored/">',
      );
      expect(found.links.internal).toEqual(['https://www.example.co.uk/archive/2026/page.html']);
    });

    it('a base that is not http(s) or does not parse is ignored', () => {
      expect(links(a('x'), undefined, '<base href="javascript:alert(1)">').links.internal).toEqual([
        'https://www.example.co.uk/news/today/x',
      ]);
      expect(links(a('x'), undefined, '<base href="http://[bad">').links.internal).toEqual([
        'https://www.example.co.uk/news/today/x',
      ]);
    });
  });

  describe('same site', () => {
    it('subdomains of a registrable domain under a public suffix are one site, scheme and port aside', () => {
      const found = links(
        a(
          'http://blog.example.co.uk/',
          'https://example.co.uk:8443/',
          'https://other.co.uk/',
          'https://example.com/',
        ),
      );
      expect(found.links).toEqual({
        internal: ['http://blog.example.co.uk/', 'https://example.co.uk:8443/'],
        external: ['https://other.co.uk/', 'https://example.com/'],
        social: [],
      });
    });

    it('private suffixes are respected: github.io and blogspot.com users are sites of their own', () => {
      const found = links(
        a(
          'https://alice.github.io/other/',
          'https://bob.github.io/',
          'https://github.io/',
          'https://alice.blogspot.com/',
        ),
        'https://alice.github.io/project/',
      );
      expect(found.links).toEqual({
        internal: ['https://alice.github.io/other/'],
        external: ['https://bob.github.io/', 'https://github.io/', 'https://alice.blogspot.com/'],
        social: [],
      });
      expect(
        links(
          a('https://alice.blogspot.com/2026/01/post.html', 'https://bob.blogspot.com/'),
          'https://alice.blogspot.com/',
        ).links,
      ).toEqual({
        internal: ['https://alice.blogspot.com/2026/01/post.html'],
        external: ['https://bob.blogspot.com/'],
        social: [],
      });
    });

    it('IP addresses and hosts without a registrable domain compare by exact hostname', () => {
      const onIp = links(
        a('/a', 'http://127.0.0.1:9000/b', 'http://127.0.0.2/', 'http://[::1]/', 'http://localhost/'),
        'http://127.0.0.1:8080/',
      );
      expect(onIp.links).toEqual({
        internal: ['http://127.0.0.1:8080/a', 'http://127.0.0.1:9000/b'],
        external: ['http://127.0.0.2/', 'http://[::1]/', 'http://localhost/'],
        social: [],
      });
      const onIntranet = links(
        a('http://wiki/', 'http://intranet/home', 'http://localhost/'),
        'http://intranet/',
      );
      expect(onIntranet.links).toEqual({
        internal: ['http://intranet/home'],
        external: ['http://wiki/', 'http://localhost/'],
        social: [],
      });
    });
  });

  it('social profiles go to social only; share and intent links are external', () => {
    const found = links(
      a(
        'https://twitter.com/examplenews',
        'https://twitter.com/intent/tweet?url=x',
        'https://www.facebook.com/examplenews/#about',
        'https://www.facebook.com/sharer/sharer.php?u=x',
        'https://github.com/example',
        'https://github.com/login',
      ),
    );
    expect(found.links).toEqual({
      internal: [],
      external: [
        'https://twitter.com/intent/tweet?url=x',
        'https://www.facebook.com/sharer/sharer.php?u=x',
        'https://github.com/login',
      ],
      social: [
        'https://twitter.com/examplenews',
        'https://www.facebook.com/examplenews/',
        'https://github.com/example',
      ],
    });
  });

  it("a site's own social pages are social, not internal", () => {
    const found = links(a('/features', 'https://github.com/octocat'), 'https://github.com/');
    expect(found.links).toEqual({
      internal: ['https://github.com/features'],
      external: [],
      social: ['https://github.com/octocat'],
    });
  });

  describe('truncation', () => {
    it('returns the first maxLinks distinct links across the lists and counts them all', () => {
      const found = links(
        a('/1', 'https://other.com/2', '/1', 'https://x.com/example', '/4', '/5'),
        undefined,
        '',
        3,
      );
      expect(found).toEqual({
        links: {
          internal: ['https://www.example.co.uk/1'],
          external: ['https://other.com/2'],
          social: ['https://x.com/example'],
        },
        total: 5,
        truncated: true,
      });
    });

    it('is not truncated at exactly maxLinks', () => {
      expect(links(a('/1', '/2', '/2#x'), undefined, '', 2)).toMatchObject({ total: 2, truncated: false });
    });

    it('stops after 100,000 anchors and says so', () => {
      // Built with the DOM rather than parsed: linkedom parses 100,001 anchors three times slower.
      const document = parse('', '');
      const anchors = document.createDocumentFragment();
      for (let i = 0; i < 100_001; i++) {
        const anchor = document.createElement('a');
        anchor.setAttribute('href', '/same');
        anchors.appendChild(anchor);
      }
      document.body.appendChild(anchors);
      expect(extractLinks(document, 'https://www.example.co.uk/', 5_000)).toEqual({
        links: { internal: ['https://www.example.co.uk/same'], external: [], social: [] },
        total: 1,
        truncated: true,
      });
    });
  });
});
