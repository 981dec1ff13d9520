import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config.js';

/** PostgreSQL for tests: `make test` exports TEST_DATABASE_URL (a private server when none runs). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type DialectName = DatabaseConfig['kind'];

/** The service's secret of tests that build admin operations' deps by hand (WEBCAP_SIGNING_SECRET's place). */
export const TEST_SERVICE_SECRET = 'a-service-secret-of-at-least-32-characters';

/** Every storage test runs once per dialect. */
export const DIALECTS: readonly DialectName[] = ['sqlite', 'postgres'];

const made = new Set<string>();

/** A new directory under the system's temp dir, removed after the test file (test/setup.ts). */
export function tempDir(prefix = 'webcap-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory tempDir made in this test file. */
export function removeTempDirs(): void {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  made.clear();
}

/** A fresh, empty database of the dialect: a new SQLite file, or a new PostgreSQL schema. */
export function freshDatabase(dialect: DialectName, dataDir = tempDir()): DatabaseConfig {
  if (dialect === 'sqlite') return { kind: 'sqlite', file: path.join(dataDir, 'webcap.sqlite') };
  const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  return { kind: 'postgres', url: TEST_DATABASE_URL, schema };
}

/** The environment variables that select the same database (for CLI and server processes). */
export function databaseEnv(database: DatabaseConfig, dataDir: string): Record<string, string> {
  return database.kind === 'sqlite'
    ? { WEBCAP_DATA_DIR: dataDir }
    : { WEBCAP_DATA_DIR: dataDir, DATABASE_URL: database.url, DATABASE_SCHEMA: database.schema };
}

/** Removes what freshDatabase made on PostgreSQL; SQLite files go with their temp dir. */
export async function dropDatabase(database: DatabaseConfig): Promise<void> {
  if (database.kind !== 'postgres') return;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${database.schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
