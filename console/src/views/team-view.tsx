import { useState } from 'preact/hooks';
import { api } from '../api/api-client.ts';
import type { ConsoleUser, Invite, Page, PendingInvite } from '../api/types.ts';
import { formatTime } from '../app/format.ts';
import { useSession } from '../app/session-context.ts';
import { ViewHeader } from '../app/shell.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { Dialog } from '../components/dialog.tsx';
import { FormError, SelectInput, TextInput } from '../components/form-field.tsx';
import { Loaded } from '../components/load-state.tsx';
import { useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';
import { UsersTable } from '../components/users-table.tsx';
import { PendingInvites } from './pending-invites.tsx';

const ROLES: ReadonlyArray<readonly [string, string]> = [
  ['member', 'member: sees everything, uses the playground'],
  ['owner', 'owner: also manages keys, people and the webhook secret'],
];

/** Team, for owners: the account's people, their roles, and invitations (made, pending, withdrawn). */
export function TeamView() {
  const { session } = useSession();
  const users = useLoad(() => api<Page<ConsoleUser>>('GET', '/users'), []);
  const invites = useLoad(() => api<Page<PendingInvite>>('GET', '/invites'), []);
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<ConsoleUser | null>(null);
  const rowAction = useAction();
  const removeAction = useAction();

  const patch = async (user: ConsoleUser, body: { role?: string; active?: boolean }) => {
    await rowAction.run(() => api('PATCH', `/users/${encodeURIComponent(user.id)}`, body));
    void users.reload();
  };

  return (
    <section>
      <ViewHeader title="Team" lead="The people who sign in to this account’s console.">
        <button type="button" class="button primary" onClick={() => setInviting(true)}>
          Invite someone
        </button>
      </ViewHeader>
      <FormError error={rowAction.error} />
      <Loaded load={users} isEmpty={(page) => page.items.length === 0} empty={<p>Nobody yet.</p>}>
        {(page) => (
          <UsersTable
            users={page.items}
            actions={(user) =>
              user.id === session.user.id ? (
                <span class="muted">you</span>
              ) : (
                <>
                  <button
                    type="button"
                    class="button secondary small"
                    disabled={rowAction.busy}
                    onClick={() => void patch(user, { role: user.role === 'owner' ? 'member' : 'owner' })}
                  >
                    Make {user.role === 'owner' ? 'member' : 'owner'}
                    <span class="visually-hidden"> {user.email}</span>
                  </button>
                  <button
                    type="button"
                    class="button secondary small"
                    disabled={rowAction.busy}
                    onClick={() => void patch(user, { active: !user.active })}
                  >
                    {user.active ? 'Deactivate' : 'Activate'}
                    <span class="visually-hidden"> {user.email}</span>
                  </button>
                  <button type="button" class="button danger small" onClick={() => setRemoving(user)}>
                    Remove<span class="visually-hidden"> {user.email}</span>
                  </button>
                </>
              )
            }
          />
        )}
      </Loaded>
      <PendingInvites invites={invites} />
      {inviting && (
        <InviteDialog
          onClose={() => {
            setInviting(false);
            void invites.reload();
          }}
        />
      )}
      {removing !== null && (
        <Dialog title={`Remove ${removing.email}?`} onClose={() => setRemoving(null)}>
          <p>They can no longer sign in to this account; their sessions end now.</p>
          <FormError error={removeAction.error} />
          <div class="form-actions">
            <button type="button" class="button secondary" onClick={() => setRemoving(null)} data-autofocus>
              Cancel
            </button>
            <button
              type="button"
              class="button danger"
              disabled={removeAction.busy}
              onClick={async () => {
                const done = await removeAction.run(async () => {
                  await api('DELETE', `/users/${encodeURIComponent(removing.id)}`);
                  return true;
                });
                if (done === true) {
                  setRemoving(null);
                  void users.reload();
                }
              }}
            >
              Remove
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

/** An invitation: the link is shown once, to hand over (webcap sends no email). */
function InviteDialog({ onClose }: { readonly onClose: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [invite, setInvite] = useState<Invite | null>(null);
  const action = useAction();
  return (
    <Dialog title="Invite someone" onClose={onClose}>
      {invite === null ? (
        <form
          class="stack"
          onSubmit={async (event) => {
            event.preventDefault();
            const made = await action.run(() => api<Invite>('POST', '/invites', { email, role }));
            if (made !== undefined) setInvite(made);
          }}
        >
          <TextInput label="Email" type="email" required value={email} onValue={setEmail} data-autofocus />
          <SelectInput label="Role" value={role} onValue={setRole} options={ROLES} />
          <FormError error={action.error} />
          <div class="form-actions">
            <button type="button" class="button secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" class="button primary" disabled={action.busy}>
              Make the invitation link
            </button>
          </div>
        </form>
      ) : (
        <div class="stack">
          <p>
            Send this link to <strong>{invite.email}</strong> yourself; it works once, until{' '}
            {formatTime(invite.expires_at)}, and is not shown again.
          </p>
          <div class="secret-box">
            <label for="invite-url" class="visually-hidden">
              Invitation link
            </label>
            <input id="invite-url" class="secret" readOnly value={inviteLink(invite)} />
            <CopyButton text={inviteLink(invite)} label="Copy link" />
          </div>
          <div class="form-actions">
            <button type="button" class="button primary" onClick={onClose} data-autofocus>
              Done
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

/** The link to hand over: the server's when PUBLIC_BASE_URL is set, else its path at the address this page was opened at. */
function inviteLink(invite: Invite): string {
  return new URL(invite.invite_url, window.location.href).href;
}
