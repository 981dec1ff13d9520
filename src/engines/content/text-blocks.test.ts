import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { countText } from './text-blocks.js';

function counted(body: string) {
  const { document } = parseHTML(`<!DOCTYPE html><html><body>${body}</body></html>`);
  const counts = countText(document.body);
  const of = (selector: string) => counts.get(document.querySelector(selector) as Element);
  return { body: counts.get(document.body), of };
}

describe('countText', () => {
  it('classes each block by its own text: prose, links, short fragments, headings', () => {
    const { body, of } = counted(
      '<h2 id="h">Results</h2>' +
        '<p id="prose">The council voted on Tuesday, after a long debate, to approve a budget for next year.</p>' +
        '<ul id="list"><li><a href="/a">Another story</a></li><li><a href="/b">And one more</a></li></ul>' +
        '<div id="date">14 May 2024</div>',
    );
    expect(of('#h')?.kind).toBe('heading');
    expect(of('#prose')?.kind).toBe('prose');
    expect(of('#list li')?.kind).toBe('links');
    expect(of('#date')?.kind).toBe('short');
    // Inline elements hold no text of their own: it belongs to their block.
    expect(of('#list a')?.own).toBe(0);
    expect(body).toMatchObject({ prose: 70, links: 22, short: 9, headings: 7 });
  });

  it('counts a heading that is a link as link text: a teaser title, not a section of the page', () => {
    const { of } = counted(
      '<h2 id="teaser"><a href="/other">Another story</a></h2><h2 id="own">A section <a href="#x">here</a></h2>',
    );
    expect(of('#teaser')?.kind).toBe('links');
    expect(of('#own')?.kind).toBe('heading');
  });

  it('weighs Chinese, Japanese and Korean letters as three, so density needs no spaces', () => {
    const { of } = counted('<p id="zh">委员会周二投票通过了明年的预算。</p><p id="short">预算</p>');
    // 15 letters and a full stop: 46, prose with punctuation.
    expect(of('#zh')).toMatchObject({ own: 46, kind: 'prose' });
    expect(of('#short')?.kind).toBe('short');
  });

  it('sums every subtree and marks one that holds an h1', () => {
    const { body, of } = counted(
      '<article id="a"><h1>Title</h1><div><p>Some words here.</p></div></article>',
    );
    expect(of('#a')?.h1).toBe(true);
    expect(of('#a div')?.h1).toBe(false);
    expect(body?.short).toBe(14);
  });

  it('counts no text in scripts, styles or templates', () => {
    const { body } = counted('<script>var words = "many words";</script><style>p{}</style><p>ok</p>');
    expect(body?.short).toBe(2);
  });
});
