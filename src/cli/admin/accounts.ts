import { Command } from 'commander';
import type { accountJson } from '../../admin/json.js';
import { type AdminCli, operations } from './admin-cli.js';
import { bool, type CLEAR, cleared, count, limit } from './options.js';

interface AccountOptions {
  name?: string;
  slug?: string;
  active?: boolean;
  stats?: boolean;
  monthlyQuota?: number | typeof CLEAR;
  perSecond?: number | typeof CLEAR;
  perMinute?: number | typeof CLEAR;
  billingAnchor?: string;
}

function limitsOf(opts: AccountOptions) {
  return {
    monthlyQuota: cleared(opts.monthlyQuota),
    perSecond: cleared(opts.perSecond),
    perMinute: cleared(opts.perMinute),
  };
}

function describeAccount(a: ReturnType<typeof accountJson>): string {
  const quota = a.monthly_quota ?? 'no plan';
  return `${a.slug}\t${a.name}\t${a.active ? 'active' : 'inactive'}\tmonthly quota ${quota}\tid ${a.id}`;
}

/** `webcap admin accounts create|list|show|webhook-secret|update`. */
export function accountsCommand({ run }: AdminCli): Command {
  const accounts = new Command('accounts').description('accounts');
  accounts
    .command('create')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--slug <slug>', 'identifier (a-z, 0-9, -)')
    .option('--monthly-quota <n>', 'calls per billing period', count)
    .option('--per-second <n>', 'cap on billable calls per second', count)
    .option('--per-minute <n>', 'cap on billable calls per minute', count)
    .option('--stats', 'enable GET /v1/stats')
    .option('--billing-anchor <date>', 'start of the first billing period (ISO 8601)')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, opts: AccountOptions & { name: string; slug: string }) => {
        const { createAccount, accountJson } = await operations();
        const account = await createAccount(admin, {
          name: opts.name,
          slug: opts.slug,
          ...limitsOf(opts),
          statsEnabled: opts.stats,
          billingAnchor: opts.billingAnchor,
        });
        const json = accountJson(account);
        print(json, `created account ${describeAccount(json)}`);
      }),
    );
  accounts
    .command('list')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print) => {
        const { listAccounts, accountJson } = await operations();
        const list = (await listAccounts(admin)).map(accountJson);
        print({ accounts: list }, list.map(describeAccount).join('\n') || 'no accounts');
      }),
    );
  accounts
    .command('show <slug>')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, slug: string) => {
        const { showAccount, accountJson } = await operations();
        const json = accountJson(await showAccount(admin, slug));
        print(json, describeAccount(json));
      }),
    );
  accounts
    .command('webhook-secret <slug>')
    .description("show the account's webhook signing secret (generated on first use)")
    .option('--rotate', 'replace it with a new one first')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, slug: string, opts: { rotate?: boolean }) => {
        const { rotateWebhookSecret, showWebhookSecret, webhookSecretJson } = await operations();
        const secret = opts.rotate
          ? await rotateWebhookSecret(admin, slug)
          : await showWebhookSecret(admin, slug);
        print(webhookSecretJson(secret), secret.secret);
      }),
    );
  accounts
    .command('update <slug>')
    .option('--name <name>', 'display name')
    .option('--active <bool>', 'true or false', bool)
    .option('--stats <bool>', 'enable GET /v1/stats: true or false', bool)
    .option('--monthly-quota <n>', 'calls per billing period, or none', limit)
    .option('--per-second <n>', 'cap per second, or none', limit)
    .option('--per-minute <n>', 'cap per minute, or none', limit)
    .option('--billing-anchor <date>', 'start of billing periods (ISO 8601)')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, slug: string, opts: AccountOptions) => {
        const { updateAccount, accountJson } = await operations();
        const account = await updateAccount(admin, slug, {
          name: opts.name,
          active: opts.active,
          statsEnabled: opts.stats,
          ...limitsOf(opts),
          billingAnchor: opts.billingAnchor,
        });
        const json = accountJson(account);
        print(json, `updated account ${describeAccount(json)}`);
      }),
    );
  return accounts;
}
