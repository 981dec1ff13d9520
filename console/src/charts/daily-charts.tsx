import type { DailyUsage } from '../api/types.ts';
import { BarChart } from './bar-chart.tsx';

const ENGINES = ['capture', 'content', 'analyze', 'website-crawler', 'usage', 'stats', 'jobs'];
const STATUSES = ['2xx', '3xx', '4xx', '5xx'];

/** Calls per day by engine and by status, side by side on a wide screen. */
export function DailyCharts({ days }: { readonly days: readonly DailyUsage[] }) {
  return (
    <div class="chart-pair">
      <BarChart
        title={`Calls per day by engine, last ${days.length} days`}
        columns={days.map((day) => ({ label: day.date, values: day.by_engine }))}
        order={ENGINES}
      />
      <BarChart
        title={`Calls per day by status, last ${days.length} days`}
        columns={days.map((day) => ({ label: day.date, values: day.by_status }))}
        order={STATUSES}
      />
    </div>
  );
}
