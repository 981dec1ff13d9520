import { useRef } from 'preact/hooks';
import { api } from '../api/api-client.ts';
import type { Page, PendingInvite } from '../api/types.ts';
import { formatTime } from '../app/format.ts';
import { FormError } from '../components/form-field.tsx';
import { Loaded } from '../components/load-state.tsx';
import { refocusIfLost } from '../components/refocus.ts';
import { useAction } from '../components/use-action.ts';
import type { useLoad } from '../components/use-load.ts';

/** The invitations made and not yet used, for owners: who, as what, by whom, until when; withdraw one. */
export function PendingInvites({
  invites,
}: {
  readonly invites: ReturnType<typeof useLoad<Page<PendingInvite>>>;
}) {
  const withdraw = useAction();
  const heading = useRef<HTMLHeadingElement>(null);
  return (
    <section aria-labelledby="pending-title">
      <h2 id="pending-title" tabIndex={-1} ref={heading}>
        Pending invitations
      </h2>
      <p class="muted">Links made and not used yet. Withdrawing one makes its link stop working.</p>
      <FormError error={withdraw.error} />
      <Loaded
        load={invites}
        isEmpty={(page) => page.items.length === 0}
        empty={<p>No invitation is waiting.</p>}
      >
        {(page) => (
          <div class="table-wrap">
            <table class="table" data-testid="invites">
              <caption class="visually-hidden">Invitations not used yet</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Invited by</th>
                  <th scope="col">Made</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((invite) => (
                  <tr key={invite.id} data-invite-email={invite.email}>
                    <td class="strong">{invite.email}</td>
                    <td data-label="Role">{invite.role}</td>
                    <td data-label="Invited by">
                      {invite.invited_by === null ? '—' : invite.invited_by.name || invite.invited_by.email}
                    </td>
                    <td class="nowrap" data-label="Made">
                      {formatTime(invite.created_at)}
                    </td>
                    <td class="nowrap" data-label="Expires">
                      {formatTime(invite.expires_at)}
                    </td>
                    <td>
                      <div class="row-actions">
                        <button
                          type="button"
                          class="button danger small"
                          disabled={withdraw.busy}
                          onClick={async () => {
                            await withdraw.run(() =>
                              api('DELETE', `/invites/${encodeURIComponent(invite.id)}`),
                            );
                            await invites.reload();
                            // The row went with its button: the list's heading takes focus.
                            refocusIfLost(() => heading.current);
                          }}
                        >
                          Withdraw<span class="visually-hidden"> the invitation of {invite.email}</span>
                        </button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}
