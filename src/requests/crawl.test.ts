import { describe, expect, it } from 'vitest';
import { crawlRequest } from './crawl.js';

const ceilings = { maxPages: 500, maxConcurrency: 10 };
const BASE = 'https://webcap.example';

describe('crawlRequest', () => {
  it("takes delay as the crawl's politeness, never as each page's wait", () => {
    const plan = crawlRequest({ url: 'https://example.com/', delay: 30 }, ceilings, BASE);
    expect(plan.delayMs).toBe(30_000);
    expect(plan.page.delayMs).toBe(0);
  });

  it('starts from the page in one spelling, with the defaults', () => {
    const plan = crawlRequest({ url: ' https://Example.com/a?utm_source=x#top ' }, ceilings, BASE);
    expect(plan).toMatchObject({
      url: 'https://example.com/a',
      limit: 100,
      maxDepth: 10,
      sitemap: 'include',
      respectRobots: true,
      maxConcurrency: 5,
      formats: ['markdown', 'metadata'],
    });
  });

  it('refuses what is past the service ceilings, naming the parameter', () => {
    expect(() => crawlRequest({ url: 'https://example.com/', limit: 501 }, ceilings, BASE)).toThrow(/limit/);
    expect(() => crawlRequest({ url: 'https://example.com/', max_concurrency: 11 }, ceilings, BASE)).toThrow(
      /max_concurrency/,
    );
  });

  it('takes the screenshot format, the viewport unless full_page; full_page alone is a 400 naming it', () => {
    const url = 'https://example.com/';
    expect(crawlRequest({ url, formats: ['markdown', 'screenshot'] }, ceilings, BASE)).toMatchObject({
      formats: ['markdown', 'screenshot'],
      fullPage: false,
      baseUrl: BASE,
    });
    expect(crawlRequest({ url, formats: ['screenshot'], full_page: true }, ceilings, BASE).fullPage).toBe(
      true,
    );
    expect(() => crawlRequest({ url, full_page: true }, ceilings, BASE)).toThrow(/full_page/);
    const step = JSON.stringify([{ type: 'screenshot' }]);
    expect(() => crawlRequest({ url, actions: step }, ceilings, BASE)).toThrow(/put screenshot in formats/);
  });
});
