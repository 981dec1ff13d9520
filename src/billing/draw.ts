import type { BalanceSource } from '../store/schema.js';
import { QUOTA_WINDOWS, type QuotaWindow } from './periods.js';

/** What an account can still spend, as read under its lock; `draw` spends from it in memory. */
export interface Balance {
  /** The plan's quota in the current period; null without a plan. */
  subscription: { readonly quota: number; used: number; readonly periodStart: string } | null;
  /** Packs with room left, oldest purchase first. */
  readonly packs: { readonly id: string; readonly total: number; used: number }[];
  credits: { readonly given: number; used: number };
}

/** Where one unit came from. */
export interface Drawn {
  readonly source: BalanceSource;
  readonly packId: string | null;
  readonly periodStart: string | null;
}

/** Takes one unit in the spec's order (subscription quota, then packs by purchase, then credits); undefined when none is left. */
export function draw(balance: Balance): Drawn | undefined {
  const { subscription } = balance;
  if (subscription !== null && subscription.used < subscription.quota) {
    subscription.used += 1;
    return { source: 'subscription', packId: null, periodStart: subscription.periodStart };
  }
  const pack = balance.packs.find((p) => p.used < p.total);
  if (pack !== undefined) {
    pack.used += 1;
    return { source: 'pack', packId: pack.id, periodStart: null };
  }
  if (balance.credits.used < balance.credits.given) {
    balance.credits.used += 1;
    return { source: 'credit', packId: null, periodStart: null };
  }
  return undefined;
}

/** Gives back a unit `draw` took from `balance`, to where it came from. */
export function undraw(balance: Balance, drawn: Drawn): void {
  if (drawn.source === 'subscription') {
    if (balance.subscription !== null) balance.subscription.used -= 1;
  } else if (drawn.source === 'pack') {
    const pack = balance.packs.find((p) => p.id === drawn.packId);
    if (pack !== undefined) pack.used -= 1;
  } else balance.credits.used -= 1;
}

/** A key's quotas and what it used in the windows containing now; `exceeded`/`count` work on it in memory. */
export interface KeyAllowance {
  readonly limits: Record<QuotaWindow, number | null>;
  readonly used: Record<QuotaWindow, number>;
}

/** The first window whose quota has no room left, if any. */
export function exceeded(allowance: KeyAllowance): QuotaWindow | undefined {
  return QUOTA_WINDOWS.find((w) => {
    const limit = allowance.limits[w];
    return limit !== null && allowance.used[w] >= limit;
  });
}

/** Counts one call in every window. */
export function count(allowance: KeyAllowance): void {
  for (const w of QUOTA_WINDOWS) allowance.used[w] += 1;
}
