import { describe, expect, it } from 'vitest';
import { urlMatcher } from './url-patterns.js';

describe('urlMatcher', () => {
  const match = urlMatcher(['ads.example.com', '*.gif', '*://*.tracker.net/*', '/pixel?', ' ']);

  it('matches a domain and its subdomains, not look-alike hosts', () => {
    expect(match('https://ads.example.com/x.js')).toBe(true);
    expect(match('http://cdn.ads.example.com/')).toBe(true);
    expect(match('https://badads.example.com/')).toBe(false);
    expect(match('https://ads.example.com.evil.org/')).toBe(false);
  });

  it('matches a bare file name in the path, since it looks like a domain', () => {
    const file = urlMatcher(['pixel.png']);
    expect(file('https://site.org/img/pixel.png?v=2')).toBe(true);
    expect(file('https://site.org/img/other.png')).toBe(false);
  });

  it('anchors wildcard patterns at both ends', () => {
    expect(match('https://site.org/img/a.gif')).toBe(true);
    expect(match('https://site.org/img/a.gif?x=1')).toBe(false);
    expect(match('https://a.tracker.net/collect')).toBe(true);
    expect(match('https://tracker.net.evil.org/collect')).toBe(false);
  });

  it('matches wildcards with stars at either end, in the middle, doubled or alone', () => {
    expect(urlMatcher(['http*'])('http://a.org/')).toBe(true);
    expect(urlMatcher(['*/a/*/c'])('http://h.org/a/b/c')).toBe(true);
    expect(urlMatcher(['*/a/*/c'])('http://h.org/a/c')).toBe(false);
    expect(urlMatcher(['*a**b*'])('http://h.org/xaxb')).toBe(true);
    expect(urlMatcher(['*'])('http://h.org/')).toBe(true);
    expect(urlMatcher(['*.GIF'])('http://h.org/A.gif')).toBe(true);
    // The two ends must not overlap: "ab*ba" needs at least "abba".
    expect(urlMatcher(['ab*ba'])('aba')).toBe(false);
    expect(urlMatcher(['ab*ba'])('abba')).toBe(true);
  });

  it('answers a pattern built to make a backtracking matcher take exponential time at once', () => {
    const hostile = urlMatcher([`${'*a'.repeat(40)}!`]);
    // A backtracking regex takes seconds for one URL here: a hundred of them would run far past the
    // test's timeout, which is the bound (how fast the matcher is, is no test's business).
    for (let i = 0; i < 100; i++) expect(hostile(`http://h.org/${'a'.repeat(4000)}`)).toBe(false);
  });

  it('treats other entries as substrings, case-insensitively', () => {
    expect(match('https://site.org/PIXEL?id=1')).toBe(true);
    expect(match('https://site.org/pixel.png')).toBe(false);
  });

  it('matches nothing without entries', () => {
    expect(urlMatcher([' ', ''])('https://anything.org/')).toBe(false);
  });
});
