import { describe, expect, it } from 'vitest';
import { cutAtElements, elementBudget } from './element-budget.js';

describe('cutAtElements', () => {
  it('keeps a page within the budget whole and counts its start tags', () => {
    expect(cutAtElements('<html><body><p>a < b</p><br></body></html>', 10)).toEqual({
      html: '<html><body><p>a < b</p><br></body></html>',
      elements: 4,
      cut: false,
    });
  });

  it('cuts just before the first element past the budget', () => {
    expect(cutAtElements('<p>one</p><p>two</p><p>three</p>', 2)).toEqual({
      html: '<p>one</p><p>two</p>',
      elements: 2,
      cut: true,
    });
  });

  it('counts 100,000 elements in one pass', () => {
    const html = '<a href="/x">x</a>'.repeat(100_000);
    expect(cutAtElements(html, 1_000_000).elements).toBe(100_000);
    expect(cutAtElements(html, 50_000).html.length).toBe(html.length / 2);
  });
});

describe('elementBudget', () => {
  it('follows the heap less the 32 MB a process holds at start: 512 MB holds 61,440 elements, 30 % searched for main content', () => {
    expect(elementBudget(512 * 1024 * 1024)).toEqual({ elements: 61_440, mainContentElements: 18_432 });
  });
});
