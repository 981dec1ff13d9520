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
  /** Bumped to take the account's lock in a reservation. */
  lock_seq: number;
  credits_given: number;
  credits_used: number;
  /** HMAC key of the account's webhook signatures; generated when first needed. */
  webhook_secret: string | null;
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
  /** The key's signing secret for signed links, sealed (Sealer); null until one is made. */
  signing_secret: string | null;
  /** 1: the key's plaintext is refused in a query string; only signed links and the header carry it. */
  signed_only: number;
}

/** A one-time pack: never resets; packs are drawn in purchase order. */
export interface PacksTable {
  id: string;
  account_id: string;
  title: string;
  total: number;
  used: number;
  purchased_at: string;
}

export interface CreditGrantsTable {
  id: string;
  account_id: string;
  amount: number;
  note: string;
  granted_at: string;
}

/** Units drawn from the subscription quota in one billing period. */
export interface SubscriptionUsageTable {
  account_id: string;
  period_start: string;
  used: number;
}

/** Billable calls of a key per window: total (start ''), day, week, month (UTC calendar). */
export interface KeyUsageTable {
  key_id: string;
  window_kind: 'total' | 'daily' | 'weekly' | 'monthly';
  window_start: string;
  used: number;
}

export type ReservationStatus = 'reserved' | 'committed' | 'released';
export type BalanceSource = 'subscription' | 'pack' | 'credit';

/** The ledger: one row per unit reserved; committed rows are what the account was billed. */
export interface ReservationsTable {
  id: string;
  account_id: string;
  key_id: string;
  source: BalanceSource;
  pack_id: string | null;
  period_start: string | null;
  status: ReservationStatus;
  engine: string;
  created_at: string;
  expires_at: string;
  settled_at: string | null;
}

export interface RequestLogTable {
  id: string;
  account_id: string;
  key_id: string;
  engine: string;
  path: string;
  status: number;
  duration_ms: number;
  billed: number;
  created_at: string;
  /** The call's target URL without credentials or secret query values, at most 2,048 characters; null when it has none. */
  target_url: string | null;
  /** A failed call's error text, at most 500 characters; null when it succeeded. */
  error: string | null;
}

/** Per-minute totals of the request log by engine and path: what the stats snapshot reads. */
export interface RequestStatsTable {
  /** The minute's start, `YYYY-MM-DDTHH:MM` in UTC. */
  minute: string;
  engine: string;
  path: string;
  requests: number;
  /** Answers with a 5xx status. */
  failures: number;
  /** Sum and count of durations up to 60 s; longer ones are left out of the average. */
  duration_sum_ms: number;
  duration_count: number;
}

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';

/** An async call (DESIGN.md §2): its sealed parameters, the unit held for it, its outcome. */
export interface JobsTable {
  id: string;
  account_id: string;
  key_id: string;
  /** Engine slug of the catalog (capture, content, analyze, website-crawler). */
  engine: string;
  /** The endpoint it was submitted to, as the request log records paths. */
  path: string;
  status: JobStatus;
  reservation_id: string;
  /** The engine call's parameters, encrypted (jobs/sealed.ts): they may hold a caller's secrets. */
  params: string;
  /** Keyed hash of the submitted parameters, to tell an idempotent resubmission from a different one. */
  params_hash: string;
  idempotency_key: string | null;
  /** Runs started: a worker that died mid-job leaves the job to another one, up to a bound. */
  attempts: number;
  /** While running: until when the worker's claim holds unless renewed. */
  lease_until: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Queued: when it expires unrun. Finished: when its record and result are deleted. */
  expires_at: string;
  error_status: number | null;
  error_message: string | null;
  /** Blob key of the result body. */
  result_key: string | null;
  /** JSON: the webhook delivery attempts (jobs/job-record.ts WebhookLog). */
  webhook: string | null;
  /** When the next webhook attempt is due, or until when a process holds the one in progress; null when none is. */
  webhook_next_at: string | null;
}

export type ConsoleRole = 'owner' | 'member' | 'operator';

/** A person who signs in to the console: an account's owner or member, or an operator (no account). */
export interface ConsoleUsersTable {
  id: string;
  /** Null for operators. */
  account_id: string | null;
  /** Lower case; unique. */
  email: string;
  name: string;
  role: ConsoleRole;
  /** argon2id, in its PHC string form (admin/passwords.ts). */
  password_hash: string;
  active: number;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
  /** Bumped by every password change or reset and by deactivation: the sessions opened before end. */
  credential_epoch: number;
}

/** A signed-in console session; the cookie's token is never stored, only its SHA-256. */
export interface ConsoleSessionsTable {
  /** SHA-256 of the session token, hex. */
  id: string;
  /** Null for a session opened with WEBCAP_ADMIN_TOKEN. */
  user_id: string | null;
  /** For an admin-token session: a keyed digest of the token it was opened with, so that changing the token ends it. */
  admin_token_digest: string | null;
  created_at: string;
  /** Written at most once a minute: the idle expiry counts from it. */
  last_seen_at: string;
  /** The absolute end, CONSOLE_SESSION_MAX_HOURS after sign-in. */
  expires_at: string;
  /** A user's session: their credential epoch it was opened with; it lives only while that is theirs. */
  credential_epoch: number | null;
}

/** A one-time invitation to join an account; only the SHA-256 of its token is stored. */
export interface ConsoleInvitationsTable {
  id: string;
  token_hash: string;
  account_id: string;
  email: string;
  role: ConsoleRole;
  created_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** Failed sign-ins per subject (`email:<address>` or `ip:<address>`), for the lockout. */
export interface ConsoleSignInFailuresTable {
  subject: string;
  /** Failures in a row (an email) or within the window (an address). */
  failures: number;
  /** When the counted run of failures began. */
  first_failed_at: string;
  locked_until: string | null;
}

/** Who did what (docs/console.md, "Audit log"); never a password, key or token in `detail`. */
export interface AuditLogTable {
  id: string;
  created_at: string;
  actor_kind: 'user' | 'admin_token' | 'admin_api' | 'cli';
  actor_id: string | null;
  actor_email: string | null;
  account_id: string | null;
  action: string;
  target: string | null;
  ip: string | null;
  /** JSON object. */
  detail: string;
}

/** A crawl's or batch's state (docs/crawl.md). */
export type CrawlStatus = 'queued' | 'running' | 'completed' | 'cancelled' | 'failed' | 'stopped';

/** A whole-site crawl or a batch: its plan (sealed) and its counts, kept in step with its pages. */
export interface CrawlsTable {
  id: string;
  account_id: string;
  key_id: string;
  kind: 'crawl' | 'batch';
  status: CrawlStatus;
  /** Why a crawl stopped before its frontier emptied (payment_required, key_withdrawn). */
  stop_reason: string | null;
  /** The crawl's plan, encrypted (jobs/sealed.ts): page options may hold a caller's headers and cookies. */
  params: string;
  page_limit: number;
  max_concurrency: number;
  /** 1 when the crawl has a webhook: its events are queued in crawl_events. */
  webhook: number;
  /** Pages taken into the frontier; also the next page's `seq`. */
  discovered: number;
  completed: number;
  failed: number;
  /** Pages not fetched: robots.txt disallowed them, or they redirected outside the crawl. */
  skipped: number;
  credits_used: number;
  created_at: string;
  /** Written by every change of the frontier: the row lock that serializes them. */
  updated_at: string;
  finished_at: string | null;
  /** Set when it ends: when its record, pages and results are deleted. */
  expires_at: string | null;
  /** The caller's Idempotency-Key, unique per account; freed once past its 24 hours. */
  idempotency_key: string | null;
  /** Of the submission's kind and plan: a key replayed with other parameters is a 400. */
  params_hash: string | null;
}

/**
 * A page's unit of work: pending (in the frontier), queued (handed to the job queue), running
 * (leased to a worker), then completed, failed, cancelled (the crawl ended first) or skipped.
 */
export type CrawlPageState =
  | 'pending'
  | 'queued'
  | 'running'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'skipped';

export interface CrawlPagesTable {
  id: string;
  crawl_id: string;
  /** Order of discovery within the crawl: the pages' cursor. */
  seq: number;
  /**
   * page: a crawl's page, fetched and billed; sitemap: the discovery of the site's sitemaps, never
   * billed nor listed; item: a batch's call, billed as its engine.
   */
  kind: 'page' | 'sitemap' | 'item';
  /** Normalized (engines/site/site-url.ts): the frontier's key; a batch item's is `item:<index>`. */
  url: string;
  depth: number;
  state: CrawlPageState;
  attempts: number;
  lease_until: string | null;
  /** Its host's politeness slot: no run starts before it. */
  not_before: string | null;
  queued_at: string | null;
  /** The unit held for it while it runs; settled with its end. */
  reservation_id: string | null;
  status_code: number | null;
  /** Where it landed after redirects, when elsewhere. */
  final_url: string | null;
  error: string | null;
  result_key: string | null;
  /** The order it finished in (0, 1, ...), the pages' cursor; null until then and for cancelled ones. */
  done_seq: number | null;
  /** A batch item's own options, sealed; null for crawl pages. */
  options: string | null;
  finished_at: string | null;
}

export type CrawlEventType =
  | 'crawl.started'
  | 'crawl.page'
  | 'crawl.completed'
  | 'crawl.failed'
  | 'batch.started'
  | 'batch.item'
  | 'batch.completed'
  | 'batch.failed';

/** A crawl's webhook event waiting for (or done with) its delivery. */
export interface CrawlEventsTable {
  id: string;
  crawl_id: string;
  account_id: string;
  type: CrawlEventType;
  /** The page a crawl.page event is about. */
  page_id: string | null;
  created_at: string;
  /** JSON: the delivery attempts (jobs/job-record.ts WebhookLog). */
  log: string;
  /** When the next attempt is due, or until when a process holds the one in progress; null when none is. */
  next_at: string | null;
}

/** Per crawl and host: the next politeness slot, and robots.txt's rules once read (JSON). */
export interface CrawlHostsTable {
  crawl_id: string;
  host: string;
  next_at: string;
  robots: string | null;
  /** robots.txt's Crawl-delay, once read: the least time between two pages of the host. */
  delay_ms: number;
}

/** Process-wide values shared through the database; written once, read by every process. */
export interface SettingsTable {
  key: string;
  value: string;
}

export interface DatabaseSchema {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  packs: PacksTable;
  credit_grants: CreditGrantsTable;
  subscription_usage: SubscriptionUsageTable;
  key_usage: KeyUsageTable;
  reservations: ReservationsTable;
  request_log: RequestLogTable;
  request_stats: RequestStatsTable;
  jobs: JobsTable;
  settings: SettingsTable;
  console_users: ConsoleUsersTable;
  console_sessions: ConsoleSessionsTable;
  console_invitations: ConsoleInvitationsTable;
  console_sign_in_failures: ConsoleSignInFailuresTable;
  audit_log: AuditLogTable;
  crawls: CrawlsTable;
  crawl_pages: CrawlPagesTable;
  crawl_hosts: CrawlHostsTable;
  crawl_events: CrawlEventsTable;
}
