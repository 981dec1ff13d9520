import { Command } from 'commander';
import type { packJson } from '../../admin/json.js';
import { type AdminCli, operations } from './admin-cli.js';
import { positive } from './options.js';

function describePack(p: ReturnType<typeof packJson>): string {
  return `${p.id}\t${p.account}\t${p.title}\t${p.used}/${p.total} used\tpurchased ${p.purchased_at}`;
}

/** `webcap admin packs add|list`. */
export function packsCommand({ run }: AdminCli): Command {
  const packs = new Command('packs').description('one-time credit packs, drawn after the subscription');
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
          const { addPack, packJson } = await operations();
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
        const { listPacks, packJson } = await operations();
        const list = (await listPacks(admin, opts.account)).map(packJson);
        print({ packs: list }, list.map(describePack).join('\n') || 'no packs');
      }),
    );
  return packs;
}
