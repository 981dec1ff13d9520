import type { StatsSnapshot } from '../api/types.ts';
import { formatDuration } from '../app/format.ts';
import { Badge, type Tone } from './badge.tsx';

const TONES: Readonly<Record<StatsSnapshot['health'], Tone>> = {
  operational: 'good',
  degraded: 'warn',
  down: 'bad',
};

/** The one-hour snapshot of each engine (GET /v1/stats), a card each. */
export function EngineHealth({ engines }: { readonly engines: Readonly<Record<string, StatsSnapshot>> }) {
  return (
    <div class="cards">
      {Object.entries(engines).map(([engine, snapshot]) => (
        <div class="card stat" key={engine} data-engine={engine}>
          <span class="stat-label">{engine}</span>
          <span class="stat-value">
            <Badge tone={TONES[snapshot.health] ?? 'neutral'}>{snapshot.health}</Badge>
          </span>
          <span class="stat-note">
            {snapshot.success_rate.toFixed(2)}% success · {formatDuration(snapshot.avg_response_time_ms)}{' '}
            average · last {snapshot.window === '1h' ? 'hour' : snapshot.window}
          </span>
        </div>
      ))}
    </div>
  );
}
