import { describe, expect, it } from 'vitest';
import { parsePage } from './parse-page.js';

const ARTICLE = '<p>The article text, as a reader sees it.</p>';

describe('parsePage', () => {
  it('reads a page with a script before its <html> from its root', () => {
    const { document, warnings } = parsePage(
      `<script>var x = 1;</script><!DOCTYPE html><html><head><title>T</title></head><body>${ARTICLE}</body></html>`,
    );
    expect(document.documentElement.tagName).toBe('HTML');
    expect(document.title).toBe('T');
    expect(document.body.textContent).toBe('The article text, as a reader sees it.');
    expect(warnings).toEqual([]);
  });

  it('gives a page without <head> its head and keeps its body', () => {
    const { document } = parsePage(
      `<!DOCTYPE html><html><meta charset="utf-8"><title>T</title><body>${ARTICLE}</body></html>`,
    );
    expect(document.head.querySelector('title')?.textContent).toBe('T');
    expect(document.body.textContent).toBe('The article text, as a reader sees it.');
  });

  it('moves content from a head that is never closed into the body', () => {
    const { document } = parsePage(`<html><head><title>T</title><div>${ARTICLE}</div></html>`);
    expect(document.head.querySelector('div')).toBeNull();
    expect(document.body.textContent).toBe('The article text, as a reader sees it.');
  });

  it('reads a page of stray elements without a root as their body', () => {
    const { document, warnings } = parsePage(`${ARTICLE}<p>Two.</p>`);
    expect(document.body.querySelectorAll('p')).toHaveLength(2);
    expect(warnings).toEqual([]);
  });

  it('warns when there is nothing at all', () => {
    expect(parsePage('').warnings).toEqual(['the page has no root element: it was extracted as empty']);
  });
});
