import { describe, expect, it } from 'vitest';
import { isSameSiteOrBelow, MAX_SITE_URL_LENGTH, siteUrl } from './site-url.js';

describe('siteUrl', () => {
  it('spells one page one way', () => {
    expect(siteUrl('HTTP://Example.COM:80/a/../b/?z=1&a=2#top')).toBe('http://example.com/b/?a=2&z=1');
    expect(siteUrl('https://example.com/p;jsessionid=ABC123?x=1')).toBe('https://example.com/p?x=1');
    expect(siteUrl('https://example.com/p?utm_source=x&PHPSESSID=1&id=7&fbclid=q')).toBe(
      'https://example.com/p?id=7',
    );
    expect(siteUrl('https://example.com/p?utm_source=x')).toBe('https://example.com/p');
    expect(siteUrl('https://example.com/p?b=2&a=1&b=1')).toBe('https://example.com/p?a=1&b=2&b=1');
  });

  it('drops the query when asked', () => {
    expect(siteUrl('https://example.com/p?id=7', { ignoreQueryParams: true })).toBe('https://example.com/p');
  });

  it('refuses what a crawl must not follow', () => {
    expect(siteUrl('mailto:a@example.com')).toBeNull();
    expect(siteUrl('javascript:alert(1)')).toBeNull();
    expect(siteUrl('https://user:pw@example.com/')).toBeNull();
    expect(siteUrl('not a url')).toBeNull();
    expect(siteUrl(`https://example.com/${'a'.repeat(MAX_SITE_URL_LENGTH)}`)).toBeNull();
  });

  it('knows a site from the sites below it', () => {
    expect(isSameSiteOrBelow('docs.example.com', 'example.com')).toBe(true);
    expect(isSameSiteOrBelow('www.example.com', 'example.com')).toBe(true);
    expect(isSameSiteOrBelow('example.com', 'www.example.com')).toBe(true);
    expect(isSameSiteOrBelow('badexample.com', 'example.com')).toBe(false);
  });
});
