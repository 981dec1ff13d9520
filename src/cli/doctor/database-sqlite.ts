import fs from 'node:fs/promises';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { DEFAULT_MIGRATION_TABLE } from 'kysely';
import { type Check, errorCode, fail, messageOf } from './check.js';
import { migrationVerdict } from './migrations.js';
import { writableOrCreatable } from './writable.js';

/** The embedded SQLite file: writable (or creatable), readable, and its migrations this webcap's. */
export function sqliteCheck(file: string): Check {
  const name = 'database';
  return {
    name,
    async run({ closers }) {
      try {
        await fs.access(file);
      } catch {
        const why = await writableOrCreatable(path.dirname(file));
        if (why !== null) {
          return fail(
            name,
            `SQLite file ${file} cannot be created: ${why}`,
            'set WEBCAP_DATA_DIR to a directory this user may write in',
          );
        }
        return migrationVerdict(name, `SQLite ${file}`, null);
      }
      try {
        await fs.access(file, fs.constants.W_OK);
      } catch (error) {
        return fail(
          name,
          `SQLite ${file} is not writable by this user (${errorCode(error)})`,
          'run webcap as the user that owns it, or chown it (and its -wal and -shm files)',
        );
      }
      let applied: string[] | null;
      try {
        // Read-only: the doctor reads the migrations table and changes nothing.
        const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
        closers.add('sqlite', () => db.close());
        const table = db
          .prepare("select name from sqlite_master where type = 'table' and name = ?")
          .get(DEFAULT_MIGRATION_TABLE);
        applied =
          table === undefined
            ? null
            : db
                .prepare(`select name from "${DEFAULT_MIGRATION_TABLE}"`)
                .all()
                .map((row) => (row as { name: string }).name);
      } catch (error) {
        return fail(
          name,
          `SQLite ${file} cannot be read: ${messageOf(error)}`,
          'move the file aside (webcap then starts with an empty database) or restore it from a backup',
        );
      }
      return migrationVerdict(name, `SQLite ${file}`, applied);
    },
  };
}
