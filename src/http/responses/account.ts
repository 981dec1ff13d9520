import { Type } from 'typebox';
import { Nullable } from '../schemas.js';

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

/** A key's own quotas (null: none). */
export const KeyQuotas = Type.Object({
  total: Nullable(Type.Integer()),
  daily: Nullable(Type.Integer()),
  weekly: Nullable(Type.Integer()),
  monthly: Nullable(Type.Integer()),
});

/** The spec's Usage record. */
export const UsageBody = Type.Object({
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
    quotas: KeyQuotas,
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
