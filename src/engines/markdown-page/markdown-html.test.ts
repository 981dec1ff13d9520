import { describe, expect, it } from 'vitest';
import { firstHeading, inlineHtml, markdownToHtml } from './markdown-html.js';
import { markdownPage } from './markdown-page.js';

describe('markdownToHtml', () => {
  it.each([
    ['ATX heading, closing hashes dropped', '## Title ##', '<h2>Title</h2>'],
    ['setext headings', 'One\n===\n\nTwo\n---', '<h1>One</h1>\n<h2>Two</h2>'],
    ['paragraphs and a hard break', 'a  \nb\n\nc', '<p>a<br>\nb</p>\n<p>c</p>'],
    ['thematic break', '* * *', '<hr>'],
    [
      'fenced code with its language',
      '```ts\nconst a = "<b>";\n```',
      '<pre><code class="language-ts">const a = &quot;&lt;b&gt;&quot;;\n</code></pre>',
    ],
    ['indented code', '    x < y', '<pre><code>x &lt; y\n</code></pre>'],
    [
      'block quote, nested, with a lazy line',
      '> a\nb\n> > c',
      '<blockquote>\n<p>a\nb</p>\n<blockquote>\n<p>c</p>\n</blockquote>\n</blockquote>',
    ],
    [
      'tight nested bullet list',
      '- a\n- b\n  - c',
      '<ul>\n<li>a</li>\n<li>b\n<ul>\n<li>c</li>\n</ul></li>\n</ul>',
    ],
    ['ordered list from 3', '3. a\n4. b', '<ol start="3">\n<li>a</li>\n<li>b</li>\n</ol>'],
    ['loose list', '- a\n\n- b', '<ul>\n<li>\n<p>a</p>\n</li>\n<li>\n<p>b</p>\n</li>\n</ul>'],
    [
      'pipe table with alignments and an escaped bar',
      '| a | b |\n|:--|--:|\n| 1 | x \\| y |',
      '<table>\n<thead>\n<tr><th style="text-align: left">a</th><th style="text-align: right">b</th></tr>\n</thead>\n<tbody>\n<tr><td style="text-align: left">1</td><td style="text-align: right">x | y</td></tr>\n</tbody>\n</table>',
    ],
    ['raw HTML is text', '<script>alert(1)</script>', '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'],
  ])('%s', (_, markdown, html) => {
    expect(markdownToHtml(markdown)).toBe(html);
  });
});

describe('inlineHtml', () => {
  it.each([
    [
      'emphasis, strong, both, strikethrough',
      '*a* **b** ***c*** ~~d~~',
      '<em>a</em> <strong>b</strong> <em><strong>c</strong></em> <del>d</del>',
    ],
    ['underscores inside a word stay', 'snake_case_name and _em_', 'snake_case_name and <em>em</em>'],
    ['crossed delimiters stay text', '*a _b* c_', '<em>a _b</em> c_'],
    [
      'code spans keep their text',
      '`a *b* <c>` and ``x ` y``',
      '<code>a *b* &lt;c&gt;</code> and <code>x ` y</code>',
    ],
    ['escapes', '\\*not\\* \\[x]', '*not* [x]'],
    [
      'link with parentheses and a title',
      '[t](http://x.test/a_(b) "T")',
      '<a href="http://x.test/a_(b)" title="T">t</a>',
    ],
    ['image', '![a *b*](p.png)', '<img src="p.png" alt="a b">'],
    [
      'autolink',
      '<https://x.test/?a=1&b=2>',
      '<a href="https://x.test/?a=1&amp;b=2">https://x.test/?a=1&amp;b=2</a>',
    ],
    ['a script URL loses its href', '[x](javascript:alert(1))', '<a>x</a>'],
    ['no link inside a link', '[a [b](c)](d)', '<a href="d">a [b](c)</a>'],
    ['unclosed brackets and backticks are text', '[a ` b', '[a ` b'],
  ])('%s', (_, markdown, html) => {
    expect(inlineHtml(markdown)).toBe(html);
  });

  it.each([
    ['delimiters that never close', '*a'],
    ['brackets and parentheses', '[('],
    ['link tails that never end', '[a](x '],
    ['titles that never end', '[a](x "'],
    ['backtick runs of one length', 'a`` '],
    ['angle brackets', '<'],
  ])('reads 400,000 characters of %s in one pass', (_, unit) => {
    const text = unit.repeat(Math.ceil(400_000 / unit.length));
    // Quadratic work on this input would take hours; the output has every character of it.
    expect(inlineHtml(text).length).toBeGreaterThanOrEqual(text.length / 2);
  });

  it('bounds nesting: 10,000 nested quotes and list markers are read without overflowing the stack', () => {
    expect(markdownToHtml(`${'> '.repeat(10_000)}x`)).toContain('x');
    expect(markdownToHtml(`${'- '.repeat(10_000)}x`)).toContain('x');
  });
});

describe('markdownPage', () => {
  it('is a whole document: the first heading as its title, the stylesheet with its dark variant', () => {
    const page = markdownPage('Intro\n\n# The *title*\n\ntext');
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain('<title>The title</title>');
    expect(page).toContain('@media (prefers-color-scheme: dark)');
    expect(page).toContain('<main>\n<p>Intro</p>\n<h1>The <em>title</em></h1>\n<p>text</p>\n</main>');
    expect(firstHeading('no heading')).toBeNull();
  });
});
