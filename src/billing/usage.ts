import { type Static, Type } from 'typebox';
import { Nullable } from '../nullable.js';
import type { Db } from '../store/db.js';
import type { Account } from './accounts.js';
import { listPacks, type Pack } from './balances.js';
import { type ApiKey, KeyQuotasSchema } from './keys.js';
import { billingPeriod } from './periods.js';

const Percent = Type.Number({ description: 'percentage, two decimals' });

const PackItem = Type.Object({
  id: Type.String(),
  title: Type.String(),
  purchased_at: Type.String(),
  total: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
  percent_used: Percent,
  exhausted: Type.Boolean(),
});

/** The spec's Usage record: the schema /v1/usage declares its answer with, and (Static<>) what usageRecord returns. */
export const UsageRecordSchema = Type.Object({
  remaining: Type.Integer(),
  total_used: Type.Integer(),
  renewal_date: Type.String(),
  period: Type.Object({ start: Type.String(), end: Type.String() }),
  subscription: Type.Object({
    used: Type.Integer(),
    total: Type.Integer(),
    remaining: Type.Integer(),
    percent_used: Percent,
  }),
  credits: Type.Object({
    given: Type.Integer(),
    consumed: Type.Integer(),
    remaining: Type.Integer(),
    percent_used: Percent,
  }),
  rate_limit: Type.Object({ per_minute: Nullable(Type.Integer()), per_second: Nullable(Type.Integer()) }),
  account: Type.Object({ name: Type.String(), slug: Type.String() }),
  api_key: Type.Object({
    alias: Type.String(),
    active: Type.Boolean(),
    category: Type.String(),
    expires: Nullable(Type.String()),
    quotas: KeyQuotasSchema,
  }),
  packs: Nullable(
    Type.Object({
      count: Type.Integer(),
      exhausted_count: Type.Integer(),
      all_exhausted: Type.Boolean(),
      total: Type.Integer(),
      used: Type.Integer(),
      remaining: Type.Integer(),
      percent_used: Percent,
      current_index: Type.Integer(),
      current: Nullable(PackItem),
      items: Type.Array(PackItem),
    }),
  ),
});

/** Percentage with two decimals; 0 when there is nothing to use. */
function percent(used: number, total: number): number {
  return total > 0 ? Math.round((used / total) * 10_000) / 100 : 0;
}

/** What an account has and has used now: its billing period, subscription, packs and credits. */
interface Balances {
  readonly period: { readonly start: Date; readonly end: Date };
  /** The period's subscription quota (0 without a plan) and what was drawn from it. */
  readonly quota: number;
  readonly quotaUsed: number;
  /** In draw order. */
  readonly packs: readonly Pack[];
  readonly credits: { readonly given: number; readonly consumed: number };
}

async function readBalances(db: Db, account: Account, now: Date): Promise<Balances> {
  const period = billingPeriod(new Date(account.billingAnchor), now);
  const [subscriptionRow, totals, packs] = await Promise.all([
    db
      .selectFrom('subscription_usage')
      .select('used')
      .where('account_id', '=', account.id)
      .where('period_start', '=', period.start.toISOString())
      .executeTakeFirst(),
    db
      .selectFrom('accounts')
      .select(['credits_given', 'credits_used'])
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow(),
    listPacks(db, account.id),
  ]);
  const quota = account.monthlyQuota ?? 0;
  return {
    period,
    quota,
    quotaUsed: Math.min(subscriptionRow?.used ?? 0, quota),
    packs,
    credits: { given: totals.credits_given, consumed: totals.credits_used },
  };
}

/** The spec's Usage record (spec "Usage record", rules 1-3) for an account and the calling key. */
export async function usageRecord(
  db: Db,
  account: Account,
  key: ApiKey,
  now: Date,
): Promise<Static<typeof UsageRecordSchema>> {
  const { period, quota, quotaUsed, packs, credits } = await readBalances(db, account, now);
  const items = packs.map((p) => ({
    id: p.id,
    title: p.title,
    purchased_at: p.purchasedAt,
    total: p.total,
    used: p.used,
    remaining: p.total - p.used,
    percent_used: percent(p.used, p.total),
    exhausted: p.used >= p.total,
  }));
  const packsTotal = items.reduce((sum, p) => sum + p.total, 0);
  const packsUsed = items.reduce((sum, p) => sum + p.used, 0);
  const currentIndex = items.findIndex((p) => !p.exhausted);
  const creditsRemaining = Math.max(credits.given - credits.consumed, 0);

  // Rule 1: subscription reports the quota plus the packs; rules 2-3: without a plan, the packs alone.
  const subscriptionTotal = quota + packsTotal;
  const subscriptionUsed = quotaUsed + packsUsed;

  return {
    remaining: subscriptionTotal - subscriptionUsed + creditsRemaining,
    total_used: subscriptionUsed + credits.consumed,
    renewal_date: period.end.toISOString(),
    period: { start: period.start.toISOString(), end: period.end.toISOString() },
    subscription: {
      used: subscriptionUsed,
      total: subscriptionTotal,
      remaining: subscriptionTotal - subscriptionUsed,
      percent_used: percent(subscriptionUsed, subscriptionTotal),
    },
    credits: {
      given: credits.given,
      consumed: credits.consumed,
      remaining: creditsRemaining,
      percent_used: percent(credits.consumed, credits.given),
    },
    rate_limit: { per_minute: account.perMinute, per_second: account.perSecond },
    account: { name: account.name, slug: account.slug },
    api_key: {
      alias: key.alias,
      active: key.active,
      category: key.category,
      expires: key.expiresAt,
      quotas: key.quotas,
    },
    packs:
      items.length === 0
        ? null
        : {
            count: items.length,
            exhausted_count: items.filter((p) => p.exhausted).length,
            all_exhausted: currentIndex === -1,
            total: packsTotal,
            used: packsUsed,
            remaining: packsTotal - packsUsed,
            percent_used: percent(packsUsed, packsTotal),
            current_index: currentIndex,
            current: items[currentIndex] ?? null,
            items,
          },
  };
}

const Balance = {
  total: Type.Integer(),
  used: Type.Integer(),
  remaining: Type.Integer(),
};

/** An account's usage without a key (docs/console.md `AccountUsage`): its balances in draw order. */
export const AccountUsageSchema = Type.Object({
  account: Type.Object({
    name: Type.String(),
    slug: Type.String(),
    active: Type.Boolean(),
    stats_enabled: Type.Boolean(),
  }),
  remaining: Type.Integer(),
  total_used: Type.Integer(),
  period: Type.Object({ start: Type.String(), end: Type.String() }),
  renewal_date: Type.String(),
  balances: Type.Array(
    Type.Union([
      Type.Object({ source: Type.Literal('subscription'), ...Balance }),
      Type.Object({
        source: Type.Literal('pack'),
        id: Type.String(),
        title: Type.String(),
        purchased_at: Type.String(),
        ...Balance,
      }),
      Type.Object({ source: Type.Literal('credit'), ...Balance }),
    ]),
  ),
  rate_limit: Type.Object({ per_second: Nullable(Type.Integer()), per_minute: Nullable(Type.Integer()) }),
});

/**
 * The account's usage as the console shows it: the subscription's period (its quota 0 without a
 * plan), each pack in purchase order, then the credits: the order units are drawn in. `remaining`
 * and `total_used` are the Usage record's.
 */
export async function accountUsage(
  db: Db,
  account: Account,
  now: Date,
): Promise<Static<typeof AccountUsageSchema>> {
  const { period, quota, quotaUsed, packs, credits } = await readBalances(db, account, now);
  const creditsRemaining = Math.max(credits.given - credits.consumed, 0);
  const packsRemaining = packs.reduce((sum, p) => sum + p.total - p.used, 0);
  const packsUsed = packs.reduce((sum, p) => sum + p.used, 0);
  return {
    account: {
      name: account.name,
      slug: account.slug,
      active: account.active,
      stats_enabled: account.statsEnabled,
    },
    remaining: quota - quotaUsed + packsRemaining + creditsRemaining,
    total_used: quotaUsed + packsUsed + credits.consumed,
    period: { start: period.start.toISOString(), end: period.end.toISOString() },
    renewal_date: period.end.toISOString(),
    balances: [
      { source: 'subscription' as const, total: quota, used: quotaUsed, remaining: quota - quotaUsed },
      ...packs.map((p) => ({
        source: 'pack' as const,
        id: p.id,
        title: p.title,
        purchased_at: p.purchasedAt,
        total: p.total,
        used: p.used,
        remaining: p.total - p.used,
      })),
      {
        source: 'credit' as const,
        total: credits.given,
        used: credits.consumed,
        remaining: creditsRemaining,
      },
    ],
    rate_limit: { per_second: account.perSecond, per_minute: account.perMinute },
  };
}
