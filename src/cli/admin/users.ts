import { Command, InvalidArgumentError } from 'commander';
import type { userJson } from '../../admin/json.js';
import type { ConsoleRole } from '../../store/schema.js';
import { type AdminCli, operations } from './admin-cli.js';
import { bool } from './options.js';

function describeUser(u: ReturnType<typeof userJson>): string {
  const where = u.account === null ? 'operator' : `${u.account.slug} ${u.role}`;
  return `${u.id}\t${u.email}\t${u.name}\t${where}\t${u.active ? 'active' : 'inactive'}`;
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

/** `webcap admin users create|list|update|reset-password|delete`: console users. */
export function usersCommand({ run, stdin }: AdminCli): Command {
  /** The password piped in (`--password-stdin`): its one trailing line break is not part of it. */
  const passwordFromStdin = async (wanted: boolean | undefined): Promise<string | undefined> => {
    if (wanted !== true) return undefined;
    return (await stdin()).replace(/\r?\n$/, '');
  };
  const users = new Command('users').description(
    "console users: an account's owners and members, and operators",
  );
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
          const { createUser, createdUserJson } = await operations();
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
        const { userJson, listUsers } = await operations();
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
        const { userJson, updateUser } = await operations();
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
        const { userJson, resetPassword } = await operations();
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
        const { deleteUser } = await operations();
        await deleteUser(admin, id);
        print({ deleted: id }, `deleted user ${id}`);
      }),
    );
  return users;
}
