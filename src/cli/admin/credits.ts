import { Command } from 'commander';
import { type AdminCli, operations } from './admin-cli.js';
import { positive } from './options.js';

/** `webcap admin credits grant`. */
export function creditsCommand({ run }: AdminCli): Command {
  const credits = new Command('credits').description('credits, drawn after the subscription and packs');
  credits
    .command('grant')
    .requiredOption('--account <slug>', 'receiving account')
    .requiredOption('--amount <n>', 'calls granted', positive)
    .option('--note <note>', 'why, for the ledger')
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, opts: { account: string; amount: number; note?: string }) => {
        const { grantCredits, grantJson } = await operations();
        const grant = grantJson(
          await grantCredits(admin, { accountSlug: opts.account, amount: opts.amount, note: opts.note }),
        );
        print(
          grant,
          `granted ${grant.amount} credits to ${grant.account} (given ${grant.credits.given}, consumed ${grant.credits.consumed})`,
        );
      }),
    );
  return credits;
}
