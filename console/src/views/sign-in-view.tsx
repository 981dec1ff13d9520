import { useState } from 'preact/hooks';
import { ApiError, api } from '../api/api-client.ts';
import type { Session } from '../api/types.ts';
import { FormError, TextInput } from '../components/form-field.tsx';
import { useAction } from '../components/use-action.ts';

type Mode = 'password' | 'token';

/** Sign-in with email and password, or, for the operator, with the admin token. */
export function SignInView({
  notice,
  onSignedIn,
}: {
  readonly notice: string | null;
  readonly onSignedIn: (session: Session) => void;
}) {
  const [mode, setMode] = useState<Mode>('password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const body = mode === 'password' ? { email, password } : { admin_token: token };
    const session = await action.run(() =>
      api<Session>('POST', '/session', body).catch((error: unknown) => {
        // A lock says when it ends (Retry-After): the page says it too.
        if (error instanceof ApiError && error.retryAfter !== null) {
          throw new Error(`${error.message} (in ${error.retryAfter} s)`);
        }
        throw error;
      }),
    );
    if (session !== undefined) onSignedIn(session);
  };

  return (
    <div class="auth-page">
      <div class="auth-card">
        <div class="auth-brand">
          <span class="brand-mark" aria-hidden="true" />
          <span class="brand-name">webcap</span>
        </div>
        <h1>Sign in to the console</h1>
        {notice !== null && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <form onSubmit={submit} class="stack">
          {mode === 'password' ? (
            <>
              <TextInput
                label="Email"
                type="email"
                name="email"
                autoComplete="username"
                required
                value={email}
                onValue={setEmail}
              />
              <TextInput
                label="Password"
                type="password"
                name="password"
                autoComplete="current-password"
                required
                value={password}
                onValue={setPassword}
              />
            </>
          ) : (
            <TextInput
              label="Admin token"
              hint="The service’s WEBCAP_ADMIN_TOKEN: it opens the operator console."
              type="password"
              name="admin_token"
              autoComplete="off"
              required
              value={token}
              onValue={setToken}
            />
          )}
          <FormError error={action.error} />
          <button type="submit" class="button primary wide" disabled={action.busy}>
            {action.busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <button
          type="button"
          class="link-button"
          onClick={() => {
            setMode(mode === 'password' ? 'token' : 'password');
            action.clearError();
          }}
        >
          {mode === 'password' ? 'Operator? Sign in with the admin token' : 'Sign in with email and password'}
        </button>
      </div>
    </div>
  );
}
