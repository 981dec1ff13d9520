import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { DIGEST_LIMITS, digestPage } from './page-digest.js';

const dir = join(import.meta.dirname, '../../../test/fixtures/analyze');

function digestOf(name: string) {
  return digestPage(
    parseHTML(readFileSync(join(dir, `${name}.html`), 'utf8')).document,
    'https://example.com/',
  );
}

function digestHtml(body: string, head = '<title>T</title>') {
  return digestPage(
    parseHTML(`<!DOCTYPE html><html lang="en"><head>${head}</head><body>${body}</body></html>`).document,
    'https://example.com/',
  );
}

describe('digestPage', () => {
  it('reads the hero, the sections and the main text of a landing page without its furniture', () => {
    const d = digestOf('saas-landing');
    expect(d.title).toBe('Pingwell - Uptime monitoring and status pages for engineering teams');
    expect(d.language).toBe('en');
    expect(d.h1).toBe('Know your site is down before your customers do');
    expect(d.subtitle).toMatch(/^Pingwell watches your websites, APIs and scheduled jobs/);
    expect(d.headings).toContain('30-second checks from 12 regions');
    expect(d.headings).toContain('Simple pricing that grows with you');
    expect(d.listItems).toContain('Monitor customer-facing websites and checkout flows');
    const all = [...d.headings, ...d.paragraphs, ...d.listItems].join('\n');
    // Cookie banner, menu, footer and screen-reader-only text.
    for (const furniture of [
      'We use cookies',
      'Uptime monitoring\n',
      'Changelog',
      'All rights reserved',
      'Skip to content',
    ])
      expect(all).not.toContain(furniture);
    // A paragraph that is only a link points elsewhere.
    expect(d.paragraphs).not.toContain('Compare all plans');
    expect(d.mainText).toContain('HTTP, TCP, ping, DNS and SSL checks run every 30 seconds');
  });

  it('places each entry under its section and container', () => {
    const d = digestOf('saas-landing');
    const card = d.outline.find((e) => e.text === 'On-call scheduling');
    expect(card).toMatchObject({ kind: 'heading', level: 3, section: 'Everything you need to stay up' });
    expect(card?.hint.split(' ')).toContain('features');
    const item = d.outline.find((e) => e.text.startsWith('Catch failed nightly backups'));
    expect(item).toMatchObject({ kind: 'item', level: 0, section: 'Use cases' });
  });

  it('takes the standfirst of a news article as its subtitle and skips sidebars and teasers', () => {
    const d = digestOf('news-article');
    expect(d.h1).toBe('Riverside tram extension approved after two-year delay');
    expect(d.subtitle).toMatch(/^Councillors have voted to fund the long-promised line/);
    expect(d.listItems).not.toContain('A38 closed northbound after lorry fire');
    expect(d.headings).not.toContain('Most read');
    expect(d.headings).not.toContain('Tram extension costs rise by £30m');
    expect(d.mainText).toContain('Brackenford city council has approved a 4.2 km extension');
    expect(d.mainText).not.toContain('Most read');
  });

  it('skips a price line when looking for the subtitle, and reads table rows as label: value', () => {
    const d = digestOf('shop-product');
    expect(d.subtitle).toMatch(/^A heavy, pre-seasoned skillet/);
    expect(d.paragraphs).toContain('Weight: 2.4 kg');
    expect(d.listItems).toContain('Made in Sheffield, lifetime guarantee');
  });

  it('keeps an address with its line breaks as commas and leaves hidden popups out', () => {
    const d = digestOf('local-bakery');
    expect(d.paragraphs).toContain('Crumb & Kettle Bakery, 27 Station Road, Harrowgate, Leeds, LS17 8QD');
    expect(d.outline.find((e) => e.text.startsWith('Crumb & Kettle Bakery,'))?.hint).toContain('address');
    expect(d.listItems).toContain('Tuesday to Friday: 7:30 to 17:00');
    expect(d.headings).not.toContain('Sign up for 10% off');
  });

  it('falls back to the meta description for the subtitle, and to empty strings', () => {
    const withDescription = digestHtml(
      '<h1>Hello</h1><h2>Next section</h2><p>A paragraph that belongs to the next section, not the hero.</p>',
      '<title>T</title><meta name="description" content="The description.">',
    );
    expect(withDescription.subtitle).toBe('The description.');
    const empty = digestHtml('');
    expect(empty).toMatchObject({
      h1: '',
      subtitle: '',
      description: '',
      headings: [],
      paragraphs: [],
      listItems: [],
    });
    expect(typeof empty.mainText).toBe('string');
  });

  it('skips inline-hidden elements and keeps div-only paragraphs', () => {
    const d = digestHtml(
      '<div style="display: none"><p>Invisible text here</p></div><p aria-hidden="true">Also hidden</p>' +
        '<div class="x">A div holding a sentence of its own, with <b>inline</b> markup.</div>',
    );
    expect(d.paragraphs).toEqual(['A div holding a sentence of its own, with inline markup.']);
  });

  it('caps counts and lengths, dedupes, and never mutates the document', () => {
    const long = 'word '.repeat(5_000);
    const body =
      `<h2>${long}</h2><p>${long}</p>` +
      '<p>Same paragraph.</p><p>same   paragraph.</p>' +
      Array.from(
        { length: 1_000 },
        (_, i) => `<h3>Heading ${i}</h3><p>Paragraph ${i}.</p><ul><li>Item ${i}</li></ul>`,
      ).join('');
    const { document } = parseHTML(
      `<!DOCTYPE html><html><head><title>T</title></head><body>${body}</body></html>`,
    );
    const before = document.toString();
    const d = digestPage(document, 'https://example.com/');
    expect(document.toString()).toBe(before);
    expect(d.headings.length).toBe(DIGEST_LIMITS.headings);
    expect(d.paragraphs.length).toBe(DIGEST_LIMITS.paragraphs);
    expect(d.listItems.length).toBe(DIGEST_LIMITS.listItems);
    expect(d.paragraphs.filter((p) => p.toLowerCase() === 'same paragraph.')).toHaveLength(1);
    expect(d.headings[0]?.length).toBeLessThanOrEqual(DIGEST_LIMITS.headingChars);
    expect(d.paragraphs[0]?.length).toBeLessThanOrEqual(DIGEST_LIMITS.paragraphChars);
    expect(d.mainText.length).toBeLessThanOrEqual(DIGEST_LIMITS.mainTextChars);
  });

  it('walks a deeply nested page without recursion', () => {
    const depth = 20_000;
    const html = `${'<div>'.repeat(depth)}<p>Deep paragraph at the bottom.</p>${'</div>'.repeat(depth)}`;
    const d = digestHtml(html);
    expect(d.paragraphs).toContain('Deep paragraph at the bottom.');
  });
});

describe('digestPage: main content and stated audience', () => {
  it('marks which entries belong to the main content, table rows included', () => {
    const d = digestHtml(
      `<div class="layout"><article><h1>Cast iron skillet</h1><p>${'A heavy skillet that sears steak and bakes cornbread in a hot oven. '.repeat(4)}</p>
<h2>Specifications</h2><p>${'Every skillet is cast in one piece and seasoned three times before it leaves the foundry. '.repeat(3)}</p>
<table><tr><td>Weight</td><td>2.4 kg</td></tr></table><ul><li>Pre-seasoned and ready to use</li></ul><p>${'It works on gas, electric and induction hobs and goes under the grill or over a campfire. '.repeat(3)}</p></article>
<div class="rail"><h3>Why subscribe</h3><ul><li>Ad-free reading on every device</li></ul></div></div>`,
    );
    const inMain = (text: string) => d.outline.find((e) => e.text === text)?.inMain;
    expect(inMain('Weight: 2.4 kg')).toBe(true);
    expect(inMain('Pre-seasoned and ready to use')).toBe(true);
    expect(inMain('Specifications')).toBe(true);
    expect(inMain('Why subscribe')).toBe(false);
    expect(inMain('Ad-free reading on every device')).toBe(false);
  });

  it("reads the audience a page's schema.org markup states, as text or an Audience's type or name", () => {
    const ld = (value: unknown) =>
      `<title>T</title><script type="application/ld+json">${JSON.stringify(value)}</script>`;
    expect(
      digestHtml('<p>x</p>', ld({ '@type': 'Course', audience: { audienceType: 'beginners' } })).audience,
    ).toBe('beginners');
    expect(
      digestHtml('<p>x</p>', ld({ '@type': 'Product', audience: [{ name: 'cyclists' }] })).audience,
    ).toBe('cyclists');
    expect(
      digestHtml('<p>x</p>', ld({ '@graph': [{ '@type': 'Book', audience: 'young adults' }] })).audience,
    ).toBe('young adults');
    expect(
      digestHtml('<p>x</p>', ld({ '@type': 'Product', audience: { '@type': 'Audience' } })).audience,
    ).toBe('');
    expect(digestHtml('<p>x</p>').audience).toBe('');
  });
});
