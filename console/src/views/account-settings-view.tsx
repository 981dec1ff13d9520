import { useState } from 'preact/hooks';
import { api } from '../api/api-client.ts';
import { formatTime } from '../app/format.ts';
import { useSession } from '../app/session-context.ts';
import { ViewHeader } from '../app/shell.tsx';
import { FormError, TextInput } from '../components/form-field.tsx';
import { useAction } from '../components/use-action.ts';

/** Your account: who you are, a password change, and sign-out everywhere. */
export function AccountSettingsView() {
  const value = useSession();
  const { user, expires_at } = value.session;
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [changed, setChanged] = useState(false);
  const password = useAction();
  const everywhere = useAction();

  return (
    <section>
      <ViewHeader title="Your account" />
      <div class="card">
        <dl class="facts wide">
          <div>
            <dt>Name</dt>
            <dd>{user.name}</dd>
          </div>
          <div>
            <dt>Email</dt>
            <dd>{user.email ?? '— (admin token)'}</dd>
          </div>
          <div>
            <dt>Role</dt>
            <dd>{user.role}</dd>
          </div>
          {user.account !== null && (
            <div>
              <dt>Account</dt>
              <dd>
                {user.account.name} <code>{user.account.slug}</code>
              </dd>
            </div>
          )}
          <div>
            <dt>This session ends</dt>
            <dd>{formatTime(expires_at)} at the latest</dd>
          </div>
        </dl>
      </div>
      {user.id !== null && (
        <form
          class="card stack narrow"
          aria-labelledby="password-title"
          onSubmit={async (event) => {
            event.preventDefault();
            setChanged(false);
            if (next !== again) {
              await password.run(() => Promise.reject(new Error('The two new passwords differ.')));
              return;
            }
            const done = await password.run(async () => {
              await api('POST', '/password', { current_password: current, new_password: next });
              return true;
            });
            if (done === true) {
              setCurrent('');
              setNext('');
              setAgain('');
              setChanged(true);
            }
          }}
        >
          <h2 class="card-title" id="password-title">
            Change your password
          </h2>
          <TextInput
            label="Current password"
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onValue={setCurrent}
          />
          <TextInput
            label="New password"
            hint="10 to 200 characters. Your other sessions end."
            type="password"
            autoComplete="new-password"
            minLength={10}
            maxLength={200}
            required
            value={next}
            onValue={setNext}
          />
          <TextInput
            label="New password again"
            type="password"
            autoComplete="new-password"
            required
            value={again}
            onValue={setAgain}
          />
          <FormError error={password.error} />
          {changed && (
            <p class="notice" role="status">
              Your password is changed; your other sessions have ended.
            </p>
          )}
          <div class="form-actions">
            <button type="submit" class="button primary" disabled={password.busy}>
              Change password
            </button>
          </div>
        </form>
      )}
      <div class="card stack narrow">
        <h2 class="card-title">Sign out everywhere</h2>
        <p class="muted">Ends every session of yours, on every device, this one included.</p>
        <FormError error={everywhere.error} />
        <div class="form-actions">
          <button
            type="button"
            class="button danger"
            disabled={everywhere.busy}
            onClick={async () => {
              const done = await everywhere.run(async () => {
                await api('POST', '/session/everywhere');
                return true;
              });
              if (done === true) value.ended('You are signed out everywhere.');
            }}
          >
            Sign out everywhere
          </button>
        </div>
      </div>
    </section>
  );
}
