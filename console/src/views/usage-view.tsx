import { api } from '../api/api-client.ts';
import type { AccountUsage, ConsoleKey, DailyUsage, Page } from '../api/types.ts';
import { ViewHeader } from '../app/shell.tsx';
import { DailyCharts } from '../charts/daily-charts.tsx';
import { Loaded } from '../components/load-state.tsx';
import { RequestLog } from '../components/request-log.tsx';
import { useLoad } from '../components/use-load.ts';
import { UsageSummary } from './usage-summary.tsx';

/** Usage: what is left and from where, the caps, 30 days of calls, and the request log. */
export function UsageView() {
  const usage = useLoad(() => api<AccountUsage>('GET', '/usage'), []);
  const daily = useLoad(() => api<{ days: DailyUsage[] }>('GET', '/usage/daily?days=30'), []);
  const keys = useLoad(() => api<Page<ConsoleKey>>('GET', '/keys'), []);
  return (
    <section>
      <ViewHeader
        title="Usage"
        lead="Units are drawn in this order: the subscription, then packs (oldest first), then credits."
      />
      <Loaded load={usage}>{(data) => <UsageSummary usage={data} />}</Loaded>
      <h2>Calls per day</h2>
      <Loaded load={daily}>{(data) => <DailyCharts days={data.days} />}</Loaded>
      <h2>Request log</h2>
      <RequestLog scope="account" keys={keys.state === 'ready' ? keys.data.items : undefined} />
    </section>
  );
}
