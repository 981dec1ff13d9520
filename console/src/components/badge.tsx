import type { ComponentChildren } from 'preact';

export type Tone = 'good' | 'warn' | 'bad' | 'neutral' | 'info';

/** A short status word; its color repeats what the word says. */
export function Badge({ tone, children }: { readonly tone: Tone; readonly children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

/** A key's state: revoked, inactive, expired or active. */
export function keyState(key: {
  readonly active: boolean;
  readonly revoked_at: string | null;
  readonly expires_at: string | null;
}): { label: string; tone: Tone } {
  if (key.revoked_at !== null) return { label: 'revoked', tone: 'bad' };
  if (!key.active) return { label: 'inactive', tone: 'neutral' };
  if (key.expires_at !== null && new Date(key.expires_at).getTime() <= Date.now())
    return { label: 'expired', tone: 'warn' };
  return { label: 'active', tone: 'good' };
}

/** An HTTP status's tone: 2xx good, 4xx warn, 5xx bad. */
export function statusTone(status: number): Tone {
  if (status >= 500) return 'bad';
  if (status >= 400) return 'warn';
  if (status >= 200 && status < 300) return 'good';
  return 'neutral';
}
