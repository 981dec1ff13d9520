/*
 * Markdown to HTML, for the `markdown` input (docs/capture.md, "Your own HTML or Markdown"). No
 * Markdown library is among the project's dependencies and none can be added offline, so this is
 * a small renderer of the CommonMark and GitHub constructs documents use: ATX and setext headings,
 * paragraphs with hard breaks, emphasis, strong, strikethrough, code spans, fenced and indented
 * code, block quotes, bullet and ordered lists (nested by indentation), thematic breaks, pipe
 * tables, links, images and autolinks. Raw HTML is shown as text: a caller who wants HTML sends
 * `html`. Every step is a forward scan over the text (no regular expression that can backtrack
 * over a caller's line), and nesting is bounded, so the work is linear in the input's size.
 */

/** Block quotes and lists nested deeper than this are read as text. */
const MAX_NESTING = 16;
/** Longest link destination or autolink read; a longer one is text. */
const MAX_URL_CHARS = 4096;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
};

/** Text as HTML character data or an attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ESCAPES[char] as string);
}

/** The characters inline Markdown acts on; text between them is copied as it is. */
const SPECIAL = new Set(['\\', '`', '!', '[', '<', '*', '_', '~', '\n']);

const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

function isSpace(char: string | undefined): boolean {
  return char === undefined || char === ' ' || char === '\t' || char === '\n';
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}]/u.test(char);
}

/** A destination is kept when it is relative or of a scheme a document links to; else the link has none. */
function safeUrl(raw: string, image: boolean): string | null {
  const colon = raw.indexOf(':');
  const slash = raw.search(/[/?#]/);
  if (colon === -1 || (slash !== -1 && slash < colon)) return raw;
  const scheme = raw.slice(0, colon).toLowerCase();
  if (scheme === 'http' || scheme === 'https') return raw;
  if (image)
    return scheme === 'data' && raw.slice(colon + 1, colon + 7).toLowerCase() === 'image/' ? raw : null;
  return scheme === 'mailto' || scheme === 'tel' ? raw : null;
}

/** A run of `*`, `_` or `~` that may open or close emphasis; the tags it gained are kept beside it. */
interface Delimiter {
  readonly kind: 'delimiter';
  readonly char: string;
  count: number;
  readonly canOpen: boolean;
  readonly canClose: boolean;
  /** Opening tags, outermost first (text, not a list: a document has a delimiter every few words). */
  opens: string;
  /** Closing tags, innermost first. */
  closes: string;
}

type Piece = string | Delimiter;

/** For each `[` its matching `]` (nesting counted, escapes skipped), as one pass with a stack. */
function matchBrackets(text: string): Map<number, number> {
  const matches = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\\') i += 1;
    else if (char === '[') open.push(i);
    else if (char === ']') {
      const start = open.pop();
      if (start !== undefined) matches.set(start, i);
    }
  }
  return matches;
}

/** Where each run of backticks starts, by its length, in order: code spans pair runs of one length. */
function backtickRuns(text: string): Map<number, number[]> {
  const runs = new Map<number, number[]>();
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '`') continue;
    let end = i;
    while (text[end] === '`') end += 1;
    const list = runs.get(end - i) ?? [];
    list.push(i);
    runs.set(end - i, list);
    i = end - 1;
  }
  return runs;
}

/**
 * Where `stop` is next found from `from`, or -1 when a character of `ends` (or the text's end, or
 * MAX_URL_CHARS) comes first. Scans end at `]` at the latest, so the scans of the link tails of
 * one text never overlap and reading them all stays linear.
 */
function findBefore(text: string, stop: string, from: number, ends: string): number {
  const last = Math.min(text.length, from + MAX_URL_CHARS);
  for (let i = from; i < last; i++) {
    const char = text[i] as string;
    if (char === stop) return i;
    if (ends.includes(char)) return -1;
  }
  return -1;
}

/** `(destination "title")` after a link's `]`: its end and parts, or null when there is none. */
function linkTail(text: string, at: number): { end: number; url: string; title: string | null } | null {
  if (text[at] !== '(') return null;
  let i = at + 1;
  while (text[i] === ' ') i += 1;
  let url = '';
  if (text[i] === '<') {
    const close = findBefore(text, '>', i + 1, '<\n]');
    if (close === -1) return null;
    url = text.slice(i + 1, close);
    i = close + 1;
  } else {
    // Spaces, brackets and unbalanced parentheses need the <destination> form.
    const start = i;
    const last = Math.min(text.length, start + MAX_URL_CHARS);
    let depth = 0;
    while (i < last) {
      const char = text[i] as string;
      if (char === ' ' || char === '\n' || char === '[' || char === ']') break;
      if (char === '(') depth += 1;
      if (char === ')') {
        if (depth === 0) break;
        depth -= 1;
      }
      i += char === '\\' ? 2 : 1;
    }
    url = text.slice(start, i);
  }
  while (text[i] === ' ' || text[i] === '\n') i += 1;
  let title: string | null = null;
  const quote = text[i];
  if (quote === '"' || quote === "'") {
    const close = findBefore(text, quote, i + 1, ']');
    if (close === -1) return null;
    title = text.slice(i + 1, close);
    i = close + 1;
    while (text[i] === ' ') i += 1;
  }
  if (text[i] !== ')') return null;
  return { end: i + 1, url: unescapeText(url), title: title === null ? null : unescapeText(title) };
}

function unescapeText(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && PUNCTUATION.has(text[i + 1] ?? '')) i += 1;
    out += text[i];
  }
  return out;
}

/** Text without its Markdown: what an image's alt or a page's title shows. */
function plainText(text: string): string {
  return unescapeText(text).replace(/[*_~`[\]]/g, '');
}

/** Pairs emphasis delimiters, nearest opener first; openers a pair encloses of another kind stay text. */
function pairDelimiters(pieces: Piece[]): void {
  const stacks = new Map<string, number[]>([
    ['*', []],
    ['_', []],
    ['~', []],
  ]);
  for (let index = 0; index < pieces.length; index++) {
    const closer = pieces[index];
    if (closer === undefined || typeof closer === 'string') continue;
    const stack = stacks.get(closer.char) as number[];
    if (closer.canClose) {
      while (closer.count > 0 && stack.length > 0) {
        const openerIndex = stack[stack.length - 1] as number;
        const opener = pieces[openerIndex] as Delimiter;
        const use = Math.min(2, opener.count, closer.count);
        if (closer.char === '~' && use < 2) break;
        const tag = closer.char === '~' ? 'del' : use === 2 ? 'strong' : 'em';
        opener.opens = `<${tag}>${opener.opens}`;
        closer.closes += `</${tag}>`;
        opener.count -= use;
        closer.count -= use;
        if (opener.count === 0) stack.pop();
        for (const [char, other] of stacks) {
          if (char === closer.char) continue;
          while (other.length > 0 && (other[other.length - 1] as number) > openerIndex) other.pop();
        }
      }
    }
    if (closer.canOpen && closer.count > 0) stack.push(index);
  }
}

/**
 * One paragraph's or heading's inline Markdown as HTML. A link's text is read once more with
 * `inLink` (a link holds no link, as in CommonMark), so nesting stops there.
 */
export function inlineHtml(text: string, inLink = false): string {
  const brackets = matchBrackets(text);
  const runs = backtickRuns(text);
  const nextRun = new Map<number, number>();
  const pieces: Piece[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') pieces.push(escapeHtml(plain));
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    if (char === '\\') {
      const next = text[i + 1];
      if (next === '\n') {
        flush();
        pieces.push('<br>\n');
        i += 2;
      } else if (next !== undefined && PUNCTUATION.has(next)) {
        plain += next;
        i += 2;
      } else {
        plain += char;
        i += 1;
      }
      continue;
    }
    if (char === '`') {
      let end = i;
      while (text[end] === '`') end += 1;
      const length = end - i;
      const list = runs.get(length) ?? [];
      let k = nextRun.get(length) ?? 0;
      while (k < list.length && (list[k] as number) <= i) k += 1;
      nextRun.set(length, k);
      const close = list[k];
      if (close === undefined) {
        plain += text.slice(i, end);
        i = end;
        continue;
      }
      let code = text.slice(end, close).replaceAll('\n', ' ');
      if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') {
        code = code.slice(1, -1);
      }
      flush();
      pieces.push(`<code>${escapeHtml(code)}</code>`);
      i = close + length;
      nextRun.set(length, k + 1);
      continue;
    }
    const image = char === '!' && text[i + 1] === '[';
    if ((char === '[' && !inLink) || image) {
      const open = image ? i + 1 : i;
      const close = brackets.get(open);
      const tail = close === undefined ? null : linkTail(text, close + 1);
      if (close !== undefined && tail !== null) {
        const label = text.slice(open + 1, close);
        const url = safeUrl(tail.url, image);
        const title = tail.title === null ? '' : ` title="${escapeHtml(tail.title)}"`;
        flush();
        if (image) {
          const src = url === null ? '' : ` src="${escapeHtml(url)}"`;
          pieces.push(`<img${src} alt="${escapeHtml(plainText(label))}"${title}>`);
        } else {
          const href = url === null ? '' : ` href="${escapeHtml(url)}"`;
          pieces.push(`<a${href}${title}>${inlineHtml(label, true)}</a>`);
        }
        i = tail.end;
        continue;
      }
      plain += char;
      i += 1;
      continue;
    }
    if (char === '<') {
      const close = findBefore(text, '>', i + 1, ' \t\n<');
      const inner = close === -1 ? '' : text.slice(i + 1, close);
      if (/^(https?:\/\/|mailto:)[^\s<>]+$/i.test(inner)) {
        flush();
        pieces.push(`<a href="${escapeHtml(inner)}">${escapeHtml(inner)}</a>`);
        i = close + 1;
        continue;
      }
    }
    if (char === '*' || char === '_' || char === '~') {
      let end = i;
      while (text[end] === char) end += 1;
      const before = text[i - 1];
      const after = text[end];
      let canOpen = !isSpace(after);
      let canClose = i > 0 && !isSpace(before);
      // Inside a word, `_` is part of it (snake_case), as CommonMark reads it.
      if (char === '_' && isWordChar(before) && isWordChar(after)) {
        canOpen = false;
        canClose = false;
      }
      flush();
      pieces.push({ kind: 'delimiter', char, count: end - i, canOpen, canClose, opens: '', closes: '' });
      i = end;
      continue;
    }
    if (char === '\n') {
      const hard = plain.endsWith('  ');
      plain = plain.trimEnd();
      flush();
      pieces.push(hard ? '<br>\n' : '\n');
      i += 1;
      continue;
    }
    // Ordinary text up to the next character that may mean something, in one slice.
    let end = i + 1;
    while (end < text.length && !SPECIAL.has(text[end] as string)) end += 1;
    plain += text.slice(i, end);
    i = end;
  }
  flush();
  pairDelimiters(pieces);
  let html = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') html += piece;
    else html += piece.closes + piece.char.repeat(piece.count) + piece.opens;
  }
  return html;
}

/** Columns of leading white space, a tab to the next multiple of 4. */
function indentOf(line: string): number {
  let columns = 0;
  for (const char of line) {
    if (char === ' ') columns += 1;
    else if (char === '\t') columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/** The line without its first `columns` columns of indentation. */
function dedent(line: string, columns: number): string {
  let taken = 0;
  let i = 0;
  while (i < line.length && taken < columns) {
    const char = line[i];
    if (char === ' ') taken += 1;
    else if (char === '\t') taken += 4 - (taken % 4);
    else break;
    i += 1;
  }
  return line.slice(i);
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** `***`, `---`, `___` (three or more, spaces between allowed). */
function isThematicBreak(line: string): boolean {
  if (indentOf(line) > 3) return false;
  const text = line.trim();
  const char = text[0];
  if (char !== '*' && char !== '-' && char !== '_') return false;
  let count = 0;
  for (const c of text) {
    if (c === char) count += 1;
    else if (c !== ' ' && c !== '\t') return false;
  }
  return count >= 3;
}

/** An ATX heading's level and text, or null. */
function atxHeading(line: string): { level: number; text: string } | null {
  if (indentOf(line) > 3) return null;
  const text = line.trim();
  let level = 0;
  while (text[level] === '#') level += 1;
  if (level === 0 || level > 6) return null;
  if (level < text.length && text[level] !== ' ' && text[level] !== '\t') return null;
  let body = text.slice(level).trim();
  let end = body.length;
  while (end > 0 && body[end - 1] === '#') end -= 1;
  if (end === 0 || body[end - 1] === ' ' || body[end - 1] === '\t') body = body.slice(0, end).trim();
  return { level, text: body };
}

/** A fence's character, length and info string, or null. */
function fenceOf(line: string): { char: string; length: number; info: string } | null {
  if (indentOf(line) > 3) return null;
  const text = line.trim();
  const char = text[0];
  if (char !== '`' && char !== '~') return null;
  let length = 0;
  while (text[length] === char) length += 1;
  if (length < 3) return null;
  const info = text.slice(length).trim();
  if (char === '`' && info.includes('`')) return null;
  return { char, length, info };
}

/** A list item's marker: ordered or not, its start number, and the column its content starts at. */
function listMarker(
  line: string,
): { ordered: boolean; start: number; marker: string; content: number; rest: string } | null {
  const indent = indentOf(line);
  if (indent > 3) return null;
  const text = dedent(line, indent);
  let width = 0;
  let ordered = false;
  let start = 1;
  let marker = text[0] ?? '';
  if (marker === '-' || marker === '*' || marker === '+') {
    width = 1;
  } else {
    while (width < 9 && (text[width] ?? '') >= '0' && (text[width] ?? '') <= '9') width += 1;
    const delimiter = text[width];
    if (width === 0 || (delimiter !== '.' && delimiter !== ')')) return null;
    ordered = true;
    start = Number(text.slice(0, width));
    marker = delimiter;
    width += 1;
  }
  const after = text.slice(width);
  if (after !== '' && after[0] !== ' ' && after[0] !== '\t') return null;
  const spaces = Math.min(indentOf(after), 4);
  const gap = after.trim() === '' ? 1 : spaces > 4 ? 1 : spaces;
  return { ordered, start, marker, content: indent + width + gap, rest: dedent(after, gap) };
}

/** A pipe table row's cells, `\|` kept as a literal bar. */
function tableCells(line: string): string[] {
  let text = line.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\' && text[i + 1] === '|') {
      cell += '|';
      i += 1;
    } else if (char === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += char;
  }
  cells.push(cell.trim());
  return cells;
}

/** The alignments of a table's delimiter row (`:--`, `:-:`, `--:`), or null when the line is not one. */
function tableAlignments(line: string): (string | null)[] | null {
  if (!line.includes('-')) return null;
  const cells = tableCells(line);
  const alignments: (string | null)[] = [];
  for (const cell of cells) {
    if (!/^:?-+:?$/.test(cell)) return null;
    const left = cell.startsWith(':');
    const right = cell.endsWith(':');
    alignments.push(left && right ? 'center' : right ? 'right' : left ? 'left' : null);
  }
  return alignments;
}

function table(header: string, alignments: (string | null)[], rows: readonly string[]): string {
  const row = (line: string, tag: 'th' | 'td') => {
    const cells = tableCells(line);
    return `<tr>${alignments
      .map((align, index) => {
        const style = align === null ? '' : ` style="text-align: ${align}"`;
        return `<${tag}${style}>${inlineHtml(cells[index] ?? '')}</${tag}>`;
      })
      .join('')}</tr>`;
  };
  const body =
    rows.length === 0 ? '' : `\n<tbody>\n${rows.map((line) => row(line, 'td')).join('\n')}\n</tbody>`;
  return `<table>\n<thead>\n${row(header, 'th')}\n</thead>${body}\n</table>`;
}

/** Whether the line starts a block that ends a paragraph before it. */
function interruptsParagraph(line: string): boolean {
  if (isThematicBreak(line) || atxHeading(line) !== null || fenceOf(line) !== null) return true;
  if (indentOf(line) <= 3 && line.trimStart().startsWith('>')) return true;
  const item = listMarker(line);
  return item !== null && item.rest.trim() !== '' && (!item.ordered || item.start === 1);
}

/**
 * Block-level Markdown (lines) as HTML; `depth` counts the quotes and lists around it. `tight`
 * (the items of a tight list) shows its paragraphs without <p>.
 */
function blocksHtml(lines: readonly string[], depth: number, tight = false): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (isBlank(line)) {
      i += 1;
      continue;
    }
    const fence = fenceOf(line);
    if (fence !== null) {
      const indent = indentOf(line);
      const code: string[] = [];
      i += 1;
      while (i < lines.length) {
        const closing = fenceOf(lines[i] as string);
        if (
          closing !== null &&
          closing.char === fence.char &&
          closing.length >= fence.length &&
          closing.info === ''
        ) {
          i += 1;
          break;
        }
        code.push(dedent(lines[i] as string, indent));
        i += 1;
      }
      const language = fence.info.split(/\s/)[0] ?? '';
      const cls = language === '' ? '' : ` class="language-${escapeHtml(unescapeText(language))}"`;
      out.push(`<pre><code${cls}>${escapeHtml(code.join('\n'))}${code.length > 0 ? '\n' : ''}</code></pre>`);
      continue;
    }
    if (indentOf(line) >= 4) {
      const code: string[] = [];
      while (i < lines.length && (indentOf(lines[i] as string) >= 4 || isBlank(lines[i] as string))) {
        code.push(dedent(lines[i] as string, 4));
        i += 1;
      }
      while (code.length > 0 && isBlank(code[code.length - 1] as string)) code.pop();
      out.push(`<pre><code>${escapeHtml(code.join('\n'))}\n</code></pre>`);
      continue;
    }
    const heading = atxHeading(line);
    if (heading !== null) {
      out.push(`<h${heading.level}>${inlineHtml(heading.text)}</h${heading.level}>`);
      i += 1;
      continue;
    }
    if (isThematicBreak(line)) {
      out.push('<hr>');
      i += 1;
      continue;
    }
    if (line.trimStart().startsWith('>') && depth < MAX_NESTING) {
      const quoted: string[] = [];
      while (i < lines.length) {
        const current = lines[i] as string;
        const trimmed = current.trimStart();
        if (trimmed.startsWith('>') && indentOf(current) <= 3) {
          const rest = trimmed.slice(1);
          quoted.push(rest.startsWith(' ') ? rest.slice(1) : rest);
        } else if (
          !isBlank(current) &&
          quoted.length > 0 &&
          !isBlank(quoted[quoted.length - 1] as string) &&
          !interruptsParagraph(current)
        ) {
          // A lazy continuation line of the quote's paragraph.
          quoted.push(current);
        } else break;
        i += 1;
      }
      out.push(`<blockquote>\n${blocksHtml(quoted, depth + 1)}\n</blockquote>`);
      continue;
    }
    const first = listMarker(line);
    if (first !== null && depth < MAX_NESTING) {
      const items: string[][] = [];
      let loose = false;
      let blankBefore = false;
      while (i < lines.length) {
        const current = lines[i] as string;
        const marker = listMarker(current);
        if (marker === null || marker.ordered !== first.ordered || marker.marker !== first.marker) break;
        if (isThematicBreak(current)) break;
        if (blankBefore && items.length > 0) loose = true;
        const item = [marker.rest];
        i += 1;
        blankBefore = false;
        while (i < lines.length) {
          const next = lines[i] as string;
          if (isBlank(next)) {
            item.push('');
            blankBefore = true;
            i += 1;
            continue;
          }
          if (indentOf(next) >= marker.content) {
            if (blankBefore) loose = true;
            item.push(dedent(next, marker.content));
            blankBefore = false;
            i += 1;
            continue;
          }
          // A paragraph's lazy continuation: not blank-separated and not a new block or item.
          if (
            !blankBefore &&
            listMarker(next) === null &&
            !interruptsParagraph(next) &&
            !isBlank(item[item.length - 1] as string)
          ) {
            item.push(next);
            i += 1;
            continue;
          }
          break;
        }
        while (item.length > 1 && isBlank(item[item.length - 1] as string)) item.pop();
        items.push(item);
      }
      const tag = first.ordered ? 'ol' : 'ul';
      const start = first.ordered && first.start !== 1 ? ` start="${first.start}"` : '';
      const body = items
        .map((item) => {
          const html = blocksHtml(item, depth + 1, !loose);
          return loose ? `<li>\n${html}\n</li>` : `<li>${html}</li>`;
        })
        .join('\n');
      out.push(`<${tag}${start}>\n${body}\n</${tag}>`);
      continue;
    }
    const alignments =
      line.includes('|') && i + 1 < lines.length ? tableAlignments(lines[i + 1] as string) : null;
    if (alignments !== null && tableCells(line).length === alignments.length) {
      const rows: string[] = [];
      i += 2;
      while (i < lines.length && !isBlank(lines[i] as string) && (lines[i] as string).includes('|')) {
        rows.push(lines[i] as string);
        i += 1;
      }
      out.push(table(line, alignments, rows));
      continue;
    }
    const paragraph: string[] = [line.trimStart()];
    i += 1;
    let setext = 0;
    while (i < lines.length) {
      const next = lines[i] as string;
      if (isBlank(next)) break;
      const underline = next.trim();
      if (indentOf(next) <= 3 && underline !== '' && /^(=+|-+)$/.test(underline)) {
        setext = underline[0] === '=' ? 1 : 2;
        i += 1;
        break;
      }
      if (interruptsParagraph(next)) break;
      paragraph.push(next.trimStart());
      i += 1;
    }
    const text = inlineHtml(paragraph.join('\n').trimEnd());
    out.push(setext !== 0 ? `<h${setext}>${text}</h${setext}>` : tight ? text : `<p>${text}</p>`);
  }
  return out.join('\n');
}

/** A Markdown document as an HTML fragment. */
export function markdownToHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  return blocksHtml(lines, 0);
}

/** The text of the document's first heading, without its Markdown, or null: the page's title. */
export function firstHeading(markdown: string): string | null {
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const heading = atxHeading(line);
    if (heading !== null && heading.text !== '') return plainText(heading.text);
  }
  return null;
}
