import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { digestPage } from '../page-digest.js';
import { categories, categoryEvidence } from './categories.js';

function digestOf(title: string, body: string) {
  const { document } = parseHTML(
    `<!DOCTYPE html><html lang="en"><head><title>${title}</title></head><body><article>${body}</article></body></html>`,
  );
  return digestPage(document, 'https://example.com/');
}

const evidence = (title: string, body: string, name: string) =>
  categoryEvidence(digestOf(title, body)).find((c) => c.name === name);

const prose = (text: string) =>
  `<p>${text} ${'The rest of the article goes on in the same way at some length. '.repeat(3)}</p>`;

describe('categories', () => {
  it('names a category only with two keywords, in what the page says it is and in its body', () => {
    const shop = digestOf(
      'Bakery and café in Otley',
      `<h1>The Copper Kettle bakery</h1>${prose('We bake sourdough bread and cakes every morning and serve coffee all day.')}`,
    );
    expect(categories(shop)).toContain('Food & Drink');
    // One keyword, however often: not enough.
    const oneWord = digestOf('Bread', `<h1>Bread</h1>${prose('Bread, bread and more bread.')}`);
    expect(categories(oneWord)).toEqual([]);
    // Keywords only in passing in the body: not what the page is.
    const inPassing = digestOf(
      'Harwick',
      `<h1>Harwick</h1>${prose('The market hall, rebuilt in 1780, once held a bakery, a restaurant and a café serving coffee.')}`,
    );
    expect(categories(inPassing)).toEqual([]);
  });

  it('does not count names or an -ing word for its stem', () => {
    expect(
      evidence("Student's t-test", prose("Student's t-test compares two means."), 'Education')?.score,
    ).toBe(0);
    // "market town" is not marketing; "book a table" is not booking.
    expect(
      evidence('Harwick, a market town', prose('A market town on the river.'), 'Marketing & Advertising')
        ?.score,
    ).toBe(0);
    expect(
      evidence('Marketing for shops', prose('Marketing that works.'), 'Marketing & Advertising')?.score,
    ).toBeGreaterThan(0);
  });

  it('stays linear on text built to make a backtracking matcher crawl', () => {
    const hostile = `${'A-'.repeat(20_000)} ${"Aa'".repeat(10_000)}`;
    expect(categories(digestOf(hostile.slice(0, 300), prose(hostile)))).toEqual([]);
  });
});
