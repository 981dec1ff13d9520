import type { Generated } from 'kysely';

/*
 * Column conventions shared by both dialects so that one set of queries serves SQLite and
 * PostgreSQL: timestamps are ISO 8601 UTC strings (they sort as text), flags are 0/1 integers.
 */

export interface AccountsTable {
  id: string;
  name: string;
  slug: string;
  active: number;
  stats_enabled: number;
  /** Calls per billing period; null for accounts without a monthly plan. */
  monthly_quota: number | null;
  per_second: number | null;
  per_minute: number | null;
  /** Billing periods start on this instant's day of month. */
  billing_anchor: string;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  alias: string;
  category: string;
  /** SHA-256 of the key, hex; the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, enough for a person to tell keys apart. */
  key_prefix: string;
  active: number;
  expires_at: string | null;
  revoked_at: string | null;
  quota_total: number | null;
  quota_daily: number | null;
  quota_weekly: number | null;
  quota_monthly: number | null;
  created_at: string;
  updated_at: string;
}

export interface DatabaseSchema {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
}

export type { Generated };
