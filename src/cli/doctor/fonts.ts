// Chromium finds fonts through fontconfig; a script without a font renders as empty boxes.
import { type Check, type CheckStatus, errorCode, fail, INSTALL_DEPS, messageOf, ok, warn } from './check.js';
import { runProgram } from './run-program.js';

interface FontNeed {
  readonly name: string;
  /** fontconfig patterns that must each match a font. */
  readonly patterns: readonly { readonly pattern: string; readonly what: string }[];
  readonly missing: CheckStatus;
  readonly fix: string;
}

const LATIN: FontNeed = {
  name: 'fonts latin',
  patterns: [{ pattern: ':lang=en', what: 'Latin' }],
  // No text at all renders without one: every page would be blank of words.
  missing: 'fail',
  fix: `apt-get install fonts-liberation, ${INSTALL_DEPS}`,
};

const CJK: FontNeed = {
  name: 'fonts cjk',
  patterns: [
    { pattern: ':lang=ja', what: 'Japanese' },
    { pattern: ':lang=zh-cn', what: 'Chinese' },
    { pattern: ':lang=ko', what: 'Korean' },
  ],
  missing: 'warn',
  fix: `apt-get install fonts-noto-cjk, ${INSTALL_DEPS}`,
};

const EMOJI: FontNeed = {
  name: 'fonts emoji',
  // A colour font with U+1F600: monochrome fonts such as DejaVu cover some emoji as outlines.
  patterns: [{ pattern: ':charset=1f600:color=true', what: 'colour emoji' }],
  missing: 'warn',
  fix: `apt-get install fonts-noto-color-emoji, ${INSTALL_DEPS}`,
};

/** The families fontconfig has for a pattern, a few of them. */
async function fontFamilies(pattern: string, timeoutMs: number): Promise<string[]> {
  const out = await runProgram('fc-list', [pattern, 'family'], timeoutMs);
  const families = new Set(
    out
      .split('\n')
      .map((line) => line.split(',')[0]?.trim() ?? '')
      .filter((family) => family !== ''),
  );
  return [...families].sort().slice(0, 3);
}

function fontCheck(need: FontNeed): Check {
  return {
    name: need.name,
    async run({ timeoutMs }) {
      const covered: string[] = [];
      const families = new Set<string>();
      const missing: string[] = [];
      for (const { pattern, what } of need.patterns) {
        let found: string[];
        try {
          found = await fontFamilies(pattern, timeoutMs);
        } catch (error) {
          if (errorCode(error) === 'ENOENT') {
            return fail(
              need.name,
              'fc-list not found: fontconfig is not installed',
              'apt-get install fontconfig',
            );
          }
          return fail(
            need.name,
            `fc-list failed: ${messageOf(error)}`,
            'apt-get install --reinstall fontconfig',
          );
        }
        if (found.length === 0) missing.push(what);
        else covered.push(what);
        for (const family of found) families.add(family);
      }
      if (missing.length === 0) {
        return ok(need.name, `${covered.join(', ')} (${[...families].slice(0, 3).join(', ')})`);
      }
      const detail = `no font for ${missing.join(', ')}: such text renders as empty boxes`;
      return need.missing === 'fail' ? fail(need.name, detail, need.fix) : warn(need.name, detail, need.fix);
    },
  };
}

/** A font for Latin text: without one, pages render blank of words (a failure). */
export const latinFontsCheck = (): Check => fontCheck(LATIN);
/** Fonts for Japanese, Chinese and Korean (a warning when missing). */
export const cjkFontsCheck = (): Check => fontCheck(CJK);
/** A colour emoji font (a warning when missing). */
export const emojiFontsCheck = (): Check => fontCheck(EMOJI);
