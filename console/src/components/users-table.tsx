import type { ConsoleUser } from '../api/types.ts';
import { formatTime } from '../app/format.ts';
import { Badge } from './badge.tsx';

/** People of an account, with the actions the caller offers for each. */
export function UsersTable({
  users,
  actions,
}: {
  readonly users: readonly ConsoleUser[];
  readonly actions?: (user: ConsoleUser) => preact.ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class="table" data-testid="users">
        <caption class="visually-hidden">The account’s people</caption>
        <thead>
          <tr>
            <th scope="col">Person</th>
            <th scope="col">Role</th>
            <th scope="col">State</th>
            <th scope="col">Last sign-in</th>
            {actions !== undefined && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.id} data-user-email={user.email}>
              <td>
                <span class="strong">{user.name || user.email}</span>
                <span class="sub">{user.email}</span>
              </td>
              <td data-label="Role">{user.role}</td>
              <td data-label="State">
                {user.active ? <Badge tone="good">active</Badge> : <Badge tone="neutral">inactive</Badge>}
              </td>
              <td class="nowrap" data-label="Last sign-in">
                {formatTime(user.last_sign_in_at)}
              </td>
              {actions !== undefined && (
                <td>
                  <div class="row-actions">{actions(user)}</div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
