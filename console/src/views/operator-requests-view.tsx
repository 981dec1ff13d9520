import { useState } from 'preact/hooks';
import { api, query } from '../api/api-client.ts';
import type { DailyUsage } from '../api/types.ts';
import { ViewHeader } from '../app/shell.tsx';
import { DailyCharts } from '../charts/daily-charts.tsx';
import { TextInput } from '../components/form-field.tsx';
import { Loaded } from '../components/load-state.tsx';
import { RequestLog } from '../components/request-log.tsx';
import { useLoad } from '../components/use-load.ts';

/** Requests across accounts: 30 days of calls (all accounts, or one) and the request log. */
export function OperatorRequestsView() {
  const [draft, setDraft] = useState('');
  const [account, setAccount] = useState('');
  const daily = useLoad(
    () => api<{ days: DailyUsage[] }>('GET', `/operator/usage/daily${query({ days: 30, account })}`),
    [account],
  );
  return (
    <section>
      <ViewHeader title="Requests" lead="Every authenticated call, across accounts." />
      <form
        class="filters compact"
        aria-label="Choose the account of the charts"
        onSubmit={(event) => {
          event.preventDefault();
          setAccount(draft.trim());
        }}
      >
        <TextInput label="Charts for account" placeholder="all accounts" value={draft} onValue={setDraft} />
        <div class="filter-actions">
          <button type="submit" class="button secondary small">
            Show
          </button>
        </div>
      </form>
      <Loaded load={daily}>{(data) => <DailyCharts days={data.days} />}</Loaded>
      <h2>Request log</h2>
      <RequestLog scope="operator" />
    </section>
  );
}
