import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from '../api/types.ts';

export interface SessionValue {
  readonly session: Session;
  /** Ends this session (sign out) and shows the sign-in page. */
  signOut(): Promise<void>;
  /** Forgets the session after the service ended it (sign out everywhere, password change). */
  ended(message: string): void;
}

export const SessionContext = createContext<SessionValue | null>(null);

/** The signed-in session; only inside the signed-in part of the app. */
export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (value === null) throw new Error('useSession outside a session');
  return value;
}

/** Whether the session may do an owner's things (the API refuses them to others all the same). */
export function isOwner(value: SessionValue): boolean {
  return value.session.user.role === 'owner';
}
