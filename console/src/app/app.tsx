import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, setCsrfToken, whenSignedOut } from '../api/api-client.ts';
import type { Session } from '../api/types.ts';
import { ErrorState, Loading } from '../components/load-state.tsx';
import { InviteView } from '../views/invite-view.tsx';
import { SignInView } from '../views/sign-in-view.tsx';
import { currentPath, matchPath, usePath } from './router.tsx';
import { Routes } from './routes.tsx';
import { SessionContext, type SessionValue } from './session-context.ts';

type SessionLoad =
  | { readonly state: 'loading' }
  | { readonly state: 'signed-out'; readonly notice: string | null }
  | { readonly state: 'error'; readonly error: Error }
  | { readonly state: 'signed-in'; readonly session: Session };

/** The console: the invitation page, the sign-in page, or the signed-in app. */
export function App() {
  const path = usePath();
  const [load, setLoad] = useState<SessionLoad>({ state: 'loading' });
  const invite = matchPath('/invite/:token', path);

  const adopt = (session: Session) => {
    setCsrfToken(session.csrf_token);
    setLoad({ state: 'signed-in', session });
  };
  const signedOut = (notice: string | null) => {
    setCsrfToken(null);
    setLoad({ state: 'signed-out', notice });
  };

  const fetchSession = async () => {
    setLoad({ state: 'loading' });
    try {
      adopt(await api<Session>('GET', '/session'));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) signedOut(null);
      else setLoad({ state: 'error', error: error instanceof Error ? error : new Error(String(error)) });
    }
  };

  useEffect(() => {
    whenSignedOut(() => signedOut('Your session has ended. Sign in again.'));
    if (matchPath('/invite/:token', currentPath()) === null) void fetchSession();
    return () => whenSignedOut(null);
  }, []);

  if (invite !== null) return <InviteView token={invite.token ?? ''} onSignedIn={adopt} />;
  if (load.state === 'loading') {
    return (
      <div class="center-page">
        <Loading label="Opening the console…" />
      </div>
    );
  }
  if (load.state === 'error') {
    return (
      <div class="center-page">
        <ErrorState error={load.error} onRetry={() => void fetchSession()} />
      </div>
    );
  }
  if (load.state === 'signed-out') {
    return <SignInView notice={load.notice} onSignedIn={adopt} />;
  }
  const value: SessionValue = {
    session: load.session,
    signOut: async () => {
      try {
        await api('DELETE', '/session');
      } finally {
        signedOut('You are signed out.');
      }
    },
    ended: (message) => signedOut(message),
  };
  return (
    <SessionContext.Provider value={value}>
      <Routes path={path} />
    </SessionContext.Provider>
  );
}
