import type { Kysely, Migration, MigrationProvider } from 'kysely';

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
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
