import { createRequire } from 'node:module';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { plainText } from './main-content.js';

// The plugin ships CommonJS without types; its table rule is not used (see the table rules below).
const gfmPlugin = createRequire(import.meta.url)('@joplin/turndown-plugin-gfm') as {
  readonly strikethrough: TurndownService.Plugin;
  readonly taskListItems: TurndownService.Plugin;
};

// turndown converts recursively, a few stack frames per level: subtrees nested deeper than this are
// replaced by their text, so that a page of 10,000 nested divs converts instead of overflowing the stack.
const MAX_DEPTH = 200;
const DROP = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'IFRAME',
  'OBJECT',
  'EMBED',
  // A player's text is the fallback for browsers without it; its sources are not text.
  'VIDEO',
  'AUDIO',
  'SVG',
  'CANVAS',
  'HEAD',
  'META',
  'LINK',
  'BUTTON',
  'INPUT',
  'SELECT',
  'TEXTAREA',
  'DIALOG',
]);
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:', 'ftp:']);
const IMAGE_SCHEMES = new Set(['http:', 'https:']);
const TABLE_BLOCKS = 'table table, pre, ul, ol, h1, h2, h3, h4, h5, h6, blockquote, hr';

function absolute(value: string | null, baseUrl: string, schemes: ReadonlySet<string>): string | null {
  if (value === null || value.trim() === '') return null;
  try {
    const url = new URL(value.trim(), baseUrl);
    return schemes.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

// Parentheses and spaces would end a Markdown link destination early.
function destination(href: string): string {
  return href
    .replaceAll('(', '%28')
    .replaceAll(')', '%29')
    .replaceAll(' ', '%20')
    .replaceAll('<', '%3C')
    .replaceAll('>', '%3E');
}

function codeLanguage(pre: Element): string {
  const code = pre.firstElementChild?.tagName.toUpperCase() === 'CODE' ? pre.firstElementChild : null;
  for (const el of code ? [code, pre] : [pre]) {
    const data = el.getAttribute('data-lang') ?? el.getAttribute('data-language');
    if (data) return data;
    for (const token of (el.getAttribute('class') ?? '').split(' ')) {
      if (token.startsWith('language-')) return token.slice(9);
      if (token.startsWith('lang-')) return token.slice(5);
    }
  }
  return '';
}

/** Direct rows of a table (through thead/tbody/tfoot), not those of nested tables. */
function tableRows(table: Element): Element[] {
  const rows: Element[] = [];
  for (let c = table.firstElementChild; c; c = c.nextElementSibling) {
    const name = c.tagName.toUpperCase();
    if (name === 'TR') rows.push(c);
    else if (name === 'THEAD' || name === 'TBODY' || name === 'TFOOT') {
      for (let r = c.firstElementChild; r; r = r.nextElementSibling)
        if (r.tagName.toUpperCase() === 'TR') rows.push(r);
    }
  }
  return rows;
}

function cellCount(row: Element): number {
  let n = 0;
  for (let c = row.firstElementChild; c; c = c.nextElementSibling) {
    const name = c.tagName.toUpperCase();
    if (name === 'TD' || name === 'TH')
      n += Math.max(1, Math.min(50, Number(c.getAttribute('colspan')) || 1));
  }
  return n;
}

/**
 * Prepares `root` for turndown in one iterative pass: drops non-content elements, resolves links and
 * images against `baseUrl` (dropping data: and script URLs), records code languages, list numbers and
 * table shapes as attributes the rules read, and cuts nesting deeper than MAX_DEPTH.
 */
function prepare(root: Element, baseUrl: string): void {
  const stack: { el: Element; depth: number }[] = [{ el: root, depth: 0 }];
  const doomed: Element[] = [];
  while (stack.length > 0) {
    const { el, depth } = stack.pop() as { el: Element; depth: number };
    const name = el.tagName.toUpperCase();
    if (el !== root && DROP.has(name)) {
      doomed.push(el);
      continue;
    }
    if (depth >= MAX_DEPTH && el.firstElementChild) {
      el.textContent = plainText(el);
      continue;
    }
    if (name === 'A') {
      const href = absolute(el.getAttribute('href'), baseUrl, LINK_SCHEMES);
      if (href) el.setAttribute('href', href);
      else el.removeAttribute('href');
    } else if (name === 'IMG') {
      const lazy = el.getAttribute('data-src') ?? el.getAttribute('data-lazy-src');
      const src =
        absolute(el.getAttribute('src'), baseUrl, IMAGE_SCHEMES) ?? absolute(lazy, baseUrl, IMAGE_SCHEMES);
      if (src) el.setAttribute('src', src);
      else doomed.push(el);
    } else if (name === 'PRE') {
      el.setAttribute('data-md-lang', codeLanguage(el));
      continue; // its text is taken whole
    } else if (name === 'OL') {
      let n = Number.parseInt(el.getAttribute('start') ?? '1', 10);
      if (!Number.isFinite(n) || n < 0 || n > 1e9) n = 1;
      for (let li = el.firstElementChild; li; li = li.nextElementSibling) {
        if (li.tagName.toUpperCase() === 'LI') li.setAttribute('data-md-n', String(n++));
      }
    } else if (name === 'TABLE') {
      const rows = tableRows(el);
      if (rows.length === 0 || el.querySelector(TABLE_BLOCKS)) el.setAttribute('data-md-layout', '');
      else {
        let cols = 0;
        for (const r of rows) cols = Math.max(cols, cellCount(r));
        el.setAttribute('data-md-cols', String(cols));
        rows[0]?.setAttribute('data-md-head', '');
        for (const r of rows) r.setAttribute('data-md-pad', String(cols - cellCount(r)));
      }
    }
    for (let c = el.lastElementChild; c; c = c.previousElementSibling)
      stack.push({ el: c, depth: depth + 1 });
  }
  for (const el of doomed) el.remove();
}

// Escapes only what would otherwise become Markdown syntax: turndown's default escaper also
// backslashes every underscore, bracket and asterisk in ordinary prose. Each pattern is anchored or
// a single character class, so the cost stays linear in the text.
function escapeText(text: string): string {
  let s = text
    .replace(/\\(?=[!-/:-@[-`{-~])/g, '\\\\')
    .replace(/[*`]/g, '\\$&')
    .replace(/(^|[^\p{L}\p{N}])_|_(?=$|[^\p{L}\p{N}])/gu, (m) => m.replace('_', '\\_'))
    .replace(/\](?=[([:])/g, '\\]')
    .replace(/<(?=[A-Za-z/!?])/g, '\\<');
  // Line-start syntax: ATX headings, quotes, list markers, setext underlines, fences, ordered items.
  s = s
    .replace(/^#(?=#{0,5}(?:[ \t]|$))/gm, '\\#')
    .replace(/^>/gm, '\\>')
    .replace(/^([-+])(?=[ \t]|$)/gm, '\\$1')
    .replace(/^([-=])(?=[-=]*[ \t]*$)/gm, '\\$1')
    .replace(/^~(?=~~)/gm, '\\~')
    .replace(/^(\d{1,9})([.)])(?=[ \t]|$)/gm, '$1\\$2');
  return s;
}

function trimNewlines(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s[start] === '\n') start++;
  while (end > start && s[end - 1] === '\n') end--;
  return s.slice(start, end);
}

function cellText(content: string): string {
  return content
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ')
    .replaceAll('|', '\\|');
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (const ch of text) {
    run = ch === '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

function converter(): TurndownService {
  const td = new TurndownService({
    headingStyle: 'atx',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '_',
    strongDelimiter: '**',
    hr: '---',
  });
  td.use([gfmPlugin.strikethrough, gfmPlugin.taskListItems]);
  td.escape = escapeText;
  td.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed']);
  td.addRule('fencedCode', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const el = node as HTMLElement;
      const code = (el.textContent ?? '').replace(/\n$/, '');
      const lang = (el.getAttribute('data-md-lang') ?? '').replace(/[^\w+#.-]/g, '').slice(0, 30);
      const fence = '`'.repeat(Math.max(3, longestBacktickRun(code) + 1));
      return `\n\n${fence}${lang}\n${code}\n${fence}\n\n`;
    },
  });
  td.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const n = (node as HTMLElement).getAttribute('data-md-n');
      const prefix = n === null ? '- ' : `${n}. `;
      const body = trimNewlines(content).replaceAll('\n', `\n${' '.repeat(prefix.length)}`);
      return `${prefix}${body}${node.nextSibling ? '\n' : ''}`;
    },
  });
  td.addRule('link', {
    filter: (node) => node.nodeName === 'A',
    replacement: (content, node) => {
      const href = (node as HTMLElement).getAttribute('href');
      if (!href) return content;
      // Block content inside a link (cards: a heading and a teaser) would break the link syntax.
      const text = content.includes('\n')
        ? content
            .split('\n')
            .map((l) => l.trim())
            .filter((l) => l !== '')
            .join(' ')
        : content;
      if (text.trim() === '') return '';
      return `[${text}](${destination(href)})`;
    },
  });
  td.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const el = node as HTMLElement;
      const alt = (el.getAttribute('alt') ?? '')
        .replace(/\s+/g, ' ')
        .replaceAll('[', '\\[')
        .replaceAll(']', '\\]');
      return `![${alt}](${destination(el.getAttribute('src') ?? '')})`;
    },
  });
  // GFM tables need a header row: the first row is it, th or not. Tables holding block content
  // (layout tables of old sites) become their cells' blocks.
  td.addRule('tableCell', {
    filter: ['td', 'th'],
    replacement: (content, node) =>
      node.parentNode && (node.parentNode as HTMLElement).hasAttribute('data-md-pad')
        ? ` ${cellText(content)} |`
        : `\n\n${content}\n\n`,
  });
  td.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const el = node as HTMLElement;
      const pad = el.getAttribute('data-md-pad');
      if (pad === null) return `\n\n${content}\n\n`;
      const row = `|${content}${' |'.repeat(Number(pad))}`;
      if (!el.hasAttribute('data-md-head')) return `${row}\n`;
      const cols = Number(el.closest('table')?.getAttribute('data-md-cols') ?? 1);
      return `${row}\n|${' --- |'.repeat(cols)}\n`;
    },
  });
  td.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
  td.addRule('table', {
    filter: 'table',
    replacement: (content, node) =>
      (node as HTMLElement).hasAttribute('data-md-cols')
        ? `\n\n${trimNewlines(content)}\n\n`
        : `\n\n${content}\n\n`,
  });
  td.addRule('caption', { filter: ['caption', 'colgroup', 'col'], replacement: () => '' });
  return td;
}

const turndown = converter();

/** Collapses runs of blank lines to one and trims blank edges; fenced code is left as it is. */
function tidy(markdown: string): string {
  const out: string[] = [];
  let fence = '';
  let blank = false;
  for (const line of markdown.split('\n')) {
    const trimmed = line.trimStart();
    if (fence !== '') {
      out.push(line);
      if (trimmed.startsWith(fence) && trimmed.trim() === fence) fence = '';
      continue;
    }
    if (trimmed.startsWith('```')) {
      let n = 0;
      while (trimmed[n] === '`') n++;
      fence = '`'.repeat(n);
    }
    if (line.trim() === '') {
      if (!blank && out.length > 0) out.push('');
      blank = true;
      continue;
    }
    blank = false;
    // Two trailing spaces are a hard line break; any other trailing whitespace is noise.
    const end = line.trimEnd();
    out.push(line.length - end.length === 2 && line.endsWith('  ') ? line : end);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** GitHub-flavoured Markdown of `root`'s content (a copy is converted; `root` is not changed). */
export function markdownOfElement(root: Element, baseUrl: string): string {
  return markdownInPlace(root.cloneNode(true) as Element, baseUrl);
}

/** Converts `root`, changing it on the way: for a tree parsed only to be converted, which needs no copy. */
function markdownInPlace(root: Element, baseUrl: string): string {
  prepare(root, baseUrl);
  return tidy(turndown.turndown(root as unknown as TurndownService.Node));
}

/** GitHub-flavoured Markdown of an HTML fragment or document; links and images absolute against baseUrl. Deterministic. */
export function htmlToMarkdown(html: string, baseUrl: string): string {
  const head = html.slice(0, 1024).toLowerCase();
  const isDocument = head.includes('<html') || head.includes('<body') || head.includes('<!doctype');
  const { document } = parseHTML(isDocument ? html : `<!DOCTYPE html><html><body>${html}</body></html>`);
  return document.body ? markdownInPlace(document.body, baseUrl) : '';
}
