import { afterEach, describe, expect, it, vi } from 'vitest';
import { processTree } from '../../browser/process-tree.js';
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
      // Starting a process and extracting a page are bounded by it too: only a hang reaches it.
      taskTimeoutMs: 300_000,
      maxHeapMb: 256,
      ...options,
    });
    pools.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  it('extracts in its processes, pages in parallel up to its processes', async () => {
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

  it('a page past its deadline fails as a timeout; the process is replaced and the next page extracts', async () => {
    // The pool's timers are the test's: the deadline passes when the test says so, and the
    // replacement's start and the next page (bounded by the same deadline) never race it,
    // however slow the machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const extractor = pool({ taskTimeoutMs: 5000 });
      const before = new Set(await processTree(process.pid));
      await extractor.run('content', page('<p>warm</p>'));
      const [child] = (await processTree(process.pid)).filter((pid) => !before.has(pid));
      // A stopped process cannot answer: only the deadline can end its page.
      process.kill(child as number, 'SIGSTOP');
      const stuck = extractor.run('content', page('<p>stuck</p>'));
      vi.advanceTimersByTime(4999);
      expect(extractor.state()).toEqual({ busy: 1, queued: 0 });
      vi.advanceTimersByTime(1);
      await expect(stuck).rejects.toMatchObject({
        code: 'timeout',
        message: expect.stringContaining('page extraction took longer than 5000 ms'),
      });
      await expect(extractor.run('content', page('<p>ok</p>'))).resolves.toMatchObject({ markdown: 'ok\n' });
      expect(await processTree(process.pid)).not.toContain(child);
    } finally {
      vi.useRealTimers();
    }
  });

  it('what an extractor process prints goes to the output it was given, not to the service', async () => {
    const lines: string[] = [];
    const extractor = pool({ maxHeapMb: 64, output: (line) => lines.push(line) });
    // V8 reports a process that runs out of heap on its stderr.
    const huge = page(`<div>${'<span>y</span>'.repeat(3_000_000)}</div>`);
    await expect(extractor.run('content', huge)).rejects.toMatchObject({ code: 'internal' });
    await extractor.close();
    expect(lines.join('\n')).toMatch(/heap/i);
  });

  it('a page that needs more heap than a process has fails alone; the pool goes on', async () => {
    const extractor = pool({ maxHeapMb: 64 });
    const huge = page(`<div>${'<span>y</span>'.repeat(3_000_000)}</div>`);
    await expect(extractor.run('content', huge)).rejects.toMatchObject({ code: 'internal' });
    await expect(extractor.run('content', page('<p>after</p>'))).resolves.toMatchObject({
      markdown: 'after\n',
    });
  });
});
