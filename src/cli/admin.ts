import { Command, InvalidArgumentError } from 'commander';
import {
  createAccount,
  listAccounts,
  rotateWebhookSecret,
  showAccount,
  showWebhookSecret,
  updateAccount,
} from '../admin/accounts.js';
import { CLI_ACTOR, readAudit } from '../admin/audit.js';
import { addPack, grantCredits, listPacks, showLedger } from '../admin/balances.js';
import type { AdminDeps } from '../admin/deps.js';
import {
  accountJson,
  auditEntryJson,
  createdKeyJson,
  createdUserJson,
  grantJson,
  keyJson,
  ledgerJson,
  packJson,
  userJson,
  webhookSecretJson,
} from '../admin/json.js';
import { createKey, listKeys, revokeKey, showKey, updateKey } from '../admin/keys.js';
import { createUser, deleteUser, listUsers, resetPassword, updateUser } from '../admin/users.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config.js';
import { openStore } from '../store/db.js';
import type { ConsoleRole } from '../store/schema.js';
import { UsageError } from './cli-errors.js';

function count(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError('expected a non-negative integer');
  return Number(raw);
}

function positive(raw: string): number {
  const n = count(raw);
  if (n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

const CLEAR = 'none';

/** A limit that may be cleared: a count, or `none` (commander turns a parser's null into '', so keep the word). */
function limit(raw: string): number | typeof CLEAR {
  return raw === CLEAR ? CLEAR : count(raw);
}

/** Turns the `none` of a clearable option into null. */
function cleared<T>(value: T | typeof CLEAR | undefined): T | null | undefined {
  return value === CLEAR ? null : value;
}

function bool(raw: string): boolean {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new InvalidArgumentError('expected true or false');
}

function expiry(raw: string): string {
  return raw === 'never' ? CLEAR : raw;
}

/** Where a command's result goes (process.stdout in the process). */
export type Write = (text: string) => void;

type Print = (value: unknown, human: string) => void;

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

interface KeyOptions {
  account?: string;
  alias?: string;
  category?: string;
  active?: boolean;
  expires?: string;
  quotaTotal?: number | typeof CLEAR;
  quotaDaily?: number | typeof CLEAR;
  quotaWeekly?: number | typeof CLEAR;
  quotaMonthly?: number | typeof CLEAR;
}

function quotasOf(opts: KeyOptions) {
  return {
    total: cleared(opts.quotaTotal),
    daily: cleared(opts.quotaDaily),
    weekly: cleared(opts.quotaWeekly),
    monthly: cleared(opts.quotaMonthly),
  };
}

function limitsOf(opts: AccountOptions) {
  return {
    monthlyQuota: cleared(opts.monthlyQuota),
    perSecond: cleared(opts.perSecond),
    perMinute: cleared(opts.perMinute),
  };
}

/** Runs one admin operation against the configured database and prints its result to `stdout`. */
function action<A extends unknown[]>(
  config: () => Config,
  stdout: Write,
  run: (admin: AdminDeps, print: Print, ...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const command = args[args.length - 1] as Command;
    const json = command.optsWithGlobals().json === true;
    const print: Print = (value, human) => {
      stdout(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
    };
    const { database, sqliteBusyTimeoutMs, jobs } = config();
    const store = await openStore(database, { sqliteBusyTimeoutMs });
    try {
      await run(
        { db: store.db, clock: systemClock, jobRetentionMs: jobs.retentionMs, actor: CLI_ACTOR },
        print,
        ...args,
      );
    } finally {
      await store.close();
    }
  };
}

function describeAccount(a: ReturnType<typeof accountJson>): string {
  const quota = a.monthly_quota ?? 'no plan';
  return `${a.slug}\t${a.name}\t${a.active ? 'active' : 'inactive'}\tmonthly quota ${quota}\tid ${a.id}`;
}

function describePack(p: ReturnType<typeof packJson>): string {
  return `${p.id}\t${p.account}\t${p.title}\t${p.used}/${p.total} used\tpurchased ${p.purchased_at}`;
}

function describeUser(u: ReturnType<typeof userJson>): string {
  const where = u.account === null ? 'operator' : `${u.account.slug} ${u.role}`;
  return `${u.id}\t${u.email}\t${u.name}\t${where}\t${u.active ? 'active' : 'inactive'}`;
}

function describeAudit(e: ReturnType<typeof auditEntryJson>): string {
  const who = e.actor.email ?? e.actor.kind;
  return `${e.at}\t${e.action}\t${who}\t${e.account ?? '-'}\t${e.target ?? '-'}\t${JSON.stringify(e.detail)}`;
}

/** Passwords are never taken from an argument: `ps` shows those to every user of the machine. */
const PASSWORD_STDIN = [
  '--password-stdin',
  'read the password from standard input (else one is generated and printed once)',
] as const;

function role(raw: string): ConsoleRole {
  if (raw === 'owner' || raw === 'member' || raw === 'operator') return raw;
  throw new InvalidArgumentError('expected owner, member or operator');
}

function describeKey(k: ReturnType<typeof keyJson>): string {
  const state = k.revoked_at ? 'revoked' : k.active ? 'active' : 'inactive';
  return `${k.id}\t${k.account}\t${k.alias}\t${k.category}\t${k.prefix}…\t${state}\texpires ${k.expires_at ?? 'never'}`;
}

/**
 * `webcap admin ...`: src/admin's operations on the service's database, from the command line.
 * Results go to `stdout`; failures are thrown (WebcapError, ConfigError) for the caller to report.
 */
export function adminCommand(
  config: () => Config,
  stdout: Write,
  stdin: () => Promise<string> = async () => '',
): Command {
  /** The password piped in (`--password-stdin`): its one trailing line break is not part of it. */
  const passwordFromStdin = async (wanted: boolean | undefined): Promise<string | undefined> => {
    if (wanted !== true) return undefined;
    return (await stdin()).replace(/\r?\n$/, '');
  };
  const run = <A extends unknown[]>(op: (admin: AdminDeps, print: Print, ...args: A) => Promise<void>) =>
    action(config, stdout, op);
  const admin = new Command('admin')
    .description('manage accounts, API keys, packs, credits and console users; read the audit log')
    .option('--json', 'print JSON');

  const accounts = admin.command('accounts').description('accounts');
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
        const list = (await listAccounts(admin)).map(accountJson);
        print({ accounts: list }, list.map(describeAccount).join('\n') || 'no accounts');
      }),
    );
  accounts
    .command('show <slug>')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, slug: string) => {
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

  const keys = admin.command('keys').description('API keys');
  keys
    .command('create')
    .requiredOption('--account <slug>', 'owning account')
    .option('--alias <alias>', 'friendly name')
    .option('--category <category>', 'development, production, ...', 'development')
    .option('--expires <date>', 'expiry (ISO 8601)')
    .option('--quota-total <n>', 'billable calls ever', count)
    .option('--quota-daily <n>', 'billable calls per UTC day', count)
    .option('--quota-weekly <n>', 'billable calls per UTC week', count)
    .option('--quota-monthly <n>', 'billable calls per UTC month', count)
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, opts: KeyOptions & { account: string }) => {
        const created = await createKey(admin, {
          accountSlug: opts.account,
          alias: opts.alias,
          category: opts.category,
          expiresAt: cleared(opts.expires),
          quotas: quotasOf(opts),
        });
        const json = createdKeyJson(created);
        print(
          json,
          `created key ${describeKey(json)}\n\n  ${created.plaintext}\n\nThe key is shown only this once.`,
        );
      }),
    );
  keys
    .command('list')
    .option('--account <slug>', 'only this account')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, opts: { account?: string }) => {
        const list = (await listKeys(admin, { accountSlug: opts.account })).map(keyJson);
        print({ keys: list }, list.map(describeKey).join('\n') || 'no keys');
      }),
    );
  keys
    .command('update <id>')
    .option('--alias <alias>', 'friendly name')
    .option('--category <category>', 'development, production, ...')
    .option('--active <bool>', 'true or false', bool)
    .option('--expires <date>', 'expiry (ISO 8601), or never', expiry)
    .option('--quota-total <n>', 'or none', limit)
    .option('--quota-daily <n>', 'or none', limit)
    .option('--quota-weekly <n>', 'or none', limit)
    .option('--quota-monthly <n>', 'or none', limit)
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, id: string, opts: KeyOptions) => {
        const json = keyJson(
          await updateKey(admin, id, {
            alias: opts.alias,
            category: opts.category,
            active: opts.active,
            expiresAt: cleared(opts.expires),
            quotas: quotasOf(opts),
          }),
        );
        print(json, `updated key ${describeKey(json)}`);
      }),
    );
  keys
    .command('revoke <id>')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, id: string) => {
        const json = keyJson(await revokeKey(admin, id));
        print(json, `revoked key ${describeKey(json)}`);
      }),
    );
  keys
    .command('show <id>')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, id: string) => {
        const json = keyJson(await showKey(admin, id));
        print(json, describeKey(json));
      }),
    );

  const packs = admin.command('packs').description('one-time credit packs, drawn after the subscription');
  packs
    .command('add')
    .requiredOption('--account <slug>', 'owning account')
    .requiredOption('--total <n>', 'calls in the pack', positive)
    .option('--title <title>', 'shown in GET /v1/usage')
    .option('--purchased-at <date>', 'purchase time (ISO 8601), which orders the draw; default now')
    .option('--json', 'print JSON')
    .action(
      run(
        async (
          admin,
          print,
          opts: { account: string; total: number; title?: string; purchasedAt?: string },
        ) => {
          const json = packJson(
            await addPack(admin, {
              accountSlug: opts.account,
              total: opts.total,
              title: opts.title,
              purchasedAt: opts.purchasedAt,
            }),
          );
          print(json, `added pack ${describePack(json)}`);
        },
      ),
    );
  packs
    .command('list')
    .requiredOption('--account <slug>', 'owning account')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, opts: { account: string }) => {
        const list = (await listPacks(admin, opts.account)).map(packJson);
        print({ packs: list }, list.map(describePack).join('\n') || 'no packs');
      }),
    );

  const credits = admin.command('credits').description('credits, drawn after the subscription and packs');
  credits
    .command('grant')
    .requiredOption('--account <slug>', 'receiving account')
    .requiredOption('--amount <n>', 'calls granted', positive)
    .option('--note <note>', 'why, for the ledger')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, opts: { account: string; amount: number; note?: string }) => {
        const grant = grantJson(
          await grantCredits(admin, { accountSlug: opts.account, amount: opts.amount, note: opts.note }),
        );
        print(
          grant,
          `granted ${grant.amount} credits to ${grant.account} (given ${grant.credits.given}, consumed ${grant.credits.consumed})`,
        );
      }),
    );

  const users = admin
    .command('users')
    .description("console users: an account's owners and members, and operators");
  users
    .command('create')
    .requiredOption('--email <email>', 'sign-in email (case-insensitive, unique)')
    .requiredOption('--role <role>', 'owner, member or operator', role)
    .option('--account <slug>', 'the account of an owner or member')
    .option('--name <name>', 'display name (default: the part of the email before @)')
    .option(...PASSWORD_STDIN)
    .option('--json', 'print JSON')
    .action(
      run(
        async (
          admin,
          print,
          opts: {
            email: string;
            role: ConsoleRole;
            account?: string;
            name?: string;
            passwordStdin?: boolean;
          },
        ) => {
          const created = await createUser(admin, {
            email: opts.email,
            role: opts.role,
            accountSlug: opts.account,
            name: opts.name,
            password: await passwordFromStdin(opts.passwordStdin),
          });
          const json = createdUserJson(created);
          const shown =
            created.password === null
              ? ''
              : `\n\n  ${created.password}\n\nThe password is shown only this once.`;
          print(json, `created user ${describeUser(json)}${shown}`);
        },
      ),
    );
  users
    .command('list')
    .option('--account <slug>', 'only this account')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, opts: { account?: string }) => {
        const list = (await listUsers(admin, { accountSlug: opts.account })).map(userJson);
        print({ users: list }, list.map(describeUser).join('\n') || 'no users');
      }),
    );
  users
    .command('update <id>')
    .option('--name <name>', 'display name')
    .option('--role <role>', 'owner or member (within the account), or operator', role)
    .option('--active <bool>', 'true or false (false ends their sessions)', bool)
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, id: string, opts: { name?: string; role?: ConsoleRole; active?: boolean }) => {
        const json = userJson(await updateUser(admin, id, opts));
        print(json, `updated user ${describeUser(json)}`);
      }),
    );
  users
    .command('reset-password <id>')
    .description('set a new password and end every session of the user')
    .option(...PASSWORD_STDIN)
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, id: string, opts: { passwordStdin?: boolean }) => {
        const reset = await resetPassword(admin, id, await passwordFromStdin(opts.passwordStdin));
        const json = {
          ...userJson(reset.user),
          ...(reset.password === null ? {} : { password: reset.password }),
        };
        const shown =
          reset.password === null ? '' : `\n\n  ${reset.password}\n\nThe password is shown only this once.`;
        print(json, `reset the password of ${describeUser(json)}${shown}`);
      }),
    );
  users
    .command('delete <id>')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, id: string) => {
        await deleteUser(admin, id);
        print({ deleted: id }, `deleted user ${id}`);
      }),
    );

  admin
    .command('audit')
    .description('the audit log, newest first: who did what, from the console, the admin API and this CLI')
    .option('--account <slug>', 'only this account')
    .option('--action <action>', 'only this action (key.create, session.sign_in, ...)')
    .option('--limit <n>', 'entries to show (at most 200)', positive, 50)
    .option('--before <cursor>', "the previous page's next")
    .option('--json', 'print JSON')
    .action(
      run(
        async (admin, print, opts: { account?: string; action?: string; limit: number; before?: string }) => {
          if (opts.limit > 200) throw new UsageError('--limit must be at most 200');
          const page = await readAudit(
            admin,
            { accountSlug: opts.account, action: opts.action },
            { limit: opts.limit, before: opts.before },
          );
          const entries = page.items.map(auditEntryJson);
          const more = page.next === null ? '' : `\nmore: --before ${page.next}`;
          print({ entries, next: page.next }, (entries.map(describeAudit).join('\n') || 'no entries') + more);
        },
      ),
    );

  admin
    .command('ledger <slug>')
    .description("an account's reserved units, newest first")
    .option('--limit <n>', 'rows to show', positive, 50)
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, slug: string, opts: { limit: number }) => {
        const ledger = ledgerJson(await showLedger(admin, slug, opts.limit));
        const c = ledger.totals.committed;
        const head = `billed: subscription ${c.subscription}, packs ${c.pack}, credits ${c.credit}; in flight ${ledger.totals.reserved}; released ${ledger.totals.released}`;
        const lines = ledger.entries.map(
          (e) =>
            `${e.created_at}\t${e.engine}\t${e.source}${e.pack_id ? ` ${e.pack_id}` : ''}\t${e.status}\tkey ${e.key_id}`,
        );
        print(ledger, [head, ...lines].join('\n'));
      }),
    );
  return admin;
}
