import { ApiError, api } from '../api/api-client.ts';
import type { StatsSnapshot } from '../api/types.ts';
import { ViewHeader } from '../app/shell.tsx';
import { EngineHealth } from '../components/engine-health.tsx';
import { Empty, ErrorState, Loading } from '../components/load-state.tsx';
import { useLoad } from '../components/use-load.ts';

/** Health: the platform's last hour per engine, for accounts with the stats feature. */
export function HealthView() {
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
          <Empty>
            <p role="alert">{stats.error.message}</p>
            <p>The operator turns the stats feature on per account.</p>
          </Empty>
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
