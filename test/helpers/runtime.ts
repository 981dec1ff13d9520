import { Writable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { createAccount } from '../../src/billing/accounts.js';
import { createKey } from '../../src/billing/keys.js';
import type { BrowserPool } from '../../src/browser/pool.js';
import { metered } from '../../src/calls/metering.js';
import type { Clock } from '../../src/clock.js';
import { type Config, loadConfig } from '../../src/config.js';
import { callerOf } from '../../src/http/auth.js';
import { createLogger } from '../../src/logging.js';
import type { Resolver } from '../../src/net/resolve.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { type DialectName, databaseEnv, dropDatabase, freshDatabase, tempDir } from './databases.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestRuntime {
  readonly runtime: Runtime;
  readonly config: Config;
  readonly dataDir: string;
  /** Every log line the runtime wrote, as written. */
  readonly logs: string[];
  close(): Promise<void>;
}

/**
 * A runtime on a fresh database of the dialect, logging into memory; the app is not listening.
 * With `sharing`, it opens that runtime's database and data directory instead, as a second
 * process beside it would (or the same process restarted), and its close leaves them to it.
 */
export async function startTestRuntime(
  dialect: DialectName,
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    resolver?: Resolver;
    consoleDir?: string;
    sharing?: TestRuntime;
  } = {},
): Promise<TestRuntime> {
  const dataDir = options.sharing?.dataDir ?? tempDir();
  const database = options.sharing?.config.database ?? freshDatabase(dialect, dataDir);
  const config = loadConfig({
    ...databaseEnv(database, dataDir),
    WEBCAP_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    ...options.env,
  });
  const { logger, logs } = memoryLogger();
  const runtime = await createRuntime(config, {
    logger,
    clock: options.clock,
    resolver: options.resolver,
    consoleDir: options.consoleDir,
  });
  return {
    runtime,
    config,
    dataDir,
    logs,
    async close() {
      await runtime.close();
      if (options.sharing === undefined) await dropDatabase(config.database);
    },
  };
}

/** A logger at info whose JSON lines are kept, in order, in `logs`. */
export function memoryLogger(): { readonly logger: Logger; readonly logs: string[] } {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger('info', sink), logs };
}

/** The runtime's browser pool, as the capture engine holds it. */
export function browserPool(runtime: Runtime): BrowserPool {
  return runtime.calls.capture.pool;
}

/**
 * The pid of the browser new calls go to: once the pool's current browser is up (a launch under
 * way, after a crash or a recycle, is waited for), the pid its `browser launched` log line names.
 */
export async function browserPid(runtime: Runtime, logs: readonly string[]): Promise<number> {
  await browserPool(runtime).warmUp();
  for (let i = logs.length - 1; i >= 0; i--) {
    const launched = /"browserPid":(\d+),"msg":"browser launched"/.exec(logs[i] as string);
    if (launched !== null) return Number(launched[1]);
  }
  throw new Error('no browser launched in the log');
}

/** A new account named after its slug with a monthly quota, and one key on it; returns the key. */
export async function newAccountKey(
  t: TestRuntime,
  slug: string,
  monthlyQuota: number,
  options: { readonly statsEnabled?: boolean; readonly now?: Date } = {},
): Promise<string> {
  const { db } = t.runtime.store;
  const now = options.now ?? new Date();
  await createAccount(
    db,
    { name: slug, slug, monthlyQuota, statsEnabled: options.statsEnabled ?? false },
    now,
  );
  return (await createKey(db, { accountSlug: slug }, now)).plaintext;
}

/**
 * What a billable route does, for the tests' probe routes: runs `work` through the metering
 * path for the request's caller and records whether it was billed.
 */
export async function meteredProbe<T>(
  t: TestRuntime,
  request: FastifyRequest,
  work: () => Promise<T>,
): Promise<T> {
  const { value, billed } = await metered(t.runtime.calls.metering, callerOf(request), 'probe', work);
  request.billed = billed;
  return value;
}

/** The account's reservation rows, counted by status. */
export async function reservationsOf(
  t: TestRuntime,
  slug: string,
): Promise<{ reserved: number; committed: number; released: number }> {
  const { db } = t.runtime.store;
  const account = await db
    .selectFrom('accounts')
    .select('id')
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('reservations')
    .select('status')
    .where('account_id', '=', account.id)
    .execute();
  const count = (status: string) => rows.filter((row) => row.status === status).length;
  return { reserved: count('reserved'), committed: count('committed'), released: count('released') };
}
