import { useEffect } from 'preact/hooks';
import { Empty } from '../components/load-state.tsx';
import { AccountSettingsView } from '../views/account-settings-view.tsx';
import { AuditView } from '../views/audit-view.tsx';
import { HealthView } from '../views/health-view.tsx';
import { JobsView } from '../views/jobs-view.tsx';
import { KeysView } from '../views/keys-view.tsx';
import { OperatorAccountView } from '../views/operator-account-view.tsx';
import { OperatorAccountsView } from '../views/operator-accounts-view.tsx';
import { OperatorAuditView } from '../views/operator-audit-view.tsx';
import { OperatorHealthView } from '../views/operator-health-view.tsx';
import { OperatorRequestsView } from '../views/operator-requests-view.tsx';
import { PlaygroundView } from '../views/playground-view.tsx';
import { TeamView } from '../views/team-view.tsx';
import { UsageView } from '../views/usage-view.tsx';
import { NAV_ITEMS, navFor } from './nav-items.ts';
import { Link, matchPath, navigate } from './router.tsx';
import { useSession } from './session-context.ts';
import { Shell } from './shell.tsx';

/** The view for a path, inside the shell; a section the role may not open says so. */
export function Routes({ path }: { readonly path: string }) {
  const { session } = useSession();
  const role = session.user.role;
  const home = navFor(role)[0]?.path ?? '/account';

  useEffect(() => {
    if (path === '/' || path === '/sign-in') navigate(home, true);
  }, [path, home]);
  // Each view's title is the window's too, so tabs and history read well.
  useEffect(() => {
    const section = NAV_ITEMS.find((item) => path === item.path || path.startsWith(`${item.path}/`));
    document.title = section === undefined ? 'webcap console' : `${section.label} · webcap console`;
  }, [path]);

  const section = NAV_ITEMS.find((item) => path === item.path || path.startsWith(`${item.path}/`));
  if (section !== undefined && !section.roles.includes(role)) {
    return (
      <Shell path={path}>
        <Empty>
          <h1>Not for your role</h1>
          <p>
            {role === 'member'
              ? 'Only the account’s owners can open this section.'
              : 'This section belongs to another kind of user.'}{' '}
            <Link to={home}>Go to the console’s start</Link>.
          </p>
        </Empty>
      </Shell>
    );
  }
  return <Shell path={path}>{view(path)}</Shell>;
}

function view(path: string) {
  const account = matchPath('/operator/accounts/:slug', path);
  if (account !== null) return <OperatorAccountView slug={account.slug ?? ''} />;
  const job = matchPath('/jobs/:id', path);
  if (job !== null) return <JobsView openJob={job.id ?? null} />;
  switch (path) {
    case '/':
    case '/sign-in':
      return null;
    case '/keys':
      return <KeysView />;
    case '/usage':
      return <UsageView />;
    case '/jobs':
      return <JobsView openJob={null} />;
    case '/playground':
      return <PlaygroundView />;
    case '/health':
      return <HealthView />;
    case '/team':
      return <TeamView />;
    case '/audit':
      return <AuditView />;
    case '/account':
      return <AccountSettingsView />;
    case '/operator/accounts':
      return <OperatorAccountsView />;
    case '/operator/requests':
      return <OperatorRequestsView />;
    case '/operator/health':
      return <OperatorHealthView />;
    case '/operator/audit':
      return <OperatorAuditView />;
    default:
      return (
        <Empty>
          <h1>Nothing here</h1>
          <p>
            There is no console page at this address. <Link to="/">Go to the console’s start</Link>.
          </p>
        </Empty>
      );
  }
}
