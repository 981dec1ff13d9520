import { describe, expect, it } from 'vitest';
import { pageFileName } from './crawl-files.js';

const HOST = 'site.test:8080';
const name = (path: string, host = HOST) => pageFileName(`http://${host}${path}`, HOST);

describe('pageFileName', () => {
  it('is the path itself when that is exact', () => {
    expect(name('/')).toBe('index.md');
    expect(name('/docs/intro')).toBe('docs_intro.md');
    expect(name('/blog/2026/post.html')).toBe('blog_2026_post.html.md');
  });

  it('adds a hash of the URL when the path alone would be ambiguous or unsafe', () => {
    const hashed = /^[a-z0-9.-]*-[0-9a-f]{12}\.md$/;
    for (const path of ['/docs/', '/index', '/Docs', '/a_b', '/docs?page=2', '/.env', '/a//b']) {
      expect(name(path)).toMatch(hashed);
    }
    expect(name('/docs', 'docs.site.test:8080')).toMatch(/^docs.site.test-8080-docs-[0-9a-f]{12}\.md$/);
  });

  it('gives distinct URLs distinct names, whatever their order', () => {
    const paths = ['/a/b', '/a_b', '/A/b', '/a/b/', '/a/b?x=1', '/a/b?x=2', '/', '/index'];
    const names = paths.map((path) => name(path));
    expect(new Set(names).size).toBe(paths.length);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(paths.length);
  });

  it('never leaves the directory and stays short', () => {
    const long = `/${'x'.repeat(3000)}/../../etc/passwd`;
    for (const path of [long, '/../../etc/passwd', '/..%2f..%2fetc']) {
      const file = name(path);
      expect(file).not.toContain('/');
      expect(file.startsWith('.')).toBe(false);
      expect(file.length).toBeLessThanOrEqual(110);
    }
  });
});
