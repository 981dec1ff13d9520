import { Command } from 'commander';
import { type AdminCli, operations } from './admin-cli.js';
import { positive } from './options.js';

/** `webcap admin ledger <slug>`: an account's reserved units and their totals. */
export function ledgerCommand({ run }: AdminCli): Command {
  return new Command('ledger')
    .argument('<slug>')
    .description("an account's reserved units, newest first")
    .option('--limit <n>', 'rows to show', positive, 50)
    .option('--json', 'print JSON')
    .action(
      run(async (admin, print, slug: string, opts: { limit: number }) => {
        const { showLedger, ledgerJson } = await operations();
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
}
