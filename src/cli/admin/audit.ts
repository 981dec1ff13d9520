import { Command } from 'commander';
import type { auditEntryJson } from '../../admin/json.js';
import { UsageError } from '../cli-errors.js';
import { type AdminCli, operations } from './admin-cli.js';
import { positive } from './options.js';

function describeAudit(e: ReturnType<typeof auditEntryJson>): string {
  const who = e.actor.email ?? e.actor.kind;
  return `${e.at}\t${e.action}\t${who}\t${e.account ?? '-'}\t${e.target ?? '-'}\t${JSON.stringify(e.detail)}`;
}

/** `webcap admin audit`: the audit log, a page at a time. */
export function auditCommand({ run }: AdminCli): Command {
  return new Command('audit')
    .description('the audit log, newest first: who did what, from the console, the admin API and this CLI')
    .option('--account <slug>', 'only this account')
    .option('--action <action>', 'only this action (key.create, session.sign_in, ...)')
    .option('--limit <n>', 'entries to show (at most 200)', positive, 50)
    .option('--before <cursor>', "the previous page's next")
    .option('--json', 'print JSON')
    .action(
      run(
        async (admin, print, opts: { account?: string; action?: string; limit: number; before?: string }) => {
          const { readAudit, auditEntryJson } = await operations();
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
}
