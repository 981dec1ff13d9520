import { invalidParam } from '../errors.js';

// Anchored, no nested or adjacent unbounded quantifiers: linear on any input.
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * A date (`2026-11-23`) or date-time (`2026-11-23T10:00:00Z`, `...+02:00`; without an offset it
 * is UTC) in ISO 8601, years 1970 to 9999. Everything else, including dates that do not exist
 * (`2020-02-30`, `2026-13-01`, `24:00`), is a 400 naming `param`: `Date.parse` would roll those
 * over to another day or accept free text.
 */
export function parseIsoDate(text: string, param: string): Date {
  const wrong = () => invalidParam(param, 'must be an ISO 8601 date or date-time, such as 2026-12-31');
  const match = text.length <= 40 ? ISO_8601.exec(text) : null;
  if (match === null) throw wrong();
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', offset = 'Z'] = match;
  const fields = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = fields;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, Number(`0.${fraction || '0'}`) * 1000);
  const exact = new Date(utc);
  const exists =
    year >= 1970 &&
    exact.getUTCFullYear() === year &&
    exact.getUTCMonth() === month - 1 &&
    exact.getUTCDate() === day &&
    exact.getUTCHours() === hour &&
    exact.getUTCMinutes() === minute &&
    exact.getUTCSeconds() === second;
  if (!exists) throw wrong();
  if (offset === 'Z') return exact;
  const offsetHours = Number(offset.slice(1, 3));
  const offsetMinutes = Number(offset.slice(4, 6));
  if (offsetHours > 23 || offsetMinutes > 59) throw wrong();
  const sign = offset.startsWith('-') ? -1 : 1;
  return new Date(utc - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
}
