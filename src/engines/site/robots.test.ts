import { describe, expect, it } from 'vitest';
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, robotsAllow } from './robots.js';

const SITE = 'https://example.com';

describe('robots.txt', () => {
  it('takes the group naming webcap over the * group, and merges groups of one agent', () => {
    const robots = parseRobots(
      [
        'User-agent: *',
        'Disallow: /',
        '',
        'User-agent: Googlebot',
        'User-agent: webcap',
        'Disallow: /private',
        'Crawl-delay: 2',
        'User-agent: WEBCAP',
        'Allow: /private/open',
      ].join('\n'),
    );
    expect(robots.crawlDelaySeconds).toBe(2);
    expect(robotsAllow(robots, `${SITE}/`)).toBe(true);
    expect(robotsAllow(robots, `${SITE}/private/x`)).toBe(false);
    expect(robotsAllow(robots, `${SITE}/private/open/x`)).toBe(true);
  });

  it('falls back to the * group', () => {
    const robots = parseRobots('User-agent: other\nDisallow: /\n\nUser-agent: *\nDisallow: /tmp/\n');
    expect(robotsAllow(robots, `${SITE}/tmp/a`)).toBe(false);
    expect(robotsAllow(robots, `${SITE}/a`)).toBe(true);
  });

  it('lets the longest rule win, Allow on a tie, with * and $', () => {
    const robots = parseRobots(
      'User-agent: *\nDisallow: /*.pdf$\nDisallow: /a\nAllow: /a\nDisallow: /cal/*/day\nDisallow: /q?session=\n',
    );
    expect(robotsAllow(robots, `${SITE}/docs/x.pdf`)).toBe(false);
    expect(robotsAllow(robots, `${SITE}/docs/x.pdf?v=1`)).toBe(true);
    expect(robotsAllow(robots, `${SITE}/a/b`)).toBe(true);
    expect(robotsAllow(robots, `${SITE}/cal/2026/11/day`)).toBe(false);
    expect(robotsAllow(robots, `${SITE}/cal/2026`)).toBe(true);
    expect(robotsAllow(robots, `${SITE}/q?session=1`)).toBe(false);
  });

  it('reads what it can and caps Crawl-delay', () => {
    const robots = parseRobots('garbage\nDisallow: /early\nUser-agent: *\nCrawl-delay: 9999\nDisallow:\n');
    expect(robots.rules).toEqual([]);
    expect(robots.crawlDelaySeconds).toBe(60);
    expect(robotsAllow(robots, `${SITE}/early`)).toBe(true);
  });

  it('has the two defaults of RFC 9309', () => {
    expect(robotsAllow(ALLOW_ALL, `${SITE}/x`)).toBe(true);
    expect(robotsAllow(DISALLOW_ALL, `${SITE}/x`)).toBe(false);
    expect(robotsAllow(DISALLOW_ALL, `${SITE}/robots.txt`)).toBe(true);
  });

  it('stays linear on a hostile pattern', () => {
    const robots = parseRobots(`User-agent: *\nDisallow: /${'*a'.repeat(1000)}b\n`);
    expect(robotsAllow(robots, `${SITE}/${'a'.repeat(50_000)}`)).toBe(true);
  });
});
