import { ApiError, api } from '../api/api-client.ts';
import type { StatsSnapshot } from '../api/types.ts';
import { useSession } from '../app/session-context.ts';
import { ViewHeader } from '../app/shell.tsx';
import { EngineHealth } from '../components/engine-health.tsx';
import { Empty, ErrorState, Loading } from '../components/load-state.tsx';
import { useLoad } from '../components/use-load.ts';

/**
 * What an account without the stats feature is told: who turns it on and how, with the account's
 * slug in the commands, so that the owner can pass them on as they are.
 */
function StatsNotEnabled({ slug }: { slug: string }) {
  return (
    <Empty>
      <p role="alert">Stats are not enabled for this account.</p>
      <p>
        The operator of this service turns them on per account: in the console, under Accounts, {slug}, the
        Stats feature; or from a shell, <code>webcap admin accounts update {slug} --stats true</code>; or over
        the admin API, <code>PATCH /admin/v1/accounts/{slug}</code> with{' '}
        <code>{'{"stats_enabled": true}'}</code>. Ask them, then open this view again.
      </p>
    </Empty>
  );
}

/** Health: the platform's last hour per engine, for accounts with the stats feature. */
export function HealthView() {
  const { session } = useSession();
  const stats = useLoad(() => api<{ engines: Record<string, StatsSnapshot> }>('GET', '/stats'), []);
  return (
    <section>
      <ViewHeader
        title="Health"
        lead="How each engine answered everyone over the last hour: only 5xx count as failures. The same numbers as GET /v1/stats."
      />
      {stats.state === 'loading' && <Loading />}
      {stats.state === 'error' &&
        (stats.error instanceof ApiError && stats.error.status === 403 ? (
          <StatsNotEnabled slug={session.user.account?.slug ?? 'SLUG'} />
        ) : (
          <ErrorState error={stats.error} onRetry={() => void stats.reload()} />
        ))}
      {stats.state === 'ready' &&
        (Object.keys(stats.data.engines).length === 0 ? (
          <Empty>No engine reports yet.</Empty>
        ) : (
          <EngineHealth engines={stats.data.engines} />
        ))}
    </section>
  );
}
