/* The console API's shapes (docs/console.md, "Console API"), as the front end reads them. */

export type Role = 'owner' | 'member' | 'operator';

export interface AccountRef {
  readonly name: string;
  readonly slug: string;
  readonly stats_enabled?: boolean;
}

export interface Session {
  readonly user: {
    readonly id: string | null;
    readonly email: string | null;
    readonly name: string;
    readonly role: Role;
    readonly account: AccountRef | null;
  };
  readonly csrf_token: string;
  readonly expires_at: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}

export interface KeyRef {
  readonly id: string;
  readonly alias: string;
  readonly prefix: string;
}

export interface KeyQuotas {
  readonly total: number | null;
  readonly daily: number | null;
  readonly weekly: number | null;
  readonly monthly: number | null;
}

export interface ConsoleKey extends KeyRef {
  readonly account: string;
  readonly category: string;
  readonly active: boolean;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
  readonly quotas: Partial<KeyQuotas>;
  readonly created_at: string;
  readonly updated_at: string;
  readonly used: {
    readonly total: number;
    readonly today: number;
    readonly this_week: number;
    readonly this_month: number;
  };
  readonly last_used_at: string | null;
}

export interface CreatedKey extends ConsoleKey {
  /** The API key itself: in this one answer only. */
  readonly key: string;
}

export interface Balance {
  readonly source: 'subscription' | 'pack' | 'credit';
  readonly id?: string;
  readonly title?: string;
  readonly purchased_at?: string;
  readonly total: number;
  readonly used: number;
  readonly remaining: number;
}

export interface AccountUsage {
  readonly account: {
    readonly name: string;
    readonly slug: string;
    readonly active: boolean;
    readonly stats_enabled: boolean;
  };
  readonly remaining: number;
  readonly total_used: number;
  readonly period: { readonly start: string; readonly end: string };
  readonly renewal_date: string;
  readonly balances: readonly Balance[];
  readonly rate_limit: { readonly per_second: number | null; readonly per_minute: number | null };
}

export interface DailyUsage {
  readonly date: string;
  readonly calls: number;
  readonly billed: number;
  readonly by_engine: Readonly<Record<string, number>>;
  readonly by_status: Readonly<Record<string, number>>;
}

export interface RequestRow {
  readonly id: string;
  readonly created_at: string;
  readonly engine: string;
  readonly path: string;
  readonly status: number;
  readonly duration_ms: number;
  readonly billed: boolean;
  readonly key: KeyRef | null;
  /** The account's slug, in the operator's log across accounts. */
  readonly account?: string;
}

export interface WebhookAttempt {
  readonly at: string;
  readonly status: number | null;
  readonly error?: string;
}

export interface JobError {
  readonly status: number;
  readonly error: string;
}

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface JobSummary {
  readonly job_id: string;
  readonly status: JobStatus;
  readonly engine: string;
  readonly endpoint: string;
  readonly key: KeyRef | null;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly attempts: number;
  readonly error: JobError | null;
  readonly webhook: { readonly state: string; readonly attempts: readonly WebhookAttempt[] } | null;
}

export interface JobRecord {
  readonly job_id: string;
  readonly status: JobStatus;
  readonly endpoint: string;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly result: unknown;
  readonly error: JobError | null;
  readonly webhook?: { readonly state: string; readonly attempts: readonly WebhookAttempt[] } | null;
}

export interface StatsSnapshot {
  readonly engine: string;
  readonly path: string | null;
  readonly health: 'operational' | 'degraded' | 'down';
  readonly success_rate: number;
  readonly avg_response_time_ms: number;
  readonly window: string;
}

export interface ConsoleUser {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly active: boolean;
  readonly account: { readonly name: string; readonly slug: string } | null;
  readonly created_at: string;
  readonly last_sign_in_at: string | null;
}

export interface Invite {
  readonly invite_url: string;
  readonly email: string;
  readonly role: Role;
  readonly expires_at: string;
}

/** An invitation made and not yet used nor expired; its link is not shown again. */
export interface PendingInvite {
  readonly id: string;
  readonly email: string;
  readonly role: Role;
  readonly created_at: string;
  readonly expires_at: string;
  readonly invited_by: { readonly id: string; readonly email: string; readonly name: string } | null;
}

export interface InviteInfo {
  readonly email: string;
  readonly role: Role;
  readonly account: { readonly name: string; readonly slug: string };
  readonly expires_at: string;
}

export interface AuditEntry {
  readonly id: string;
  readonly at: string;
  readonly actor: {
    readonly kind: 'user' | 'admin_token' | 'admin_api' | 'cli';
    readonly id: string | null;
    readonly email: string | null;
  };
  readonly account: string | null;
  readonly action: string;
  readonly target: string | null;
  readonly ip: string | null;
  readonly detail: Readonly<Record<string, unknown>> | null;
}

export interface Account {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly active: boolean;
  readonly stats_enabled: boolean;
  readonly monthly_quota: number | null;
  readonly per_second: number | null;
  readonly per_minute: number | null;
  readonly billing_anchor: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface AccountListItem extends Account {
  readonly remaining: number;
  readonly keys: number;
  readonly users: number;
  readonly calls_today: number;
}

export interface Pack {
  readonly id: string;
  readonly title: string;
  readonly total: number;
  readonly used: number;
  readonly remaining: number;
  readonly purchased_at: string;
}

export interface AccountDetail {
  readonly account: Account;
  readonly usage: AccountUsage;
  readonly keys: readonly ConsoleKey[];
  readonly users: readonly ConsoleUser[];
  readonly packs: readonly Pack[];
}

export interface SystemHealth {
  readonly render_pool: {
    readonly size: number;
    readonly busy: number;
    readonly queued: number;
    readonly rejected_total: number;
    readonly browser_restarts_total: number;
    readonly launches_total: number;
    readonly crashes_total: number;
    /** `running`, `failing`, `not started` or `closed`, as /readyz says. */
    readonly browser: string;
  };
  readonly extractors: { readonly threads: number; readonly busy: number; readonly queued: number };
  readonly jobs: { readonly queued: number };
  readonly process: {
    readonly uptime_seconds: number;
    readonly rss_bytes: number;
    readonly heap_used_bytes: number;
  };
  readonly engines: Readonly<Record<string, StatsSnapshot>>;
}
