import { afterEach, describe, expect, it } from 'vitest';
import type { ExtractInput } from '../content/extract.js';
import { ExtractorPool, type ExtractorPoolOptions } from './pool.js';

const page = (body: string): ExtractInput => ({
  html: `<!DOCTYPE html><html><head><title>T</title></head><body>${body}</body></html>`,
  pageUrl: 'https://example.com/a/',
  scoped: false,
  includeHtml: false,
  includeMarkdown: true,
  useDefuddle: false,
  maxLinks: 100,
});

describe('ExtractorPool', () => {
  const pools: ExtractorPool[] = [];
  const pool = (options: Partial<ExtractorPoolOptions> = {}) => {
    const created = new ExtractorPool({
      threads: 1,
      maxQueue: 10,
      taskTimeoutMs: 20_000,
      maxHeapMb: 256,
      ...options,
    });
    pools.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  it('extracts on a worker thread, pages in parallel up to its threads', async () => {
    const extractor = pool({ threads: 2 });
    const results = await Promise.all(
      [1, 2, 3].map((n) => extractor.run('content', page(`<p><a href="/p${n}">Page ${n}</a></p>`))),
    );
    expect(results.map((r) => r.links.internal)).toEqual([
      ['https://example.com/p1'],
      ['https://example.com/p2'],
      ['https://example.com/p3'],
    ]);
    expect(results[0]?.metadata.title).toBe('T');
    expect(results[0]?.markdown).toBe('[Page 1](https://example.com/p1)\n');
  });

  it('past its queue, a 503 at once', async () => {
    const extractor = pool({ maxQueue: 0 });
    const first = extractor.run('content', page('<p>one</p>'));
    await expect(extractor.run('content', page('<p>two</p>'))).rejects.toMatchObject({ code: 'unavailable' });
    await expect(first).resolves.toMatchObject({ metadata: { title: 'T' } });
  });

  it('a page past its deadline fails as a timeout; the thread is replaced and the next page extracts', async () => {
    const extractor = pool({ taskTimeoutMs: 3000 });
    // A thread's first page pays for loading the extraction modules; this one is already warm.
    await extractor.run('content', page('<p>warm</p>'));
    const big = page('<p>x</p>'.repeat(600_000));
    await expect(extractor.run('content', big)).rejects.toMatchObject({ code: 'timeout' });
    await expect(extractor.run('content', page('<p>ok</p>'))).resolves.toMatchObject({ markdown: 'ok\n' });
  });

  it('a page that needs more heap than a thread has fails alone; the pool goes on', async () => {
    const extractor = pool({ maxHeapMb: 64 });
    const huge = page(`<div>${'<span>y</span>'.repeat(3_000_000)}</div>`);
    await expect(extractor.run('content', huge)).rejects.toMatchObject({ code: 'internal' });
    await expect(extractor.run('content', page('<p>after</p>'))).resolves.toMatchObject({
      markdown: 'after\n',
    });
  }, 60_000);
});
