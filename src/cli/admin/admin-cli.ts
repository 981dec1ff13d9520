import type { Command } from 'commander';
import { CLI_ACTOR } from '../../admin/audit.js';
import type { AdminDeps } from '../../admin/deps.js';
import { keySecretSealer } from '../../billing/signing-secrets.js';
import { systemClock } from '../../clock.js';
import type { Config } from '../../config.js';
import { openStore } from '../../store/db.js';
import { resolveSigningSecret } from '../../store/signing-secret.js';
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
