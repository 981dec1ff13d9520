import { describe, expect, it } from 'vitest';
import type { MapBody } from './params.js';
import { inScope } from './scope.js';
import { buildSiteMap, type SiteMapInput } from './site-map.js';

const base: SiteMapInput = {
  startUrl: null,
  html: null,
  pageUrl: 'https://example.com/',
  sitemapLinks: '',
  scope: { host: 'example.com', includeSubdomains: false },
  searchWords: [],
  limit: 1000,
  ignoreQueryParams: false,
  warnings: [],
};

const map = (input: Partial<SiteMapInput>) => JSON.parse(buildSiteMap({ ...base, ...input })) as MapBody;
const urls = (input: Partial<SiteMapInput>) => map(input).links.map((link) => link.url);

describe('buildSiteMap', () => {
  it('lists the start page, then its links in document order, then the sitemaps, each once', () => {
    expect(
      urls({
        startUrl: 'https://example.com/',
        html: '<base href="/docs/"><a href="intro">i</a><a href="/#top">home</a><a href="intro?utm_source=x">again</a>',
        sitemapLinks: ['https://example.com/docs/intro', 'https://example.com/pricing'].join('\n'),
      }),
    ).toEqual(['https://example.com/', 'https://example.com/docs/intro', 'https://example.com/pricing']);
  });

  it('drops query strings with ignoreQueryParams, so that they make one URL', () => {
    const sitemapLinks = ['https://example.com/p?id=1', 'https://example.com/p?id=2'].join('\n');
    expect(urls({ sitemapLinks })).toEqual(['https://example.com/p?id=1', 'https://example.com/p?id=2']);
    expect(urls({ sitemapLinks, ignoreQueryParams: true })).toEqual(['https://example.com/p']);
  });

  it('ranks by words contained, then length, then order; counts and cuts after the search', () => {
    const sitemapLinks = [
      'https://example.com/blog/post-about-pricing',
      'https://example.com/pricing',
      'https://example.com/blog/b',
      'https://example.com/blog/a',
      'https://example.com/careers',
    ].join('\n');
    expect(map({ sitemapLinks, searchWords: ['blog', 'pricing'], limit: 3 })).toEqual({
      success: true,
      links: [
        { url: 'https://example.com/blog/post-about-pricing' },
        // One word each: the shorter first, and of two as long, the one found first.
        { url: 'https://example.com/blog/b' },
        { url: 'https://example.com/blog/a' },
      ],
      total: 4,
      truncated: true,
      warnings: ['links truncated to the first 3 of 4 (limit)'],
    });
    expect(map({ sitemapLinks, searchWords: ['[a-z]+'] })).toMatchObject({
      links: [],
      total: 0,
      warnings: ['no URL of the site contains any of the search words'],
    });
  });

  it('says when nothing of the site was found', () => {
    expect(map({ sitemapLinks: 'https://elsewhere.com/' })).toEqual({
      success: true,
      links: [],
      total: 0,
      truncated: false,
      warnings: ['no URL of the site was found'],
    });
  });
});

describe('inScope', () => {
  it('takes www. as the same site, subdomains only when asked', () => {
    const scope = { host: 'example.com', includeSubdomains: false };
    expect(inScope('example.com', scope)).toBe(true);
    expect(inScope('www.example.com', scope)).toBe(true);
    expect(inScope('docs.example.com', scope)).toBe(false);
    expect(inScope('docs.example.com', { ...scope, includeSubdomains: true })).toBe(true);
    expect(inScope('www.example.com', { host: 'www.example.com', includeSubdomains: false })).toBe(true);
    expect(inScope('example.com', { host: 'docs.example.com', includeSubdomains: true })).toBe(false);
    expect(inScope('notexample.com', { ...scope, includeSubdomains: true })).toBe(false);
  });
});
