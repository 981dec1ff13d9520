import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely';

/*
 * One migration set for both dialects: only column types that mean the same on SQLite and
 * PostgreSQL (text, integer), so every query reads the same rows on either.
 */
const migrations: Record<string, Migration> = {
  '001_accounts_and_keys': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('slug', 'text', (c) => c.notNull().unique())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('stats_enabled', 'integer', (c) => c.notNull())
        .addColumn('monthly_quota', 'integer')
        .addColumn('per_second', 'integer')
        .addColumn('per_minute', 'integer')
        .addColumn('billing_anchor', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('alias', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_prefix', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('expires_at', 'text')
        .addColumn('revoked_at', 'text')
        .addColumn('quota_total', 'integer')
        .addColumn('quota_daily', 'integer')
        .addColumn('quota_weekly', 'integer')
        .addColumn('quota_monthly', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();
    },
  },
  '002_billing': {
    async up(db: Kysely<unknown>) {
      // lock_seq is bumped first in every reservation: the same UPDATE takes the account's row lock
      // on PostgreSQL and the write lock on SQLite, so one account's reservations run one at a time.
      for (const column of ['lock_seq', 'credits_given', 'credits_used']) {
        await db.schema
          .alterTable('accounts')
          .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      }
      await db.schema
        .createTable('packs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('total', 'integer', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull())
        .addColumn('purchased_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('packs_account')
        .on('packs')
        .columns(['account_id', 'purchased_at'])
        .execute();
      await db.schema
        .createTable('credit_grants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('note', 'text', (c) => c.notNull())
        .addColumn('granted_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('credit_grants_account').on('credit_grants').column('account_id').execute();
      await db.schema
        .createTable('subscription_usage')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('period_start', 'text', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('subscription_usage_pk', ['account_id', 'period_start'])
        .execute();
      await db.schema
        .createTable('key_usage')
        .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
        .addColumn('window_kind', 'text', (c) => c.notNull())
        .addColumn('window_start', 'text', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('key_usage_pk', ['key_id', 'window_kind', 'window_start'])
        .execute();
      await db.schema
        .createTable('reservations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('pack_id', 'text')
        .addColumn('period_start', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('engine', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('settled_at', 'text')
        .execute();
      await db.schema
        .createIndex('reservations_open')
        .on('reservations')
        .columns(['status', 'expires_at'])
        .execute();
      await db.schema
        .createIndex('reservations_account')
        .on('reservations')
        .columns(['account_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('request_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('engine', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('billed', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('request_log_time')
        .on('request_log')
        .columns(['created_at', 'engine'])
        .execute();
    },
  },
  '003_settings': {
    async up(db: Kysely<unknown>) {
      // Values the processes sharing a database must agree on, such as the generated signing secret.
      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '004_open_reservations_index': {
    async up(db: Kysely<unknown>) {
      // Only reservations still held are looked up by expiry (the sweeper); a partial index keeps
      // just those, so settling a call removes an entry instead of moving one, and the index stays
      // as small as the calls in flight however long the ledger grows.
      await db.schema.dropIndex('reservations_open').execute();
      await db.schema
        .createIndex('reservations_open')
        .on('reservations')
        .column('expires_at')
        .where(sql.ref('status'), '=', 'reserved')
        .execute();
    },
  },
  '005_request_stats': {
    async up(db: Kysely<unknown>) {
      // The stats snapshot sums at most an hour of these per engine or path, however long the
      // request log is kept; rows are merged per minute as the log is written.
      await db.schema
        .createTable('request_stats')
        .addColumn('minute', 'text', (c) => c.notNull())
        .addColumn('engine', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('requests', 'integer', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('duration_sum_ms', 'bigint', (c) => c.notNull())
        .addColumn('duration_count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('request_stats_pk', ['minute', 'engine', 'path'])
        .execute();
    },
  },
  '006_jobs': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('engine', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('reservation_id', 'text', (c) => c.notNull())
        .addColumn('params', 'text', (c) => c.notNull())
        .addColumn('params_hash', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('error_status', 'integer')
        .addColumn('error_message', 'text')
        .addColumn('result_key', 'text')
        .addColumn('webhook', 'text')
        .execute();
      // Queue depth, restart recovery and the sweeper look jobs up by status.
      await db.schema.createIndex('jobs_status').on('jobs').columns(['status', 'created_at']).execute();
      await db.schema.createIndex('jobs_expiry').on('jobs').column('expires_at').execute();
      // NULLs are distinct on both dialects: only submissions with the header are constrained.
      await db.schema
        .createIndex('jobs_idempotency')
        .unique()
        .on('jobs')
        .columns(['account_id', 'idempotency_key'])
        .execute();
      await db.schema.alterTable('accounts').addColumn('webhook_secret', 'text').execute();
    },
  },
  '007_webhook_schedule': {
    async up(db: Kysely<unknown>) {
      // Webhook retries are due at a time kept in the row, so that any process delivers them,
      // whichever one ended the job and whether or not it still runs.
      await db.schema.alterTable('jobs').addColumn('webhook_next_at', 'text').execute();
      await db.schema.createIndex('jobs_webhook_due').on('jobs').column('webhook_next_at').execute();
    },
  },
  '008_console': {
    async up(db: Kysely<unknown>) {
      // The console's people, sessions, invitations, sign-in failures and the audit log
      // (docs/console.md), and the indexes its lists and daily totals read by account and time.
      await db.schema
        .createTable('console_users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('last_sign_in_at', 'text')
        .execute();
      await db.schema.createIndex('console_users_account').on('console_users').column('account_id').execute();
      await db.schema
        .createTable('console_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.references('console_users.id').onDelete('cascade'))
        .addColumn('admin_token_digest', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('console_sessions_user').on('console_sessions').column('user_id').execute();
      await db.schema
        .createIndex('console_sessions_expiry')
        .on('console_sessions')
        .column('expires_at')
        .execute();
      await db.schema
        .createTable('console_invitations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('accepted_at', 'text')
        .execute();
      await db.schema
        .createIndex('console_invitations_account')
        .on('console_invitations')
        .columns(['account_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('console_sign_in_failures')
        .addColumn('subject', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('first_failed_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('actor_kind', 'text', (c) => c.notNull())
        .addColumn('actor_id', 'text')
        .addColumn('actor_email', 'text')
        .addColumn('account_id', 'text')
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target', 'text')
        .addColumn('ip', 'text')
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_log_time').on('audit_log').columns(['created_at', 'id']).execute();
      await db.schema
        .createIndex('audit_log_account')
        .on('audit_log')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('audit_log_action')
        .on('audit_log')
        .columns(['action', 'created_at', 'id'])
        .execute();
      // The request log was read by time only (the stats); the console lists and totals it per
      // account and per key, newest first.
      await db.schema
        .createIndex('request_log_account')
        .on('request_log')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('request_log_key')
        .on('request_log')
        .columns(['key_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('jobs_account')
        .on('jobs')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
    },
  },
  '009_credential_epoch': {
    async up(db: Kysely<unknown>) {
      // A user's credential epoch, bumped by every password change or reset and by deactivation;
      // a session carries the epoch its sign-in was checked against and lives only while it is
      // the user's, so a sign-in that races a change never keeps a session (docs/security.md).
      await db.schema
        .alterTable('console_users')
        .addColumn('credential_epoch', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('console_sessions').addColumn('credential_epoch', 'integer').execute();
      await sql`update console_sessions set credential_epoch = 0 where user_id is not null`.execute(db);
    },
  },
  '010_key_signing_secrets': {
    async up(db: Kysely<unknown>) {
      // A key's own secret for signed links (docs/signed-links.md), sealed under the service's
      // secret because verifying a link recomputes its HMAC; keys made before have none until
      // one is rotated in. signed_only refuses the key's plaintext in a query string.
      await db.schema.alterTable('api_keys').addColumn('signing_secret', 'text').execute();
      await db.schema
        .alterTable('api_keys')
        .addColumn('signed_only', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '011_crawls': {
    async up(db: Kysely<unknown>) {
      // Whole-site work (docs/crawl.md): a crawl or batch, its pages as units of work on the job
      // queue, and per host its politeness slot and robots.txt rules.
      await db.schema
        .createTable('crawls')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('stop_reason', 'text')
        .addColumn('params', 'text', (c) => c.notNull())
        .addColumn('page_limit', 'integer', (c) => c.notNull())
        .addColumn('max_concurrency', 'integer', (c) => c.notNull())
        .addColumn('webhook', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('discovered', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('completed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('credits_used', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('expires_at', 'text')
        .execute();
      await db.schema
        .createIndex('crawls_account')
        .on('crawls')
        .columns(['account_id', 'created_at'])
        .execute();
      await db.schema.createIndex('crawls_status').on('crawls').columns(['status', 'expires_at']).execute();
      await db.schema
        .createTable('crawl_pages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('crawl_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('depth', 'integer', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_until', 'text')
        .addColumn('not_before', 'text')
        .addColumn('queued_at', 'text')
        .addColumn('reservation_id', 'text')
        .addColumn('status_code', 'integer')
        .addColumn('final_url', 'text')
        .addColumn('error', 'text')
        .addColumn('result_key', 'text')
        .addColumn('done_seq', 'integer')
        .addColumn('options', 'text')
        .addColumn('finished_at', 'text')
        .execute();
      // A URL enters a crawl's frontier once, whatever races to add it.
      await db.schema
        .createIndex('crawl_pages_url')
        .unique()
        .on('crawl_pages')
        .columns(['crawl_id', 'url'])
        .execute();
      await db.schema
        .createIndex('crawl_pages_seq')
        .unique()
        .on('crawl_pages')
        .columns(['crawl_id', 'seq'])
        .execute();
      // The pages' cursor: the order they finished in, so that a reader never misses one.
      await db.schema
        .createIndex('crawl_pages_done')
        .unique()
        .on('crawl_pages')
        .columns(['crawl_id', 'done_seq'])
        .execute();
      await db.schema
        .createIndex('crawl_pages_state')
        .on('crawl_pages')
        .columns(['crawl_id', 'state', 'depth', 'seq'])
        .execute();
      // A crawl's webhook events, each delivered (and retried) by any process, like a job's record.
      await db.schema
        .createTable('crawl_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('crawl_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('page_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('log', 'text', (c) => c.notNull())
        .addColumn('next_at', 'text')
        .execute();
      await db.schema.createIndex('crawl_events_due').on('crawl_events').column('next_at').execute();
      await db.schema.createIndex('crawl_events_crawl').on('crawl_events').column('crawl_id').execute();
      await db.schema
        .createTable('crawl_hosts')
        .addColumn('crawl_id', 'text', (c) => c.notNull())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('next_at', 'text', (c) => c.notNull())
        .addColumn('robots', 'text')
        .addColumn('delay_ms', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('crawl_hosts_pk', ['crawl_id', 'host'])
        .execute();
    },
  },
  '012_crawl_idempotency': {
    async up(db: Kysely<unknown>) {
      // An Idempotency-Key names one crawl or batch of an account, as it names one job.
      await db.schema.alterTable('crawls').addColumn('idempotency_key', 'text').execute();
      await db.schema.alterTable('crawls').addColumn('params_hash', 'text').execute();
      await db.schema
        .createIndex('crawls_idempotency')
        .unique()
        .on('crawls')
        .columns(['account_id', 'idempotency_key'])
        .execute();
    },
  },
  '013_request_log_target': {
    async up(db: Kysely<unknown>) {
      // What a call was about and why it failed, so that the console's request log explains a
      // failed call (docs/console.md): the target URL, redacted, and the error text, both bounded.
      await db.schema.alterTable('request_log').addColumn('target_url', 'text').execute();
      await db.schema.alterTable('request_log').addColumn('error', 'text').execute();
    },
  },
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
