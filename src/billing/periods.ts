/** Billing periods and quota windows: pure date arithmetic, all in UTC. */

export interface Period {
  readonly start: Date;
  readonly end: Date;
}

/** anchor + n months, with the day clamped to the month's length (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(anchor: Date, months: number): Date {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchor.getUTCDate(), lastDay),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

/** The monthly billing period, counted from the anchor, that contains `now`. */
export function billingPeriod(anchor: Date, now: Date): Period {
  let months =
    (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  // The month difference can be one too high (now is before the anchor's day in its month) or,
  // for a future anchor, negative; step until start <= now < end.
  while (addMonths(anchor, months) > now) months -= 1;
  while (addMonths(anchor, months + 1) <= now) months += 1;
  return { start: addMonths(anchor, months), end: addMonths(anchor, months + 1) };
}

export type QuotaWindow = 'total' | 'daily' | 'weekly' | 'monthly';

export const QUOTA_WINDOWS: readonly QuotaWindow[] = ['total', 'daily', 'weekly', 'monthly'];

/** Start of each key-quota window containing `at`: UTC day, ISO week (from Monday), calendar month. */
export function windowStarts(at: Date): Record<QuotaWindow, string> {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return {
    total: '',
    daily: new Date(day).toISOString(),
    weekly: new Date(day - sinceMonday * 86_400_000).toISOString(),
    monthly: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString(),
  };
}

/** When each window containing `at` ends, for Retry-After and X-RateLimit-Reset. */
export function windowEnds(at: Date): Record<Exclude<QuotaWindow, 'total'>, Date> {
  const starts = windowStarts(at);
  return {
    daily: new Date(Date.parse(starts.daily) + 86_400_000),
    weekly: new Date(Date.parse(starts.weekly) + 7 * 86_400_000),
    monthly: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)),
  };
}
