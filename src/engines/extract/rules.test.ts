import { describe, expect, it } from 'vitest';
import { WebcapError } from '../../errors.js';
import { ANSWER_LIMITS, extractByRules } from './rules.js';
import { RULES_LIMITS, rulesOf } from './rules-bounds.js';

const PAGE = 'http://shop.example/dir/page';
const run = (html: string, rules: unknown) => extractByRules({ html, pageUrl: PAGE, fields: rulesOf(rules) });

/** The 400 a call of `read` throws, as its message. */
function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (error instanceof WebcapError && error.code === 'bad_request') return error.detail ?? '';
    throw error;
  }
  throw new Error('not refused');
}

describe('extractByRules', () => {
  it('reads text, html, attributes (URLs made absolute against <base>), lists and objects', () => {
    const html = `<html><head><base href="/shop/"></head><body>
      <h1>  Spring
        sale </h1><div class="intro"><b>New</b> in</div>
      <ul><li><a href="p/1">One</a></li><li><a href="https://cdn.example/2" rel="x">Two</a></li></ul>
      <img src="i.png" alt="Logo"></body></html>`;
    const out = run(html, {
      title: 'h1',
      intro: { selector: '.intro', type: 'html' },
      logo: { selector: 'img', attribute: 'src' },
      alt: { selector: 'img', type: 'attribute', attribute: 'alt' },
      names: { selector: 'li', type: 'list' },
      hrefs: { selector: 'a', type: 'list', attribute: 'href' },
      items: { selector: 'li', type: 'list', output: { name: 'a', url: { selector: 'a', output: '@href' } } },
      first: { selector: 'ul', output: { name: 'li' } },
    });
    expect(out).toEqual({
      ok: true,
      data: {
        title: 'Spring sale',
        intro: '<div class="intro"><b>New</b> in</div>',
        logo: 'http://shop.example/shop/i.png',
        alt: 'Logo',
        names: ['One', 'Two'],
        hrefs: ['http://shop.example/shop/p/1', 'https://cdn.example/2'],
        items: [
          { name: 'One', url: 'http://shop.example/shop/p/1' },
          { name: 'Two', url: 'https://cdn.example/2' },
        ],
        first: { name: 'One' },
      },
      warnings: [],
    });
  });

  it('answers null or [] for what matched nothing, with one warning per rule', () => {
    const html = '<ul><li><b>1</b></li><li></li><li><b>3</b></li></ul>';
    const out = run(html, {
      missing: '.nope',
      none: { selector: '.nope', type: 'list' },
      rows: { selector: 'li', type: 'list', output: { bold: 'b' } },
      attr: { selector: 'li', attribute: 'title' },
    });
    expect(out).toEqual({
      ok: true,
      data: { missing: null, none: [], rows: [{ bold: '1' }, { bold: null }, { bold: '3' }], attr: null },
      warnings: [
        'extract_rules.missing: the selector ".nope" matched nothing',
        'extract_rules.none: the selector ".nope" matched nothing',
        'extract_rules.rows.output.bold: the selector "b" matched nothing in 1 of the 3 elements it was read in',
      ],
    });
  });

  it(`answers at most ${ANSWER_LIMITS.listItems} items of a list, and refuses an answer past ${ANSWER_LIMITS.answerChars} characters or ${ANSWER_LIMITS.answerValues} values`, () => {
    const many = `<p>x</p>`.repeat(ANSWER_LIMITS.listItems + 5);
    const out = run(many, { ps: { selector: 'p', type: 'list' } });
    expect(out.ok && (out.data.ps as string[]).length).toBe(ANSWER_LIMITS.listItems);
    expect(out.ok && out.warnings).toEqual([
      `extract_rules.ps: the selector "p" matched more than ${ANSWER_LIMITS.listItems} elements; the first ${ANSWER_LIMITS.listItems} are returned`,
    ]);
    const large = `<p>${'y'.repeat(6000)}</p>`.repeat(ANSWER_LIMITS.listItems);
    expect(run(large, { ps: { selector: 'p', type: 'list' } })).toEqual({ ok: false, tooLarge: true });
    // Lists in lists multiply: 1,000 rows of 199 lists of 5 empty cells are 1,194,000 values.
    const nested = `<div>${'<i></i>'.repeat(5)}</div>`.repeat(ANSWER_LIMITS.listItems);
    const cells = Object.fromEntries(
      Array.from({ length: 199 }, (_, k) => [`c${k}`, { selector: 'i', type: 'list' }]),
    );
    const grid = { rows: { selector: 'div', type: 'list', output: cells } };
    expect(run(nested, grid)).toEqual({ ok: false, tooLarge: true });
  });
});

describe('rulesOf', () => {
  it('refuses each bound and wrong member with a 400 naming its path', () => {
    let deep: Record<string, unknown> = { leaf: 'b' };
    for (let level = 1; level < RULES_LIMITS.depth; level++) deep = { n: { selector: 'div', output: deep } };
    expect(() => rulesOf(deep)).not.toThrow();
    expect(refusal(() => rulesOf({ top: { selector: 'div', output: deep } }))).toMatch(
      /^extract_rules(\.\w+\.output)+ is nested deeper than 8 levels$/,
    );
    const wide = Object.fromEntries(Array.from({ length: RULES_LIMITS.rules + 1 }, (_, i) => [`f${i}`, 'p']));
    expect(refusal(() => rulesOf(wide))).toBe(
      'extract_rules.f200 is past the 200 rules extract_rules may hold in all',
    );
    expect(
      refusal(() => rulesOf({ a: { selector: 'div', type: 'list', output: { b: 'p'.repeat(513) } } })),
    ).toBe('extract_rules.a.output.b is longer than 512 characters');
    expect(refusal(() => rulesOf(JSON.stringify({ a: `p${' '.repeat(RULES_LIMITS.bytes)}` })))).toBe(
      `extract_rules is larger than ${RULES_LIMITS.bytes} bytes`,
    );
    expect(refusal(() => rulesOf({ a: 'p[' }))).toMatch(
      /^extract_rules\.a is not a CSS selector the page's DOM can match: /,
    );
    expect(refusal(() => rulesOf({ a: { selector: 'a::before' } }))).toMatch(
      /^extract_rules\.a\.selector is not a CSS selector/,
    );
    expect(refusal(() => rulesOf({ a: { selector: 'a', type: 'attribute' } }))).toBe(
      'extract_rules.a.attribute is required with type attribute',
    );
    expect(refusal(() => rulesOf({ a: { selector: 'a', type: 'object' } }))).toBe(
      'extract_rules.a.output is required with type object',
    );
    expect(refusal(() => rulesOf({ a: { selector: 'a', type: 'table' } }))).toBe(
      'extract_rules.a.type must be one of text, html, attribute, list, object',
    );
    expect(refusal(() => rulesOf({ a: { selector: 'a', selector_type: 'xpath' } }))).toBe(
      'extract_rules.a.selector_type is not a rule member (selector, type, attribute, output)',
    );
    expect(refusal(() => rulesOf({}))).toBe('extract_rules has no rules');
    expect(refusal(() => rulesOf('{'))).toBe('extract_rules is not valid JSON');
    expect(refusal(() => rulesOf([]))).toBe('extract_rules must be an object of field name → rule');
  });
});
