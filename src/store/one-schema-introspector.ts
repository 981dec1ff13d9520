import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  PostgresDialect,
  type PostgresDialectConfig,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';

/**
 * What Kysely's migrator asks of the database, answered from one schema only. Kysely's own
 * PostgreSQL introspector reads every schema of the database (with has_schema_privilege on each),
 * and a schema dropped meanwhile (another tenant's, another service's, another test file's) failed
 * the migrations with 'schema "..." does not exist' for a schema that was not ours. The migrator
 * asks only whether its schema and tables exist: tables come without their columns.
 */
class OneSchemaIntrospector implements DatabaseIntrospector {
  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: the introspector runs catalog queries outside the app's schema types
    private readonly db: Kysely<any>,
    private readonly schema: string,
  ) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`
      select nspname as name from pg_catalog.pg_namespace where nspname = ${this.schema}`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; is_view: boolean }>`
      select c.relname as name, c.relkind in ('v', 'm') as is_view
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${this.schema} and c.relkind in ('r', 'p', 'v', 'm')`.execute(this.db);
    return rows.map((row) => ({ name: row.name, isView: row.is_view, columns: [], schema: this.schema }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/** The PostgreSQL dialect the migrations run on: Kysely's, with the one-schema introspector. */
export class MigrationDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly schema: string,
  ) {
    super(config);
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's Dialect interface takes Kysely<any>
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new OneSchemaIntrospector(db, this.schema);
  }
}
