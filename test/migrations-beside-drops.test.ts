import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/db.js';
import { dropDatabase, freshDatabase, TEST_DATABASE_URL } from './helpers/databases.js';

/*
 * Migrations on a PostgreSQL database whose other schemas come and go (other services, other
 * tenants, other test files): Kysely's migrator looks its tables up across every schema, and a
 * schema dropped in the middle of that lookup made the start fail with 'schema "..." does not
 * exist', naming a schema that was not ours.
 */
describe('migrations while other schemas are dropped', () => {
  const opened: Parameters<typeof dropDatabase>[0][] = [];
  afterAll(async () => {
    for (const database of opened) await dropDatabase(database);
  });

  it('every store opens and opens again, however many schemas are dropped meanwhile', async () => {
    const churn = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await churn.connect();
    let stop = false;
    // Schemas with a table each, created and dropped as fast as the server takes them.
    const churning = (async () => {
      for (let i = 0; !stop; i += 1) {
        const name = `churn_${process.pid}_${i}`;
        await churn.query(`CREATE SCHEMA "${name}"`);
        await churn.query(`CREATE TABLE "${name}".t (id int)`);
        await churn.query(`DROP SCHEMA "${name}" CASCADE`);
      }
    })();
    try {
      for (let i = 0; i < 30; i += 1) {
        const database = freshDatabase('postgres');
        opened.push(database);
        const store = await openStore(database);
        await store.close();
        // Opened again: found up to date, its data kept.
        const again = await openStore(database);
        expect(await again.db.selectFrom('accounts').select('id').execute()).toEqual([]);
        await again.close();
      }
    } finally {
      stop = true;
      await churning;
      await churn.end();
    }
    expect(opened).toHaveLength(30);
  });
});
