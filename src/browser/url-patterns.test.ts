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

  it('treats other entries as substrings, case-insensitively', () => {
    expect(match('https://site.org/PIXEL?id=1')).toBe(true);
    expect(match('https://site.org/pixel.png')).toBe(false);
  });

  it('matches nothing without entries', () => {
    expect(urlMatcher([' ', ''])('https://anything.org/')).toBe(false);
  });
});
