import type { Role } from '../api/types.ts';

export interface NavItem {
  readonly path: string;
  readonly label: string;
  readonly roles: readonly Role[];
}

/** The console's sections, each for the roles that may open it (docs/console.md's table). */
export const NAV_ITEMS: readonly NavItem[] = [
  { path: '/keys', label: 'API keys', roles: ['owner', 'member'] },
  { path: '/usage', label: 'Usage', roles: ['owner', 'member'] },
  { path: '/jobs', label: 'Jobs', roles: ['owner', 'member'] },
  { path: '/playground', label: 'Playground', roles: ['owner', 'member'] },
  { path: '/health', label: 'Health', roles: ['owner', 'member'] },
  { path: '/team', label: 'Team', roles: ['owner'] },
  { path: '/audit', label: 'Audit log', roles: ['owner'] },
  { path: '/operator/accounts', label: 'Accounts', roles: ['operator'] },
  { path: '/operator/requests', label: 'Requests', roles: ['operator'] },
  { path: '/operator/health', label: 'System health', roles: ['operator'] },
  { path: '/operator/audit', label: 'Audit log', roles: ['operator'] },
  { path: '/account', label: 'Your account', roles: ['owner', 'member', 'operator'] },
];

/** The sections a role sees, in order. */
export function navFor(role: Role): NavItem[] {
  return NAV_ITEMS.filter((item) => item.roles.includes(role));
}
