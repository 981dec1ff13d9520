/**
 * Page text read as the value a schema asks for: a price as a number, a date as ISO 8601, a
 * schema.org enumeration as its name. Each reader returns null when the text does not say it
 * unambiguously; none guesses. Loops are over the text once; no caller string is involved.
 */

const isDigit = (code: number) => code >= 48 && code <= 57;

/** The separators and digits of the one number in `text`, or null when there is none or more than one. */
function numberToken(text: string): string | null {
  let token: string | null = null;
  let i = 0;
  const source = text.slice(0, 200);
  while (i < source.length) {
    if (!isDigit(source.charCodeAt(i))) {
      i++;
      continue;
    }
    if (token !== null) return null;
    let end = i;
    // Digits with `.`, `,` or a (no-break, thin) space between two digits.
    while (end < source.length) {
      const code = source.charCodeAt(end);
      const between =
        (code === 0x2e || code === 0x2c || code === 0x20 || code === 0xa0 || code === 0x202f) &&
        isDigit(source.charCodeAt(end + 1)) &&
        isDigit(source.charCodeAt(end - 1));
      if (isDigit(code) || between) end++;
      else break;
    }
    const negative = i > 0 && source[i - 1] === '-' && (i < 2 || !isDigit(source.charCodeAt(i - 2)));
    token = (negative ? '-' : '') + source.slice(i, end);
    i = end;
  }
  return token;
}

/**
 * The one number a text states (`€1.299,00` → 1299, `$1,299.99` → 1299.99, `4.5` → 4.5), or
 * null. With both `.` and `,` the last is the decimal mark; with one of them, repeated or followed
 * by exactly three digits it groups thousands, else it is the decimal mark.
 */
export function numberFrom(text: string): number | null {
  const token = numberToken(text);
  if (token === null) return null;
  const compact = token.replace(/[\s\u00a0\u202f]/g, '');
  const lastDot = compact.lastIndexOf('.');
  const lastComma = compact.lastIndexOf(',');
  let normalized: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const group = decimal === '.' ? ',' : '.';
    normalized = compact.split(group).join('').replace(decimal, '.');
  } else if (lastDot >= 0 || lastComma >= 0) {
    const mark = lastDot >= 0 ? '.' : ',';
    const parts = compact.split(mark);
    const grouping =
      parts.length > 2 || (parts[1]?.length === 3 && (parts[0]?.replace('-', '') ?? '') !== '0');
    normalized = grouping ? parts.join('') : parts.join('.');
  } else {
    normalized = compact;
  }
  const value = Number(normalized);
  return Number.isFinite(value) ? value : null;
}

const MONTHS: ReadonlyMap<string, number> = new Map(
  [
    ['january', 'jan'],
    ['february', 'feb'],
    ['march', 'mar'],
    ['april', 'apr'],
    ['may', 'may'],
    ['june', 'jun'],
    ['july', 'jul'],
    ['august', 'aug'],
    ['september', 'sep', 'sept'],
    ['october', 'oct'],
    ['november', 'nov'],
    ['december', 'dec'],
  ].flatMap((names, index) => names.map((name) => [name, index + 1] as const)),
);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export interface IsoDate {
  /** YYYY-MM-DD */
  readonly date: string;
  /** hh:mm:ss and the offset (`Z`, `+01:00`), when the text gives a time; offset '' when it gives none. */
  readonly time?: { readonly clock: string; readonly offset: string };
}

// ISO 8601 / RFC 3339 as pages write it: date, optional time, optional offset. Fixed, linear.
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * The date a text states, or null: ISO 8601 (`2024-03-05`, `2024-03-05T10:00:00+01:00`),
 * `March 5, 2024`, `5 March 2024`, `2024/03/05`, `05.03.2024` (day first, as written with dots).
 * A slashed date with the year last (`03/05/2024`) is refused: month and day order differ by country.
 */
export function dateFrom(text: string): IsoDate | null {
  const source = text.trim().slice(0, 64);
  const iso = ISO.exec(source);
  if (iso !== null) {
    const [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
    if (!validDay(year, month, day)) return null;
    const date = `${iso[1]}-${iso[2]}-${iso[3]}`;
    if (iso[4] === undefined) return { date };
    const [hours, minutes, seconds] = [Number(iso[4]), Number(iso[5]), Number(iso[6] ?? '0')];
    if (hours > 23 || minutes > 59 || seconds > 59) return null;
    const zone = iso[7];
    const offset =
      zone === undefined
        ? ''
        : zone.toUpperCase() === 'Z'
          ? 'Z'
          : zone.includes(':')
            ? zone
            : `${zone.slice(0, 3)}:${zone.slice(3)}`;
    return { date, time: { clock: `${pad(hours)}:${pad(minutes)}:${pad(seconds)}`, offset } };
  }
  const words = source
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((word) => word !== '');
  const numeric = source.split(/[./]/);
  if (words.length === 1 && numeric.length === 3 && numeric.every((part) => /^\d+$/.test(part))) {
    const [a, b, c] = numeric.map(Number) as [number, number, number];
    if (numeric[0]?.length === 4 && source.includes('/'))
      return validDay(a, b, c) ? { date: `${a}-${pad(b)}-${pad(c)}` } : null;
    if (numeric[2]?.length === 4 && source.includes('.'))
      return validDay(c, b, a) ? { date: `${c}-${pad(b)}-${pad(a)}` } : null;
    return null;
  }
  if (words.length !== 3) return null;
  const dayWord = (word: string) => word.replace(/(st|nd|rd|th|\.)$/, '');
  let month: number | undefined;
  let day: number;
  let year: number;
  const monthWord = (word: string) => MONTHS.get(word.endsWith('.') ? word.slice(0, -1) : word);
  if (monthWord(words[0] as string) !== undefined) {
    month = monthWord(words[0] as string);
    day = Number(dayWord(words[1] as string));
    year = Number(words[2]);
  } else {
    month = monthWord(words[1] as string);
    day = Number(dayWord(words[0] as string));
    year = Number(words[2]);
  }
  if (month === undefined || !Number.isInteger(day) || !Number.isInteger(year) || year < 1000 || year > 9999)
    return null;
  return validDay(year, month, day) ? { date: `${year}-${pad(month)}-${pad(day)}` } : null;
}

/** `https://schema.org/InStock` → `InStock`; other text unchanged. */
export function schemaOrgName(text: string): string {
  const lower = text.slice(0, 40).toLowerCase();
  for (const prefix of ['https://schema.org/', 'http://schema.org/', 'schema:']) {
    if (lower.startsWith(prefix)) return text.slice(prefix.length);
  }
  return text;
}

const IN_STOCK: ReadonlySet<string> = new Set([
  'instock',
  'instoreonly',
  'onlineonly',
  'limitedavailability',
  'presale',
  'preorder',
  'backorder',
]);
const NOT_IN_STOCK: ReadonlySet<string> = new Set(['outofstock', 'soldout', 'discontinued']);

/** A yes/no a text states (`true`, `yes`, schema.org `InStock`), or null. */
export function booleanFrom(key: string): boolean | null {
  if (key === 'true' || key === 'yes' || IN_STOCK.has(key)) return true;
  if (key === 'false' || key === 'no' || NOT_IN_STOCK.has(key)) return false;
  return null;
}
