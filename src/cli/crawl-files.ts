import { createHash } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/*
 * Where `webcap crawl-site` writes each page: one flat directory, a name per URL made from its
 * path. A name is the path itself (`/docs/intro` → `docs_intro.md`) when that is exact: the same
 * host, no query, lower-case segments of letters, digits, `.` and `-` (no `_`, the separator, and
 * none starting with `.`, so no `..` nor hidden file). Anything else keeps a readable part and
 * adds a hash of the whole URL, so a name depends on its URL alone, never on the order pages
 * finished in, and two URLs get two names (case-insensitive file systems included).
 */

/** Characters of a name's readable part at most: far below the 255 bytes file systems allow. */
const MAX_STEM_CHARS = 100;
const EXACT_SEGMENT = /^[a-z0-9][a-z0-9.-]*$/;

function hashOf(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 12);
}

/** The Markdown file name of a page's URL, relative to the crawl's start host (see above). */
export function pageFileName(pageUrl: string, startHost: string): string {
  const url = new URL(pageUrl);
  const segments = url.pathname === '/' ? ['index'] : url.pathname.split('/').slice(1);
  const stem = segments.join('_');
  const exact =
    url.host === startHost &&
    url.search === '' &&
    segments.every((segment) => EXACT_SEGMENT.test(segment)) &&
    !(url.pathname !== '/' && stem === 'index') &&
    stem.length <= MAX_STEM_CHARS;
  if (exact) return `${stem}.md`;
  const readable = [url.host === startHost ? '' : url.host, ...segments]
    .join('_')
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(0, MAX_STEM_CHARS - 13);
  return `${readable === '' ? 'page' : readable}-${hashOf(pageUrl)}.md`;
}

/** The image file beside a page's Markdown file: `docs_intro.md` → `docs_intro.png`. */
export function imageFileName(markdownFile: string): string {
  return markdownFile.replace(/\.md$/, '.png');
}

/**
 * Writes `content` to `name` in `dir`, owner-only (0600), replacing what was there: the old entry
 * is removed first and the file created exclusively, so a symbolic link planted under that name is
 * replaced, never followed.
 */
export async function writeOwnerOnly(dir: string, name: string, content: string | Uint8Array): Promise<void> {
  if (name !== path.basename(name) || name.startsWith('.')) throw new RangeError(`unsafe file name ${name}`);
  const file = path.join(dir, name);
  await rm(file, { force: true });
  await writeFile(file, content, { mode: 0o600, flag: 'wx' });
}
