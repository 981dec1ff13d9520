import { DEFAULT_MIGRATION_TABLE } from 'kysely';
import pg from 'pg';
import { type Check, type CheckResult, errorCode, fail, messageOf } from './check.js';
import { migrationVerdict } from './migrations.js';
import { redactUrl } from './redact-url.js';

/** What to do about a PostgreSQL connection that failed, by its error. */
function postgresFailure(error: unknown, where: string, timeoutMs: number): CheckResult {
  const name = 'database';
  const code = errorCode(error);
  const reach = 'start PostgreSQL there, or unset DATABASE_URL to use the embedded SQLite file';
  switch (code) {
    case 'ECONNREFUSED':
      return fail(name, `${where}: connection refused (nothing listens there)`, reach);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return fail(name, `${where}: host name not found (${code})`, 'correct the host in DATABASE_URL');
    case '28P01':
    case '28000':
      return fail(name, `${where}: ${messageOf(error)}`, 'correct the user and password in DATABASE_URL');
    case '3D000':
      return fail(
        name,
        `${where}: ${messageOf(error)}`,
        'create it (createdb NAME, with -h, -p and -U as in DATABASE_URL), or name an existing one in DATABASE_URL',
      );
  }
  if (/timeout|timed out/i.test(messageOf(error))) {
    return fail(
      name,
      `${where}: no answer within ${timeoutMs} ms`,
      'check that DATABASE_URL names a PostgreSQL server reachable from this machine (address, port, firewall)',
    );
  }
  return fail(name, `${where}: ${messageOf(error)}`, reach);
}

/** The PostgreSQL server of DATABASE_URL: reachable, and its schema's migrations this webcap's. */
export function postgresCheck(url: string, schema: string): Check {
  const name = 'database';
  const where = `PostgreSQL ${redactUrl(url)}, schema ${schema}`;
  return {
    name,
    async run({ timeoutMs, closers }) {
      const client = new pg.Client({
        connectionString: url,
        connectionTimeoutMillis: timeoutMs,
        query_timeout: timeoutMs,
      });
      // A connection lost after connecting fails the query under way, which reports it.
      client.on('error', () => undefined);
      closers.add('postgres', () => client.end());
      try {
        await client.connect();
      } catch (error) {
        return postgresFailure(error, where, timeoutMs);
      }
      try {
        const version = (await client.query<{ server_version: string }>('show server_version')).rows[0]
          ?.server_version;
        const table = await client.query(
          `select 1 from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where n.nspname = $1 and c.relname = $2`,
          [schema, DEFAULT_MIGRATION_TABLE],
        );
        const applied =
          table.rowCount === 0
            ? null
            : (
                await client.query<{ name: string }>(
                  `select name from "${schema}"."${DEFAULT_MIGRATION_TABLE}"`,
                )
              ).rows.map((row) => row.name);
        return migrationVerdict(name, `${where} (server ${version?.split(' ')[0] ?? 'unknown'})`, applied);
      } catch (error) {
        return postgresFailure(error, where, timeoutMs);
      }
    },
  };
}
