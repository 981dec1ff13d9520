import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { digestPage } from '../page-digest.js';
import { targetAudience } from './target-audience.js';

function audienceOf(body: string, head = '<title>T</title>'): string {
  const { document } = parseHTML(
    `<!DOCTYPE html><html lang="en"><head>${head}</head><body>${body}</body></html>`,
  );
  return targetAudience(digestPage(document, 'https://example.com/'));
}

const article = (...paragraphs: string[]) =>
  `<article><h1>About this</h1>${paragraphs.map((p) => `<p>${p} It is described here at some length so that it is the page's main content.</p>`).join('')}</article>`;

describe('targetAudience', () => {
  it('takes the noun phrase the page states, from its hero, headings or main text', () => {
    expect(audienceOf('<main><h1>Monitoring for small teams</h1><p>Checks every minute.</p></main>')).toBe(
      'small teams',
    );
    expect(
      audienceOf(article('Beaconly is built for small engineering teams that run production services.')),
    ).toBe('small engineering teams');
    expect(audienceOf(article('Pet insurance is ideal for dog and cat owners, whatever the breed.'))).toBe(
      'dog and cat owners',
    );
  });

  it('says nothing where the page states no audience', () => {
    // A bare "for" in running text, a pronoun, a number, quoted speech, and no cue at all.
    expect(
      audienceOf(
        article('The study was carried out for the Boston-based organization by a university team.'),
      ),
    ).toBe('');
    expect(audienceOf('<main><h1>The right plan for your business</h1><p>Pick one.</p></main>')).toBe('');
    expect(audienceOf('<main><h1>Free for up to 10 users</h1><p>Then $8 a month.</p></main>')).toBe('');
    expect(audienceOf(article('"Our tool is built for hospital radiologists," said the founder.'))).toBe('');
    expect(audienceOf(article('Expect this to trip up developers who are new to literal types.'))).toBe('');
  });
});
