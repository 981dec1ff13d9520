import { Command } from 'commander';
import type { keyJson } from '../../admin/json.js';
import { type AdminCli, operations } from './admin-cli.js';
import { bool, type CLEAR, cleared, count, expiry, limit } from './options.js';

interface KeyOptions {
  account?: string;
  alias?: string;
  category?: string;
  active?: boolean;
  signedOnly?: boolean;
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

function describeKey(k: ReturnType<typeof keyJson>): string {
  const state = k.revoked_at ? 'revoked' : k.active ? 'active' : 'inactive';
  const signed = k.signed_only ? '\tsigned only' : '';
  return `${k.id}\t${k.account}\t${k.alias}\t${k.category}\t${k.prefix}…\t${state}\texpires ${k.expires_at ?? 'never'}${signed}`;
}

/** `webcap admin keys create|list|update|revoke|show|rotate-signing-secret`. */
export function keysCommand({ run }: AdminCli): Command {
  const keys = new Command('keys').description('API keys');
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
    .option('--signed-only', 'refuse the key in a query string: only signed links and the header')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, opts: KeyOptions & { account: string }) => {
        const { createdKeyJson, createKey } = await operations();
        const created = await createKey(admin, {
          accountSlug: opts.account,
          alias: opts.alias,
          category: opts.category,
          expiresAt: cleared(opts.expires),
          quotas: quotasOf(opts),
          signedOnly: opts.signedOnly === true,
        });
        const json = createdKeyJson(created);
        print(
          json,
          `created key ${describeKey(json)}\n\n  ${created.plaintext}\n\nsigning secret (signed links):\n\n  ${created.signingSecret}\n\nThe key and its signing secret are shown only this once.`,
        );
      }),
    );
  keys
    .command('list')
    .option('--account <slug>', 'only this account')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, opts: { account?: string }) => {
        const { keyJson, listKeys } = await operations();
        const list = (await listKeys(admin, { accountSlug: opts.account })).map(keyJson);
        print({ keys: list }, list.map(describeKey).join('\n') || 'no keys');
      }),
    );
  keys
    .command('update <id>')
    .option('--alias <alias>', 'friendly name')
    .option('--category <category>', 'development, production, ...')
    .option('--active <bool>', 'true or false', bool)
    .option('--signed-only <bool>', 'refuse the key in a query string: true or false', bool)
    .option('--expires <date>', 'expiry (ISO 8601), or never', expiry)
    .option('--quota-total <n>', 'or none', limit)
    .option('--quota-daily <n>', 'or none', limit)
    .option('--quota-weekly <n>', 'or none', limit)
    .option('--quota-monthly <n>', 'or none', limit)
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, id: string, opts: KeyOptions) => {
        const { keyJson, updateKey } = await operations();
        const json = keyJson(
          await updateKey(admin, id, {
            alias: opts.alias,
            category: opts.category,
            active: opts.active,
            signedOnly: opts.signedOnly,
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
        const { keyJson, revokeKey } = await operations();
        const json = keyJson(await revokeKey(admin, id));
        print(json, `revoked key ${describeKey(json)}`);
      }),
    );
  keys
    .command('rotate-signing-secret <id>')
    .description("replace the key's signing secret; links signed with the old one stop working")
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, id: string) => {
        const { rotatedSigningSecretJson, rotateSigningSecret } = await operations();
        const rotated = await rotateSigningSecret(admin, id);
        const json = rotatedSigningSecretJson(rotated);
        print(
          json,
          `new signing secret for key ${describeKey(json)}\n\n  ${rotated.signingSecret}\n\nIt is shown only this once.`,
        );
      }),
    );
  keys
    .command('show <id>')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, id: string) => {
        const { keyJson, showKey } = await operations();
        const json = keyJson(await showKey(admin, id));
        print(json, describeKey(json));
      }),
    );
  return keys;
}
