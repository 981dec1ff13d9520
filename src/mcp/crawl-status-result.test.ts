import { describe, expect, it } from 'vitest';
import type { CrawlRecord } from '../crawls/crawl-record.js';
import { crawlStatusResult } from './results.js';
import { CRAWL_STATUS_LIMITS } from './tools.js';

function crawl(pages: CrawlRecord['pages'], cursor: string | null): CrawlRecord {
  return {
    success: true,
    crawl_id: 'crawl_1',
    status: 'running',
    stop_reason: null,
    url: 'https://site.test/',
    formats: ['markdown'],
    created_at: '2026-01-01T00:00:00.000Z',
    finished_at: null,
    expires_at: null,
    counts: { discovered: 40, completed: 20, failed: 0, skipped: 0, credits_used: 20, running: 3 },
    pages,
    next: cursor === null ? null : `https://api.test/v1/crawl/crawl_1?cursor=${cursor}`,
    cursor,
  };
}

describe('crawlStatusResult', () => {
  it('stays within its bound whatever the pages hold, each page shortened to its share', () => {
    const pages = Array.from({ length: CRAWL_STATUS_LIMITS.pages }, (_, i) => ({
      url: `https://site.test/${'p'.repeat(5000)}/${i}`,
      status: 'completed' as const,
      status_code: 200,
      depth: 1,
      error: 'e'.repeat(5000),
      markdown: `# Page ${i}\n${'word '.repeat(50_000)}`,
    }));
    const text = crawlStatusResult(crawl(pages, '19'), {}).content.map((part) =>
      'text' in part ? part.text : '',
    );
    expect(text.join('').length).toBeLessThanOrEqual(CRAWL_STATUS_LIMITS.chars);
    for (let i = 0; i < pages.length; i++) expect(text[0]).toContain(`# Page ${i}\n`);
    expect(text[0]).toContain('more characters: the content tool reads the whole page]');
    expect(text[0]?.endsWith('More: call crawl_status with cursor "19".')).toBe(true);
  });

  it('keeps a short page whole, and says when nothing more has finished yet', () => {
    const page = {
      url: 'https://site.test/a',
      status: 'completed' as const,
      status_code: 200,
      depth: 1,
      markdown: 'Short.',
    };
    const [part] = crawlStatusResult(crawl([page], '0'), {}).content;
    expect(part).toEqual({
      type: 'text',
      text: [
        'crawl crawl_1: running from https://site.test/\npages: 40 discovered, 20 completed, 0 failed, 0 skipped, 3 running; 20 credits used',
        '1 pages:',
        '## 1. https://site.test/a (completed, HTTP 200, depth 1)\nShort.',
        'More: call crawl_status with cursor "0".',
      ].join('\n\n'),
    });
    const [none] = crawlStatusResult(crawl([], '0'), { cursor: '0' }).content;
    expect(none && 'text' in none ? none.text : '').toMatch(
      /No finished page past these yet: call crawl_status again in a few seconds with cursor "0"\.$/,
    );
  });
});
