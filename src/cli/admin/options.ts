import { InvalidArgumentError } from 'commander';

// Parsers of the admin commands' option values: each throws commander's InvalidArgumentError,
// which it reports as a usage mistake naming the option.

export function count(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError('expected a non-negative integer');
  return Number(raw);
}

export function positive(raw: string): number {
  const n = count(raw);
  if (n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

export const CLEAR = 'none';

/** A limit that may be cleared: a count, or `none` (commander turns a parser's null into '', so keep the word). */
export function limit(raw: string): number | typeof CLEAR {
  return raw === CLEAR ? CLEAR : count(raw);
}

/** Turns the `none` of a clearable option into null. */
export function cleared<T>(value: T | typeof CLEAR | undefined): T | null | undefined {
  return value === CLEAR ? null : value;
}

export function bool(raw: string): boolean {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new InvalidArgumentError('expected true or false');
}

/** An expiry date, or `never`, which clears it (as `none` does a limit). */
export function expiry(raw: string): string {
  return raw === 'never' ? CLEAR : raw;
}
