import type { Command } from 'commander';
import type { AdminDeps } from '../../admin/deps.js';
import { systemClock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Write } from '../admin.js';

/** Prints a command's result: `value` as JSON with --json, else the one-line (or few-line) human form. */
export type Print = (value: unknown, human: string) => void;

/** One admin operation, run with the database and the printer; `args` are commander's action arguments. */
export type AdminOperation<A extends unknown[]> = (
  admin: AdminDeps,
  print: Print,
  ...args: A
) => Promise<void>;

/** What each resource's commands are made with. */
export interface AdminCli {
  /** The action that runs `op` against the configured database and prints its result. */
  run<A extends unknown[]>(op: AdminOperation<A>): (...args: A) => Promise<void>;
  /** The whole standard input, read when a command asks for it (`--password-stdin`). */
  readonly stdin: () => Promise<string>;
}

/**
 * The operations the admin commands run, imported when one runs: they load the database drivers,
 * which every other command (`webcap capture`, `webcap --help`) would otherwise load at start.
 */
export async function operations() {
  const [accounts, audit, balances, json, keys, users] = await Promise.all([
    import('../../admin/accounts.js'),
    import('../../admin/audit.js'),
    import('../../admin/balances.js'),
    import('../../admin/json.js'),
    import('../../admin/keys.js'),
    import('../../admin/users.js'),
  ]);
  return { ...accounts, ...audit, ...balances, ...json, ...keys, ...users };
}

/** Runs one admin operation against the configured database and prints its result to `stdout`. */
function action<A extends unknown[]>(
  config: () => Config,
  stdout: Write,
  run: AdminOperation<A>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const command = args[args.length - 1] as Command;
    const json = command.optsWithGlobals().json === true;
    const print: Print = (value, human) => {
      stdout(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
    };
    const { database, sqliteBusyTimeoutMs, jobs, signingSecret } = config();
    // Imported here, not above: the database drivers are for the admin commands alone, and every
    // other command (`webcap capture`, `webcap --help`) would load them at start.
    const [{ CLI_ACTOR }, { keySecretSealer }, { openStore }, { resolveSigningSecret }] = await Promise.all([
      operations(),
      import('../../billing/signing-secrets.js'),
      import('../../store/db.js'),
      import('../../store/signing-secret.js'),
    ]);
    const store = await openStore(database, { sqliteBusyTimeoutMs });
    try {
      const keySecrets = keySecretSealer(await resolveSigningSecret(store.db, signingSecret));
      await run(
        {
          db: store.db,
          clock: systemClock,
          jobRetentionMs: jobs.retentionMs,
          keySecrets,
          actor: CLI_ACTOR,
        },
        print,
        ...args,
      );
    } finally {
      await store.close();
    }
  };
}

/** The admin commands' context: operations run on `config`'s database, results written to `stdout`. */
export function adminCli(config: () => Config, stdout: Write, stdin: () => Promise<string>): AdminCli {
  return { run: (op) => action(config, stdout, op), stdin };
}
