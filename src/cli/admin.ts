import { Command } from 'commander';
import type { Config } from '../config.js';
import { accountsCommand } from './admin/accounts.js';
import { adminCli } from './admin/admin-cli.js';
import { auditCommand } from './admin/audit.js';
import { creditsCommand } from './admin/credits.js';
import { keysCommand } from './admin/keys.js';
import { ledgerCommand } from './admin/ledger.js';
import { packsCommand } from './admin/packs.js';
import { usersCommand } from './admin/users.js';

/** Where a command's result goes (process.stdout in the process). */
export type Write = (text: string) => void;

/**
 * `webcap admin ...`: src/admin's operations on the service's database, from the command line,
 * one module per resource under admin/. Results go to `stdout`; failures are thrown (WebcapError,
 * ConfigError) for the caller to report.
 */
export function adminCommand(
  config: () => Config,
  stdout: Write,
  stdin: () => Promise<string> = async () => '',
): Command {
  const cli = adminCli(config, stdout, stdin);
  const admin = new Command('admin')
    .description('manage accounts, API keys, packs, credits and console users; read the audit log')
    .option('--json', 'print JSON');
  for (const resource of [
    accountsCommand,
    keysCommand,
    packsCommand,
    creditsCommand,
    usersCommand,
    auditCommand,
    ledgerCommand,
  ]) {
    admin.addCommand(resource(cli));
  }
  return admin;
}
