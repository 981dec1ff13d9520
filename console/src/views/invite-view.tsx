import { useState } from 'preact/hooks';
import { ApiError, api } from '../api/api-client.ts';
import type { InviteInfo, Session } from '../api/types.ts';
import { formatTime } from '../app/format.ts';
import { navigate } from '../app/router.tsx';
import { FormError, TextInput } from '../components/form-field.tsx';
import { ErrorState, Loading } from '../components/load-state.tsx';
import { useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';

/** /console/invite/<token>: whoever holds the link chooses a name and password and is signed in. */
export function InviteView({
  token,
  onSignedIn,
}: {
  readonly token: string;
  readonly onSignedIn: (session: Session) => void;
}) {
  const invite = useLoad(() => api<InviteInfo>('GET', `/invites/${encodeURIComponent(token)}`), [token]);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    if (password !== again) {
      await action.run(() => Promise.reject(new Error('The two passwords differ.')));
      return;
    }
    const session = await action.run(() =>
      api<Session>('POST', `/invites/${encodeURIComponent(token)}/accept`, { name, password }),
    );
    if (session !== undefined) {
      onSignedIn(session);
      navigate('/', true);
    }
  };

  return (
    <div class="auth-page">
      <div class="auth-card">
        <div class="auth-brand">
          <span class="brand-mark" aria-hidden="true" />
          <span class="brand-name">webcap</span>
        </div>
        {invite.state === 'loading' && <Loading label="Reading the invitation…" />}
        {invite.state === 'error' &&
          (invite.error instanceof ApiError && invite.error.status === 404 ? (
            <>
              <h1>This invitation cannot be used</h1>
              <p role="alert">
                It is unknown, already used or expired. Ask the account’s owner for a new link.
              </p>
            </>
          ) : (
            <ErrorState error={invite.error} onRetry={() => void invite.reload()} />
          ))}
        {invite.state === 'ready' && (
          <>
            <h1>Join {invite.data.account.name}</h1>
            <p class="lead">
              You are invited as <strong>{invite.data.role}</strong> with the email{' '}
              <strong>{invite.data.email}</strong>. The link works until {formatTime(invite.data.expires_at)}.
            </p>
            <form onSubmit={submit} class="stack">
              <input
                type="email"
                name="email"
                autoComplete="username"
                value={invite.data.email}
                readOnly
                hidden
              />
              <TextInput
                label="Your name"
                name="name"
                autoComplete="name"
                required
                value={name}
                onValue={setName}
              />
              <TextInput
                label="Choose a password"
                hint="10 to 200 characters."
                type="password"
                name="new-password"
                autoComplete="new-password"
                minLength={10}
                maxLength={200}
                required
                value={password}
                onValue={setPassword}
              />
              <TextInput
                label="The password again"
                type="password"
                name="new-password-again"
                autoComplete="new-password"
                required
                value={again}
                onValue={setAgain}
              />
              <FormError error={action.error} />
              <button type="submit" class="button primary wide" disabled={action.busy}>
                {action.busy ? 'Joining…' : 'Join and sign in'}
              </button>
            </form>
          </>
        )}
      </div>
    </div>
  );
}
