import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown, markdownOfElement } from './markdown.js';

const base = 'https://example.com/blog/post';

describe('htmlToMarkdown', () => {
  it('writes ATX headings, dash bullets and numbered lists', () => {
    const md = htmlToMarkdown(
      '<h2>Title</h2><ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul><ol start="3"><li>three</li><li>four</li></ol>',
      base,
    );
    expect(md).toBe('## Title\n\n- one\n- two\n  - nested\n\n3. three\n4. four\n');
  });

  it('writes tables with a header row, escaping pipes, padding short rows', () => {
    const md = htmlToMarkdown(
      '<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a|b</td><td>1</td></tr><tr><td>c</td></tr></tbody></table>',
      base,
    );
    expect(md).toBe('| Name | Value |\n| --- | --- |\n| a\\|b | 1 |\n| c | |\n');
  });

  it('uses the first row as the header of a table without th', () => {
    expect(
      htmlToMarkdown('<table><tr><td>x</td><td>y</td></tr><tr><td>1</td><td>2</td></tr></table>', base),
    ).toBe('| x | y |\n| --- | --- |\n| 1 | 2 |\n');
  });

  it('turns a layout table into its cells’ blocks', () => {
    const md = htmlToMarkdown(
      '<table><tr><td><h2>Side</h2></td><td><p>Main text</p></td></tr></table>',
      base,
    );
    expect(md).toContain('## Side');
    expect(md).toContain('Main text');
    expect(md).not.toContain('|');
  });

  it('fences code blocks with the language from class or data-lang', () => {
    expect(htmlToMarkdown('<pre><code class="language-ts">const a = 1;</code></pre>', base)).toBe(
      '```ts\nconst a = 1;\n```\n',
    );
    expect(htmlToMarkdown('<pre class="lang-python">print(1)</pre>', base)).toBe(
      '```python\nprint(1)\n```\n',
    );
    expect(htmlToMarkdown('<pre data-lang="sql"><code>SELECT 1;</code></pre>', base)).toBe(
      '```sql\nSELECT 1;\n```\n',
    );
    expect(htmlToMarkdown('<pre><code>plain\n\n\n\nkept</code></pre>', base)).toBe(
      '```\nplain\n\n\n\nkept\n```\n',
    );
  });

  it('makes the fence longer than any backtick run in the code', () => {
    expect(htmlToMarkdown('<pre><code>a ``` b</code></pre>', base)).toBe('````\na ``` b\n````\n');
  });

  it('makes links and images absolute against the base URL', () => {
    const md = htmlToMarkdown(
      '<p><a href="../about">About</a> <a href="//cdn.example.net/x">CDN</a> <img src="img/a b.png" alt="A"></p>',
      base,
    );
    expect(md).toBe(
      '[About](https://example.com/about) [CDN](https://cdn.example.net/x) ![A](https://example.com/blog/img/a%20b.png)\n',
    );
  });

  it('drops data: images and data:/javascript: links, keeping link text', () => {
    const md = htmlToMarkdown(
      '<p><img src="data:image/png;base64,AAAA" alt="pixel"><a href="data:text/html,hi">saved</a> and <a href="javascript:alert(1)">run</a></p>',
      base,
    );
    expect(md).not.toContain('data:');
    expect(md).not.toContain('javascript:');
    expect(md).not.toContain('pixel');
    expect(md).toBe('saved and run\n');
  });

  it('uses a lazy image’s data-src when its src is a placeholder', () => {
    expect(htmlToMarkdown('<img src="data:image/gif;base64,R0l" data-src="/real.jpg" alt="">', base)).toBe(
      '![](https://example.com/real.jpg)\n',
    );
  });

  it('leaves out script, style, noscript and template text', () => {
    const md = htmlToMarkdown(
      '<p>kept</p><script>var secret = 1;</script><style>p{color:red}</style><noscript>enable js</noscript><template><p>tpl</p></template>',
      base,
    );
    expect(md).toBe('kept\n');
  });

  it('converts a whole document, ignoring its head', () => {
    const md = htmlToMarkdown(
      '<!DOCTYPE html><html><head><title>Head title</title></head><body><p>Body</p></body></html>',
      base,
    );
    expect(md).toBe('Body\n');
  });

  it('does not escape ordinary characters', () => {
    const md = htmlToMarkdown('<p>snake_case_name costs 5 * 3 [1] and 2 < 3, C# and a-b</p>', base);
    expect(md).toBe('snake_case_name costs 5 \\* 3 [1] and 2 < 3, C# and a-b\n');
  });

  it('escapes what would become Markdown syntax', () => {
    expect(
      htmlToMarkdown(
        '<p># not a heading</p><p>1. not a list</p><p>- not a bullet</p><p>[x](y) and *stars* and _under_</p>',
        base,
      ),
    ).toBe(
      '\\# not a heading\n\n1\\. not a list\n\n\\- not a bullet\n\n[x\\](y) and \\*stars\\* and \\_under\\_\n',
    );
  });

  it('collapses runs of blank lines', () => {
    const md = htmlToMarkdown('<p>a</p><div><br><br><br></div><p></p><p></p><p>b</p>', base);
    expect(md).not.toMatch(/\n\n\n/);
    expect(md.startsWith('a\n')).toBe(true);
    expect(md.endsWith('b\n')).toBe(true);
  });

  it('is deterministic', () => {
    const html =
      '<h1>T</h1><p>Some <em>text</em> with <strong>bold</strong>, <code>code</code> and <del>gone</del>.</p><table><tr><th>a</th></tr><tr><td>1</td></tr></table>';
    expect(htmlToMarkdown(html, base)).toBe(htmlToMarkdown(html, base));
    expect(htmlToMarkdown(html, base)).toBe(
      '# T\n\nSome _text_ with **bold**, `code` and ~~gone~~.\n\n| a |\n| --- |\n| 1 |\n',
    );
  });

  it('converts 10,000 levels of nesting without overflowing the stack', () => {
    const html = `${'<div><span>'.repeat(5000)}deep text${'</span></div>'.repeat(5000)}<p>after</p>`;
    const md = htmlToMarkdown(html, base);
    expect(md).toContain('deep text');
    expect(md).toContain('after');
  });

  it('converts an element of a parsed document without changing it', () => {
    const { document } = parseHTML(
      '<html><head></head><body><p><a href="/x">x</a></p><script>s()</script></body></html>',
    );
    const before = document.toString();
    expect(markdownOfElement(document.body, base)).toBe('[x](https://example.com/x)\n');
    expect(document.toString()).toBe(before);
  });
});
