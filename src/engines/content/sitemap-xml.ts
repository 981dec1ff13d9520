/**
 * A scanner for sitemap files (https://www.sitemaps.org/protocol.html), written for hostile input:
 * one forward pass with indexOf and bounded look-ahead, no regular expressions on the body, no
 * recursion, and no DTD processing, so declared entities stay as written (a billion-laughs file is
 * inert). Work is linear in the file and can be done in slices, so a 50 MB file never holds the
 * event loop for more than one slice. It reads the UTF-8 bytes as they are and decodes only locs
 * and names: every byte it looks for is ASCII, which UTF-8 never uses inside a multi-byte
 * character, and decoding a whole 50 MB file into a string would hold the loop for about 100 ms
 * (and double the file's memory).
 */

/** What a file turned out to be: `<urlset>`, `<sitemapindex>`, one URL per line, or anything else. */
export type SitemapKind = 'urlset' | 'index' | 'text' | 'other';

/** Receives each `<loc>` (entities decoded, trimmed) of a urlset or index, or each URL line of a text sitemap, in document order. */
export type LocHandler = (loc: string, kind: 'urlset' | 'index' | 'text') => void;

const LT = 0x3c; // <
const GT = 0x3e; // >
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const SEMICOLON = 0x3b;
const NEWLINE = 0x0a;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const COMMENT_OPEN = Buffer.from('<!--');
const CDATA_OPEN = Buffer.from('<![CDATA[');

/** Whether `bytes` holds `pattern` at `at`. */
function startsAt(bytes: Buffer, at: number, pattern: Buffer): boolean {
  return (
    at + pattern.length <= bytes.length &&
    bytes.compare(pattern, 0, pattern.length, at, at + pattern.length) === 0
  );
}

// Qualified names longer than this cannot be one the scanner looks for; they are not copied.
const MAX_NAME = 64;
// A loc or text line is decoded up to this many bytes: far past any URL a sitemap reader takes
// (8,192 characters), and a 50 MB "line" is never turned into one string.
const MAX_LOC_BYTES = 64 * 1024;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

// The longest reference decoded: "&#x10FFFF;" and "&#1114111;" are 10 characters.
const MAX_REFERENCE = 10;

function decodeReference(body: string): string | undefined {
  const named = NAMED_ENTITIES[body];
  if (named !== undefined) return named;
  if (body.charCodeAt(0) !== 0x23) return undefined; // #
  const hex = body.charCodeAt(1) === 0x78 || body.charCodeAt(1) === 0x58; // x X
  const digits = body.slice(hex ? 2 : 1);
  if (digits === '' || !(hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) return undefined;
  const code = Number.parseInt(digits, hex ? 16 : 10);
  // Characters XML forbids (NUL, surrogates, past U+10FFFF) are left as written.
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined;
  return String.fromCodePoint(code);
}

/** Replaces the five predefined entities and numeric character references; any other `&name;` stays as written (no DTD is read). */
function decodeEntities(text: string): string {
  let amp = text.indexOf('&');
  if (amp === -1) return text;
  let out = '';
  let from = 0;
  while (amp !== -1) {
    // Look for the ';' only within reach, or a run of '&' would rescan the rest of the text each time.
    let semi = -1;
    const reach = Math.min(text.length, amp + MAX_REFERENCE + 1);
    for (let i = amp + 1; i < reach; i++) {
      if (text.charCodeAt(i) === SEMICOLON) {
        semi = i;
        break;
      }
    }
    const decoded = semi === -1 ? undefined : decodeReference(text.slice(amp + 1, semi));
    if (decoded === undefined) {
      amp = text.indexOf('&', amp + 1);
      continue;
    }
    out += text.slice(from, amp) + decoded;
    from = semi + 1;
    amp = text.indexOf('&', from);
  }
  return out + text.slice(from);
}

function startsWithHttp(line: string): boolean {
  const head = line.slice(0, 8).toLowerCase();
  return head.startsWith('http://') || head.startsWith('https://');
}

/**
 * Scans one sitemap file (its UTF-8 bytes) in slices: `step` until it returns true, then read
 * `kind`, `root` and `truncated`. A file whose first byte (after a BOM and whitespace) is not `<` is
 * a text sitemap: each line starting with http:// or https:// is a loc. Otherwise it is XML: `<loc>`
 * counts only as the third level under a `<urlset><url>` or `<sitemapindex><sitemap>` root
 * (namespace prefixes ignored, names case-insensitive), so `<image:loc>` and other extensions are
 * never taken for pages.
 */
export class SitemapScanner {
  /** 'other' until the root element says otherwise. */
  kind: SitemapKind = 'other';
  /** The root element's local name, lower-cased ('' before one is seen or for text). */
  root = '';
  /** The XML ended inside a tag, comment, CDATA section or DOCTYPE, or before its root element closed. */
  truncated = false;

  private pos = 0;
  private done = false;
  private depth = 0;
  // Local names of the open elements at depths 1 to 3: all a loc's position and error recovery need.
  private readonly levels = ['', '', ''];
  // The text of the <loc> being read, entities decoded, CDATA as is; null outside one.
  private capture: string | null = null;
  // Bytes of the file taken into `capture` so far.
  private captured = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly onLoc: LocHandler,
  ) {
    let start = startsAt(bytes, 0, UTF8_BOM) ? UTF8_BOM.length : 0;
    while (start < bytes.length && isSpace(this.byteAt(start))) start++;
    this.pos = start;
    if (this.byteAt(start) !== LT) this.kind = 'text';
  }

  /** Scans about `budget` more bytes (a token is never split); true once the whole file is scanned. */
  step(budget: number): boolean {
    if (this.done) return true;
    const stopAt = this.pos + budget;
    if (this.kind === 'text') {
      while (!this.done && this.pos < stopAt) this.textLine();
    } else {
      while (!this.done && this.pos < stopAt) this.xmlToken();
      if (this.done && this.depth > 0) this.truncated = true;
    }
    return this.done;
  }

  /** The byte at `at`, or -1 past the end. */
  private byteAt(at: number): number {
    return at < this.bytes.length ? (this.bytes[at] as number) : -1;
  }

  private finish(truncated: boolean): void {
    this.done = true;
    if (truncated) this.truncated = true;
  }

  private textLine(): void {
    const { bytes } = this;
    const newline = bytes.indexOf(NEWLINE, this.pos);
    const end = newline === -1 ? bytes.length : newline;
    const line = bytes.toString('utf8', this.pos, Math.min(end, this.pos + MAX_LOC_BYTES)).trim();
    if (startsWithHttp(line)) this.onLoc(line, 'text');
    this.pos = end + 1;
    if (this.pos >= bytes.length) this.done = true;
  }

  private xmlToken(): void {
    const { bytes } = this;
    const lt = bytes.indexOf(LT, this.pos);
    if (lt === -1) {
      this.finish(false);
      return;
    }
    // An entity reference holds no '<', so each text run decodes on its own.
    if (lt > this.pos) this.take(this.pos, lt, true);
    const next = this.byteAt(lt + 1);
    if (next === BANG) this.markup(lt);
    else if (next === QUESTION) this.skipTo(lt + 2, '?>');
    else if (next === SLASH) this.endTag(lt);
    else this.startTag(lt);
  }

  /** Adds bytes [from, to) to the loc being read, if one is, up to MAX_LOC_BYTES in all. */
  private take(from: number, to: number, decode: boolean): void {
    if (this.capture === null || this.captured >= MAX_LOC_BYTES) return;
    const end = Math.min(to, from + MAX_LOC_BYTES - this.captured);
    this.captured += end - from;
    const text = this.bytes.toString('utf8', from, end);
    this.capture += decode ? decodeEntities(text) : text;
  }

  /** Moves past the next `terminator` at or after `from`, or ends the scan as truncated. */
  private skipTo(from: number, terminator: string): number {
    const at = this.bytes.indexOf(terminator, from, 'latin1');
    if (at === -1) {
      this.finish(true);
      return -1;
    }
    this.pos = at + terminator.length;
    return at;
  }

  private markup(lt: number): void {
    const { bytes } = this;
    if (startsAt(bytes, lt, COMMENT_OPEN)) {
      this.skipTo(lt + COMMENT_OPEN.length, '-->');
    } else if (startsAt(bytes, lt, CDATA_OPEN)) {
      const from = lt + CDATA_OPEN.length;
      const end = this.skipTo(from, ']]>');
      if (end !== -1) this.take(from, end, false);
    } else {
      this.declaration(lt + 2);
    }
  }

  /**
   * A DOCTYPE (or any other `<!...>`): skipped to its closing `>`, past an internal subset in
   * brackets, quoted strings and comments. Nothing in it is interpreted.
   */
  private declaration(from: number): void {
    const { bytes } = this;
    let inSubset = false;
    for (let i = from; i < bytes.length; i++) {
      const code = bytes[i];
      if (code === QUOTE || code === APOSTROPHE) {
        const close = bytes.indexOf(code, i + 1);
        if (close === -1) break;
        i = close;
      } else if (code === LT && inSubset && startsAt(bytes, i, COMMENT_OPEN)) {
        const close = bytes.indexOf('-->', i + COMMENT_OPEN.length, 'latin1');
        if (close === -1) break;
        i = close + 2;
      } else if (code === OPEN_BRACKET) {
        inSubset = true;
      } else if (code === CLOSE_BRACKET) {
        inSubset = false;
      } else if (code === GT && !inSubset) {
        this.pos = i + 1;
        return;
      }
    }
    this.finish(true);
  }

  /** Where the element name at `from` ends. */
  private nameEnd(from: number): number {
    const { bytes } = this;
    let end = from;
    while (end < bytes.length) {
      const code = bytes[end] as number;
      if (isSpace(code) || code === GT || code === SLASH || code === LT) break;
      end++;
    }
    return end;
  }

  /** The local name (prefix dropped, lower-cased) in [from, end), or '' when too long to be one the scanner looks for. */
  private localName(from: number, end: number): string {
    if (end - from > MAX_NAME) return '';
    let start = end;
    while (start > from && this.bytes[start - 1] !== COLON) start--;
    return this.bytes.toString('utf8', start, end).toLowerCase();
  }

  private endTag(lt: number): void {
    if (this.skipTo(lt + 2, '>') === -1) return;
    if (this.depth > 3) {
      this.depth--;
      return;
    }
    const name = this.localName(lt + 2, this.nameEnd(lt + 2));
    if (this.capture !== null && name === 'loc') this.emit(this.capture.trim());
    this.capture = null;
    // An end tag naming an open element closes whatever is still open inside it (<loc>x</url>), as
    // lenient parsers do; one naming no open element is ignored.
    for (let depth = this.depth; depth >= 1; depth--) {
      if (this.levels[depth - 1] === name) {
        this.depth = depth - 1;
        return;
      }
    }
  }

  private startTag(lt: number): void {
    const { bytes } = this;
    const nameEnd = this.nameEnd(lt + 1);
    // To the closing '>', skipping quoted attribute values (a quote opens one only after '=').
    let previous = 0;
    let gt = -1;
    for (let i = nameEnd; i < bytes.length; i++) {
      const code = bytes[i] as number;
      if ((code === QUOTE || code === APOSTROPHE) && previous === EQUALS) {
        const close = bytes.indexOf(code, i + 1);
        if (close === -1) break;
        i = close;
        previous = code;
      } else if (code === GT) {
        gt = i;
        break;
      } else if (!isSpace(code)) {
        previous = code;
      }
    }
    if (gt === -1) {
      this.finish(true);
      return;
    }
    this.pos = gt + 1;
    // A child element inside <loc> makes it no URL.
    this.capture = null;
    if (bytes[gt - 1] === SLASH) return; // <empty/> opens nothing
    this.depth++;
    if (this.depth > 3) return;
    const name = this.localName(lt + 1, nameEnd);
    if (this.depth === 1 && this.root === '') this.setRoot(name);
    this.levels[this.depth - 1] = name;
    if (this.depth === 3 && name === 'loc' && this.underEntry()) {
      this.capture = '';
      this.captured = 0;
    }
  }

  private setRoot(name: string): void {
    this.root = name;
    if (name === 'urlset') this.kind = 'urlset';
    else if (name === 'sitemapindex') this.kind = 'index';
  }

  /** Whether depth 2 is a <url> of the <urlset> root or a <sitemap> of the <sitemapindex> root. */
  private underEntry(): boolean {
    const [level1, level2] = this.levels;
    // Only under a root named as the first: an HTML page followed by a urlset is still HTML.
    if (level1 !== this.root) return false;
    return (this.kind === 'urlset' && level2 === 'url') || (this.kind === 'index' && level2 === 'sitemap');
  }

  private emit(loc: string): void {
    if (loc !== '' && (this.kind === 'urlset' || this.kind === 'index')) this.onLoc(loc, this.kind);
  }
}
