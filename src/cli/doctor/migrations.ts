import { migrationProvider } from '../../store/migrations.js';
import { type CheckResult, fail, ok, warn } from './check.js';

/** The migrations this webcap knows, in the order they run. */
async function knownMigrations(): Promise<string[]> {
  return Object.keys(await migrationProvider.getMigrations()).sort();
}

/** The verdict on a database whose applied migrations are `applied` (null: none of our tables yet). */
export async function migrationVerdict(
  name: string,
  where: string,
  applied: string[] | null,
): Promise<CheckResult> {
  const known = await knownMigrations();
  if (applied === null) {
    return ok(name, `${where}: empty; \`webcap serve\` creates the tables at first start`);
  }
  const unknown = applied.filter((migration) => !known.includes(migration));
  if (unknown.length > 0) {
    return fail(
      name,
      `${where}: migrated by a newer webcap (${unknown.join(', ')} unknown to this one)`,
      'run the webcap version that migrated it, or upgrade this one',
    );
  }
  const pending = known.filter((migration) => !applied.includes(migration));
  if (pending.length > 0) {
    return warn(
      name,
      `${where}: ${pending.length} migration${pending.length === 1 ? '' : 's'} pending (${pending.join(', ')})`,
      '`webcap serve` (or any `webcap admin` command) applies them at start: back the database up first',
    );
  }
  return ok(name, `${where}: reachable, all ${known.length} migrations applied`);
}
