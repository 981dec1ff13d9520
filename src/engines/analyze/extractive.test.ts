import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { EXTRACTIVE_LIMITS } from './extractive/limits.js';
import { splitSentences } from './extractive/sentences.js';
import { type AnalysisFields, analyzeExtractive } from './extractive.js';
import { digestPage, type PageDigest } from './page-digest.js';

const dir = join(import.meta.dirname, '../../../test/fixtures/analyze');
const FIXTURES = ['saas-landing', 'shop-product', 'news-article', 'docs-page', 'local-bakery'] as const;

function digestOf(name: string): PageDigest {
  return digestPage(
    parseHTML(readFileSync(join(dir, `${name}.html`), 'utf8')).document,
    'https://example.com/',
  );
}

const digests = new Map(FIXTURES.map((name) => [name, digestOf(name)]));

function analyze(name: (typeof FIXTURES)[number], custom: Record<string, string> = {}) {
  return analyzeExtractive(digests.get(name) as PageDigest, custom);
}

function expectWellTyped(fields: AnalysisFields): void {
  for (const key of ['summary', 'valueProposition', 'targetAudience'] as const)
    expect(typeof fields[key]).toBe('string');
  for (const key of ['keyFeatures', 'categories', 'useCases'] as const) {
    expect(Array.isArray(fields[key])).toBe(true);
    for (const v of fields[key]) expect(typeof v === 'string' && v !== '').toBe(true);
  }
}

describe('analyzeExtractive on a SaaS landing page', () => {
  const { fields, custom } = analyze('saas-landing', {
    pricing: 'how much it costs and which plans exist',
    ceoName: 'the full name of the chief executive officer',
  });

  it('summarises from the page and states the hero', () => {
    expect(fields.summary).toContain('Pingwell watches your websites, APIs and scheduled jobs');
    expect(fields.summary.length).toBeLessThanOrEqual(EXTRACTIVE_LIMITS.summaryChars);
    expect(fields.valueProposition).toBe(
      'Know your site is down before your customers do. Pingwell watches your websites, APIs and scheduled jobs around the clock and wakes up the right engineer the moment something breaks.',
    );
  });

  it('lists the feature cards, not the section title', () => {
    expect(fields.keyFeatures).toEqual([
      '30-second checks from 12 regions',
      'Alerts where your team already is',
      'Public and private status pages',
      'On-call scheduling',
      'Heartbeat monitoring for cron jobs',
      'Incident timelines and postmortems',
    ]);
  });

  it('categorises, and takes use cases and audience from its own words', () => {
    expect(fields.categories[0]).toBe('Software / SaaS');
    expect(fields.categories).toContain('Infrastructure & DevOps');
    expect(fields.useCases.slice(0, 4)).toEqual([
      'Monitor customer-facing websites and checkout flows',
      'Watch internal APIs and microservices behind your firewall',
      'Catch failed nightly backups and data pipeline jobs',
      'Keep customers informed during planned maintenance',
    ]);
    expect(fields.useCases).not.toContain('Use cases');
    // Noun phrases only: "a solo developer with one side project or ..." says whom, then goes on.
    expect(fields.targetAudience).toBe('small engineering teams; solo developer');
  });

  it('answers custom fields with the best passage, or the empty string', () => {
    expect(custom.pricing).toMatch(/^The Free plan includes 10 monitors.*The Team plan costs \$29 per month/);
    expect(custom.ceoName).toBe('');
  });
});

describe('analyzeExtractive on a shop product page', () => {
  const { fields, custom } = analyze('shop-product', {
    price: 'the price of the product',
    weight: 'how heavy the product is',
    returnPolicy: 'how returns work',
  });

  it('finds the product, its feature list and its kind', () => {
    expect(fields.valueProposition).toMatch(
      /^Hearthstone Cast Iron Skillet 26 cm\. A heavy, pre-seasoned skillet/,
    );
    expect(fields.keyFeatures).toEqual([
      'Pre-seasoned with flaxseed oil, ready to use',
      'Works on induction, gas, electric and ceramic hobs',
      'Oven-safe up to 300 °C, grill and campfire safe',
      'Two pouring lips and a helper handle',
      'Made in Sheffield, lifetime guarantee',
    ]);
    expect(fields.categories).toEqual(['E-commerce', 'Home & Garden']);
    expect(fields.summary).toContain('The Hearthstone skillet is cast in one piece from iron');
  });

  it('answers from the price line, the spec table and the returns text', () => {
    expect(custom.price).toBe('£44.95 £54.00');
    expect(custom.weight).toBe('Weight: 2.4 kg');
    expect(custom.returnPolicy).toContain('You can return any unused item within 60 days');
  });
});

describe('analyzeExtractive on a news article', () => {
  const { fields, custom } = analyze('news-article', { cost: 'how much the project costs' });

  it('summarises the article, not the navigation, sidebar or comments', () => {
    const body = digests.get('news-article')?.mainText ?? '';
    const sentences = splitSentences(fields.summary, 10);
    expect(sentences.length).toBeGreaterThanOrEqual(2);
    for (const s of sentences) expect(body).toContain(s);
    // The article's own words: its standfirst may open the summary (the main-content extractor of
    // issue 24 keeps a standfirst that does not repeat the opening), its first paragraph follows.
    expect(fields.summary).toMatch(
      /^(Councillors have voted to fund the long-promised line[^.]*\. )?Brackenford city council has approved a 4\.2 km extension/,
    );
    for (const noise of ['A38', 'Most read', 'potholes', 'cookies'])
      expect(fields.summary).not.toContain(noise);
  });

  it('says it is news about transport and politics and invents no features or audience', () => {
    expect(fields.categories).toEqual(['News & Media', 'Transport & Logistics', 'Government & Politics']);
    expect(fields.keyFeatures).toEqual([]);
    expect(fields.useCases).toEqual([]);
    expect(fields.targetAudience).toBe('');
    expect(custom.cost).toContain('borrow £186 million for the project');
  });
});

describe('analyzeExtractive on a docs page', () => {
  const { fields, custom } = analyze('docs-page', {
    defaultRetryLimit: 'the default number of retries',
    license: 'the software license',
  });

  it('categorises it as documentation for developers', () => {
    expect(fields.categories[0]).toBe('Documentation');
    expect(fields.categories).toContain('Developer Tools');
    expect(fields.targetAudience).toBe('developers');
    expect(fields.summary).toMatch(/^Ferrule can retry a request automatically/);
    expect(fields.valueProposition).toMatch(/^Retries and backoff\. Ferrule can retry/);
  });

  it('answers from the options table', () => {
    expect(custom.defaultRetryLimit).toBe('limit | 0 | Maximum number of retries per request.');
    expect(custom.license).toBe('');
  });
});

describe('analyzeExtractive on a local business page', () => {
  const { fields, custom } = analyze('local-bakery', {
    openingHours: 'when the bakery is open',
    address: 'postal address of the shop',
    phone: 'telephone number',
    parkingFee: 'what parking costs per hour in the multi-storey car park',
  });

  it('is a local food business with what it bakes as features', () => {
    expect(fields.categories).toEqual(['Local Business', 'Food & Drink']);
    expect(fields.keyFeatures).toContain('Sourdough loaves, baked daily from 5 am');
    expect(fields.keyFeatures).not.toContain('Monday: closed');
    expect(fields.valueProposition).toMatch(
      /^Real bread, baked on Station Road since 2011\. We are a small family bakery/,
    );
    expect(fields.summary).toContain('We are a small family bakery in Harrowgate.');
  });

  it('answers opening hours with the whole list and the address, from the main content only', () => {
    expect(custom.openingHours).toBe(
      'Monday: closed; Tuesday to Friday: 7:30 to 17:00; Saturday: 8:00 to 16:00; Sunday: 9:00 to 13:00',
    );
    expect(custom.address).toBe('Crumb & Kettle Bakery, 27 Station Road, Harrowgate, Leeds, LS17 8QD');
    // The "Get in touch" block is not part of the main content (a contact block is the site's, not
    // the page's): the field is left empty and the call warns (analyze.ts); phoneNumbers has it.
    expect(custom.phone).toBe('');
    expect(custom.parkingFee).toBe('');
  });
});

describe('analyzeExtractive in general', () => {
  it('is deterministic and always well typed', () => {
    for (const name of FIXTURES) {
      const custom = { pricing: 'prices', nothing: 'zebra migration patterns' };
      const a = analyze(name, custom);
      const b = analyzeExtractive(digestOf(name), custom);
      expect(b).toEqual(a);
      expectWellTyped(a.fields);
      expect(Object.keys(a.custom).sort()).toEqual(['nothing', 'pricing']);
      for (const v of Object.values(a.custom)) expect(typeof v).toBe('string');
      expect(a.custom.nothing).toBe('');
      expect(a.fields.keyFeatures.length).toBeLessThanOrEqual(EXTRACTIVE_LIMITS.keyFeatures);
      expect(a.fields.categories.length).toBeLessThanOrEqual(EXTRACTIVE_LIMITS.categories);
      expect(a.fields.useCases.length).toBeLessThanOrEqual(EXTRACTIVE_LIMITS.useCases);
    }
  });

  it('returns empty values for an empty page and a plain property for a field named __proto__', () => {
    const empty = digestPage(
      parseHTML('<!DOCTYPE html><html><body></body></html>').document,
      'https://example.com/',
    );
    const { fields, custom } = analyzeExtractive(
      empty,
      JSON.parse('{"__proto__": "anything", "price": "price"}'),
    );
    expect(fields).toEqual({
      summary: '',
      valueProposition: '',
      keyFeatures: [],
      categories: [],
      useCases: [],
      targetAudience: '',
    });
    expect(Object.getPrototypeOf(custom)).toBe(Object.prototype);
    expect(Object.keys(custom).sort()).toEqual(['__proto__', 'price']);
  });

  // Seconds of CPU, several times as long on a loaded machine: the outcome is asserted, not the
  // time, and the test's timeout only catches a hang.
  it('handles a 2 MB page within bounds', () => {
    const block = (i: number) =>
      `<section class="features"><h2>Section ${i}</h2><p>Paragraph ${i} says the service checks websites every 30 seconds and alerts the team. It helps you find outages first.</p><ul><li>Feature ${i} for teams</li><li>Item ${i} in a list</li></ul></section>`;
    const parts = ['<!DOCTYPE html><html><head><title>Big</title></head><body><h1>Big page</h1>'];
    let size = 0;
    for (let i = 0; size < 2_000_000; i++) {
      parts.push(block(i));
      size += (parts[parts.length - 1] as string).length;
    }
    const document = parseHTML(`${parts.join('')}</body></html>`).document;
    const digest = digestPage(document, 'https://example.com/');
    const { fields } = analyzeExtractive(digest, { a: 'websites every seconds', b: 'teams' });
    expect(fields.summary.length).toBeLessThanOrEqual(EXTRACTIVE_LIMITS.summaryChars);
    expect(fields.keyFeatures.length).toBeLessThanOrEqual(EXTRACTIVE_LIMITS.keyFeatures);
    expectWellTyped(fields);
  });
});
